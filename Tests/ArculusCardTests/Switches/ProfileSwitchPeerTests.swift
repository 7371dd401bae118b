import ArculusCard
import CBOR
import CardCrypto
import FIDOWire
import Foundation
import Testing
import TestSupport

/// The switches the probe's learning needed for a second CTAP 2.1 card (a JavaCard applet), each
/// shown as a rule against a default card: requests the battery does not send, or not this way.
@Suite("Profile switches: GET RESPONSE parameters, chain overflow, refused SELECT, stored names, getInfo reports")
struct ProfileSwitchPeerTests {
    static let rpId = "switches.example"
    static let getInfo: [UInt8] = [0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x10]

    @Test("getResponseP1P2 ignore: GET RESPONSE with P1 05 after a cut answer gives the rest; a default card answers 6A86")
    func getResponseParameters() throws {
        let profile = try switched { $0.behaviour.getResponseP1P2 = .ignore }
        for (candidate, expected) in [(CardProfile.default, UInt16(0x6A86)), (profile, 0x9000)] {
            let card = try selectedCard(candidate)
            let first = card.transmit(Self.getInfo)
            #expect(first[first.count - 2] == 0x61)
            let rest = card.transmit([0x00, 0xC0, 0x05, 0x00, 0x00])
            #expect(UInt16(rest[rest.count - 2]) << 8 | UInt16(rest[rest.count - 1]) == expected)
        }
    }

    @Test("chainOverflow 6F00: a chained NFCCTAP_MSG is refused at the piece that passes maxMsgSize (2048: the 9th of 255 bytes); a default card takes every piece and answers REQUEST_TOO_LARGE")
    func chainOverflow() throws {
        let profile = try switched { $0.behaviour.chainOverflow = .refused(StatusWord(rawValue: 0x6F00)) }
        let piece: [UInt8] = [0x90, 0x10, 0x00, 0x00, 0xFF] + [UInt8](repeating: 0xA0, count: 255)
        for (candidate, ninth) in [(CardProfile.default, UInt16(0x9000)), (profile, 0x6F00)] {
            let card = try selectedCard(candidate)
            for _ in 0..<8 { #expect(card.exchangeWhole(piece).sw == 0x9000) }
            #expect(card.exchangeWhole(piece).sw == ninth)
            let last = card.exchangeWhole([0x80, 0x10, 0x00, 0x00, 0x01, 0xA0, 0x00])
            // After the refusal the chain is gone: the last piece alone is a whole message (command A0, none).
            #expect(last.data == [candidate == .default ? CTAPStatus.requestTooLarge.rawValue : CTAPStatus.invalidCommand.rawValue])
        }
    }

    @Test("afterRefusedSelect 6D00: after a refused SELECT without AID, getInfo answers 6D00 until a SELECT; a default card answers 6985 (not selected)")
    func afterRefusedSelect() throws {
        let profile = try switched { $0.behaviour.afterRefusedSelect = .answer(StatusWord(rawValue: 0x6D00)) }
        for (candidate, expected) in [(CardProfile.default, UInt16(0x6985)), (profile, 0x6D00)] {
            let card = try VirtualCard(profile: candidate)
            #expect(card.exchangeWhole([0x00, 0xA4, 0x04, 0x00]).sw == 0x6700)
            #expect(card.exchangeWhole(Self.getInfo).sw == expected)
            #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
            #expect(card.exchangeWhole(Self.getInfo).sw == 0x9000)
        }
    }

    /// A discoverable credential for the switch RP, made with a token, with every name.
    func discoverable(on card: VirtualCard, token: [UInt8]) throws {
        var request = makeCredentialParameters(rpId: Self.rpId, userId: [5], rk: true, token: token)
        request[int: 2] = .map(["id": .text(Self.rpId), "name": "Switches"])
        request[int: 3] = .map(["id": .bytes([5]), "name": "user", "displayName": "User Five"])
        _ = try card.send(.makeCredential, request).okBody()
    }

    @Test("unstoredNames rp.name, user.displayName: the credential keeps the user's name only; singleAccountUser details: its one assertion after a PIN names the user")
    func storedNames() throws {
        let profile = try switched {
            $0.behaviour.unstoredNames = ["rp.name", "user.displayName"]
            $0.behaviour.singleAccountUser = .details
        }
        for candidate in [CardProfile.default, profile] {
            let card = try VirtualCard(profile: candidate)
            try PlatformPINOne.setPIN("4831", on: card)
            try discoverable(on: card, token: try PlatformPINOne.token("4831", on: card))
            let stored = try #require(card.credentials.first)
            let switched = candidate != .default
            #expect(stored.rpName == (switched ? nil : "Switches") && stored.userDisplayName == (switched ? nil : "User Five"))
            #expect(stored.userName == "user")
            let token = try PlatformPINOne.token("4831", on: card)
            let clientDataHash = SHA256.hash(Array("get \(Self.rpId)".utf8))
            let user = try card.send(.getAssertion, [.int(1): .text(Self.rpId), .int(2): .bytes(clientDataHash),
                                                     .int(6): .bytes(PlatformPIN.one.authenticate(key: token, clientDataHash)),
                                                     .int(7): 1]).okBody()[int: 4]?.mapValue
            #expect(user?[text: "name"] == (switched ? .text("user") : nil))
            #expect(user?[text: "id"] == .bytes([5]))
        }
    }

    @Test("uvmMethods strongest: a discoverable credential made after a PIN names the PIN alone; the reference card names the PIN and the presence")
    func uvmMethods() throws {
        // The reference card has the uvm extension (arculus-fido21 has not).
        let profile = try switched(.reference) { $0.behaviour.uvmMethods = .strongest }
        for (candidate, count) in [(CardProfile.reference, 2), (profile, 1)] {
            let card = try VirtualCard(profile: candidate)
            try PlatformPINOne.setPIN("4831", on: card)
            var request = makeCredentialParameters(rpId: Self.rpId, userId: [3], rk: true, token: try PlatformPINOne.token("4831", on: card))
            request[int: 6] = .map(["uvm": true])
            let authData = try #require(try card.send(.makeCredential, request).okBody()[int: 2]?.bytesValue)
            let credentialLength = Int(authData[53]) << 8 | Int(authData[54])
            let key = try CBORDecoder.decodePrefix(authData[(55 + credentialLength)...])
            let outputs = try CBORDecoder.decode(key.rest)
            #expect(outputs.mapValue?[text: "uvm"]?.arrayValue?.count == count)
            #expect(outputs.mapValue?[text: "uvm"]?.arrayValue?.first == .array([.int(0x0800), .int(0x000A), .int(0x0004)]))
        }
    }

    @Test("upOption false, uvAcfgOption true, uvModality 512: getInfo reports them; a default card reports up true and neither of the others")
    func getInfoReports() throws {
        let profile = try switched {
            $0.behaviour.upOption = false
            $0.behaviour.uvAcfgOption = true
            $0.behaviour.uvModality = 512
        }
        let plain = try VirtualCard(profile: .default).send(.getInfo).okBody()
        let info = try VirtualCard(profile: profile).send(.getInfo).okBody()
        #expect(plain[int: 4]?.mapValue?[text: "up"] == true && plain[int: 4]?.mapValue?[text: "uvAcfg"] == nil && plain[int: 0x12] == nil)
        #expect(info[int: 4]?.mapValue?[text: "up"] == false && info[int: 4]?.mapValue?[text: "uvAcfg"] == true && info[int: 0x12] == 512)
        // Presence is still the tap: a makeCredential's flags say UP.
        let made = try VirtualCard(profile: profile).send(.makeCredential, makeCredentialParameters(rpId: Self.rpId, userId: [1], rk: false)).okBody()
        #expect(try #require(made[int: 2]?.bytesValue)[32] & 0x01 == 0x01)
    }

    @Test("departures setPINAgainPUATRequired and deleteMissingCredentialOK: setPIN on a card with a PIN answers PUAT_REQUIRED; deleting an unknown credential answers OK")
    func writeDepartures() throws {
        let profile = try switched {
            $0.departures.setPINAgainPUATRequired = true
            $0.departures.deleteMissingCredentialOK = true
        }
        for (candidate, setAgain, delete) in [(CardProfile.default, CTAPStatus.pinAuthInvalid, CTAPStatus.noCredentials),
                                              (profile, .puatRequired, .ok)] {
            let card = try VirtualCard(profile: candidate)
            try PlatformPINOne.setPIN("4831", on: card)
            let session = try PlatformPINOne(card: card)
            let newPinEnc = try session.encrypt(paddedPIN("5555"))
            #expect(card.send(.clientPIN, [.int(1): 1, .int(2): 3, .int(3): session.platformKey,
                                           .int(4): .bytes(session.session.authenticate(newPinEnc)), .int(5): .bytes(newPinEnc)]).status == setAgain)
            let token = try PlatformPINOne.token("4831", permissions: 0x04, on: card)
            let parameters: CBORMap = [.int(2): .map(["id": .bytes([UInt8](repeating: 9, count: 81)), "type": "public-key"])]
            let signed = [UInt8(0x06)] + CBOREncoder.encode(.map(parameters))
            #expect(card.send(.credentialManagement, [.int(1): 6, .int(2): .map(parameters), .int(3): 1,
                                                      .int(4): .bytes(PlatformPIN.one.authenticate(key: token, signed))]).status == delete)
        }
    }

    @Test("remainingCredentials capacity: credential management's maxPossibleRemainingResidentCredentialsCount stays at the capacity too")
    func remainingInMetadata() throws {
        let profile = try switched { $0.behaviour.remainingCredentials = .capacity }
        for (candidate, expected) in [(CardProfile.default, 49), (profile, 50)] {
            let card = try VirtualCard(profile: candidate)
            try PlatformPINOne.setPIN("4831", on: card)
            try discoverable(on: card, token: try PlatformPINOne.token("4831", on: card))
            let token = try PlatformPINOne.token("4831", permissions: 0x04, on: card)
            let metadata = try card.send(.credentialManagement, [.int(1): 1, .int(3): 1,
                                                                 .int(4): .bytes(PlatformPIN.one.authenticate(key: token, [0x01]))]).okBody()
            #expect(metadata[int: 2] == .int(expected))
        }
    }
}
