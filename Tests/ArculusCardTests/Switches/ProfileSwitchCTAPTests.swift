import ArculusCard
import CBOR
import CardCrypto
import Foundation
import Testing
import FIDOWire
import TestSupport

/// The CTAP switches and departures, each shown as a rule: requests the probe battery does not
/// send (other members, shapes and commands the switch concerns), each against a default card too.
@Suite("Profile switches: CTAP choices and departures")
struct ProfileSwitchCTAPTests {
    static let rpId = "switches.example"

    @Test("pinRetriesWithoutPIN retries: getPINRetries with an extra member answers 8 retries before a PIN is set; getUVRetries is unchanged")
    func retriesWithoutPIN() throws {
        let profile = try switched { $0.behaviour.pinRetriesWithoutPIN = .retries }
        let request: CBORMap = [.int(1): 2, .int(2): 1, .int(0x0B): true]
        #expect(try VirtualCard(profile: .default).send(.clientPIN, request).status == .pinNotSet)
        let card = try VirtualCard(profile: profile)
        #expect(try card.send(.clientPIN, request).okBody()[int: 3] == 8)
        #expect(card.send(.clientPIN, [.int(1): 2, .int(2): 7]).status == .invalidSubcommand)
        try PlatformPINOne.setPIN("4831", on: card)
        #expect(try card.send(.clientPIN, request).okBody()[int: 3] == 8)
    }

    @Test("pinUvAuthParamWithoutPIN pinAuthInvalid: a 16-byte pinUvAuthParam to getAssertion with an allow list, and to a discoverable makeCredential")
    func pinUvAuthParamWithoutPIN() throws {
        let profile = try switched { $0.behaviour.pinUvAuthParamWithoutPIN = .pinAuthInvalid }
        var get = getAssertionParameters(rpId: Self.rpId, allow: [UInt8](repeating: 7, count: 81))
        get[int: 6] = .bytes([UInt8](repeating: 0x5A, count: 16))
        get[int: 7] = 1
        var make = makeCredentialParameters(rpId: Self.rpId, userId: [9], rk: true)
        make[int: 8] = .bytes([UInt8](repeating: 0xA5, count: 32))
        make[int: 9] = 2
        for (command, parameters) in [(CTAPCommand.getAssertion, get), (.makeCredential, make)] {
            #expect(try VirtualCard(profile: .default).send(command, parameters).status == .pinNotSet)
            #expect(try VirtualCard(profile: profile).send(command, parameters).status == .pinAuthInvalid)
        }
    }

    @Test("u2fUnlisted versionOnly: on a card without U2F_V2, U2F_VERSION answers, a well-formed REGISTER and AUTHENTICATE answer 6986, a bad control byte 6A86")
    func u2fVersionOnly() throws {
        var base = CardProfile.default
        base.versions.removeAll { $0 == "U2F_V2" }
        let profile = try switched(base) { $0.behaviour.u2fUnlisted = .versionOnly }
        let register = u2fRegisterAPDU(application: SHA256.hash(Array("https://u2f.switches.example".utf8)))
        let authenticate: [UInt8] = [0x00, 0x02, 0x03, 0x00, 0x42] + [UInt8](repeating: 1, count: 64) + [0x01, 0xEE] + [0x00]
        let plain = try selectedCard(base)
        let card = try selectedCard(profile)
        #expect(plain.exchangeWhole([0x00, 0x03, 0x00, 0x00, 0x00]).sw == 0x6D00)
        let version = card.exchangeWhole([0x00, 0x03, 0x00, 0x00, 0x00])
        #expect(version.sw == 0x9000 && version.data == Array("U2F_V2".utf8))
        #expect(plain.exchangeWhole(register).sw == 0x6D00)
        #expect(card.exchangeWhole(register).sw == 0x6986)
        #expect(card.exchangeWhole(authenticate).sw == 0x6986)
        #expect(card.exchangeWhole([0x00, 0x02, 0x04, 0x00, 0x01, 0x00]).sw == 0x6A86)
        let versions = try card.send(.getInfo).okBody()[int: 1]
        #expect(versions == ["FIDO_2_0", "FIDO_2_1"], "getInfo still lacks U2F_V2")
    }

    @Test("u2fVersionData ignore: U2F_VERSION with three data bytes answers U2F_V2")
    func u2fVersionData() throws {
        let apdu: [UInt8] = [0x00, 0x03, 0x00, 0x00, 0x03, 0x01, 0x02, 0x03, 0x00]
        #expect(try selectedCard(.default).exchangeWhole(apdu).sw == 0x6700)
        let answer = try selectedCard(try switched { $0.behaviour.u2fVersionData = .ignore }).exchangeWhole(apdu)
        #expect(answer.sw == 0x9000 && answer.data == Array("U2F_V2".utf8))
    }

    @Test("getInfoAbsent: the listed members and options leave getInfo, the others stay; maxMsgSize absent means 1024 at the front")
    func getInfoAbsent() throws {
        let profile = try switched {
            $0.behaviour.getInfoAbsent = ["transports", "maxPINLength", "firmwareVersion", "options.plat", "options.credMgmt"]
        }
        let plain = try VirtualCard(profile: .default).send(.getInfo).okBody()
        let body = try VirtualCard(profile: profile).send(.getInfo).okBody()
        for key in [0x09, 0x0E] {
            #expect(plain[int: key] != nil && body[int: key] == nil, "member \(key)")
        }
        #expect(body[int: 0x1D] == nil)
        #expect(body[int: 0x05] == 2048 && body[int: 0x0A] != nil, "the others stay")
        let options = try #require(body[int: 4]?.mapValue)
        #expect(options[text: "plat"] == nil && options[text: "credMgmt"] == nil && options[text: "rk"] == true)
        #expect(plain[int: 4]?.mapValue?[text: "plat"] == false)

        // A profile file with "maxMsgSize": null: absent from getInfo, and the card takes 1024 bytes.
        var json = try #require(try JSONSerialization.jsonObject(with: CardProfile.default.jsonData()) as? [String: Any])
        json["maxMsgSize"] = NSNull()
        json.removeValue(forKey: "transports")
        let directory = try TemporaryDirectory()
        let path = directory.file("absent.json")
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: path))
        let loaded = try CardProfile.load(path: path)
        #expect(loaded.behaviour.getInfoAbsent.sorted() == ["maxMsgSize", "transports"])
        #expect(loaded.maxMsgSize == 1024)
        let info = try VirtualCard(profile: loaded).send(.getInfo).okBody()
        #expect(info[int: 0x05] == nil && info[int: 0x09] == nil)
        let big: CBORMap = [.int(1): .text(Self.rpId), .int(2): .bytes([UInt8](repeating: 1, count: 32)),
                            .int(3): .array((0..<8).map { _ in .map(["id": .bytes([UInt8](repeating: 2, count: 128)), "type": "public-key"]) })]
        let request = ControlAPDU.request(.getAssertion, big)
        #expect(request.count > 1024 && request.count < 2048)
        let extended: [UInt8] = [0x80, 0x10, 0x00, 0x00, 0x00, UInt8(request.count >> 8), UInt8(request.count & 0xFF)] + request + [0x00, 0x00]
        let refused = try selectedCard(loaded).exchangeWhole(extended)
        #expect(refused.sw == 0x9000 && refused.data == [CTAPStatus.requestTooLarge.rawValue])
        let taken = try selectedCard(.default).exchangeWhole(extended)
        #expect(taken.sw == 0x9000 && taken.data == [CTAPStatus.noCredentials.rawValue])
    }

    @Test("remainingCredentials capacity: a discoverable credential made leaves getInfo's count at the capacity")
    func remainingCredentials() throws {
        let profile = try switched { $0.behaviour.remainingCredentials = .capacity }
        for (candidate, expected) in [(CardProfile.default, 49), (profile, 50)] {
            let card = try VirtualCard(profile: candidate)
            _ = try card.send(.makeCredential, makeCredentialParameters(rpId: Self.rpId, userId: [4], rk: true)).okBody()
            #expect(try card.send(.getInfo).okBody()[int: 0x14] == .int(expected))
        }
    }

    /// The counters of a makeCredential and two getAssertions on a fresh card of `profile`.
    func counters(_ profile: CardProfile) throws -> [UInt32] {
        let card = try VirtualCard(profile: profile)
        let made = try card.send(.makeCredential, makeCredentialParameters(rpId: Self.rpId, userId: [5], rk: false)).okBody()
        let id = try credential(from: made).id
        var values = [try signatureCounter(of: made)]
        for _ in 0..<2 {
            let asserted = try card.send(.getAssertion, getAssertionParameters(rpId: Self.rpId, allow: id)).okBody()
            values.append(try signatureCounter(of: asserted))
        }
        return values
    }

    @Test("signatureCounter: global step 5 counts 5, 10, 15; zero answers 0 throughout; randomStep moves 1…4 each time")
    func signatureCounters() throws {
        #expect(try counters(.default) == [1, 2, 3])
        #expect(try counters(try switched { $0.behaviour.signatureCounterStep = 5 }) == [5, 10, 15])
        #expect(try counters(try switched { $0.behaviour.signatureCounter = .zero }) == [0, 0, 0])
        let random = try counters(try switched { $0.behaviour.signatureCounter = .randomStep; $0.behaviour.signatureCounterStep = 4 })
        let steps = zip(random, [0] + random).map { $0 - $1 }
        #expect(steps.allSatisfy { (1...4).contains($0) }, "\(random)")
    }

    @Test("credentialIdLength 100: IDs of 100 bytes, non-discoverable and discoverable, that assert; a changed filler byte is unknown")
    func credentialIdLength() throws {
        let profile = try switched { $0.behaviour.credentialIdLength = 100 }
        let card = try VirtualCard(profile: profile)
        for rk in [false, true] {
            let made = try card.send(.makeCredential, makeCredentialParameters(rpId: Self.rpId, userId: [6], rk: rk)).okBody()
            let id = try credential(from: made).id
            #expect(id.count == 100)
            #expect(card.send(.getAssertion, getAssertionParameters(rpId: Self.rpId, allow: id)).status == .ok)
            var changed = id
            changed[95] ^= 0x01
            #expect(card.send(.getAssertion, getAssertionParameters(rpId: Self.rpId, allow: changed)).status == .noCredentials)
        }
        let natural = try VirtualCard(profile: .default).send(.makeCredential,
                                                               makeCredentialParameters(rpId: Self.rpId, userId: [6], rk: false)).okBody()
        #expect(try credential(from: natural).id.count == 81)
    }

    @Test("credentialIdLength 97 on a card with credBlob: a plain ID is padded to 97, one with a 64-byte credBlob keeps its 145 bytes; both assert")
    func credentialIdLengthBelowCredBlob() throws {
        let card = try VirtualCard(profile: try switched(.reference) { $0.behaviour.credentialIdLength = 97 })
        var withBlob = makeCredentialParameters(rpId: Self.rpId, userId: [7], rk: false)
        withBlob[int: 6] = .map(["credBlob": .bytes([UInt8](repeating: 0x42, count: 64))])
        for (parameters, length) in [(makeCredentialParameters(rpId: Self.rpId, userId: [7], rk: false), 97), (withBlob, 145)] {
            let id = try credential(from: try card.send(.makeCredential, parameters).okBody()).id
            #expect(id.count == length)
            #expect(card.send(.getAssertion, getAssertionParameters(rpId: Self.rpId, allow: id)).status == .ok)
        }
    }

    @Test("departure oldTokenStaysValid: a cm token used after a newer cm token was issued still lists the metadata")
    func oldTokenStaysValid() throws {
        let metadata: (([UInt8]) -> CBORMap) = { token in
            [.int(1): 1, .int(3): 1, .int(4): .bytes(PlatformPIN.one.authenticate(key: token, [0x01]))]
        }
        for (profile, expected) in [(CardProfile.default, CTAPStatus.pinAuthInvalid),
                                    (try switched { $0.departures.oldTokenStaysValid = true }, .ok)] {
            let card = try VirtualCard(profile: profile)
            try PlatformPINOne.setPIN("4831", on: card)
            let old = try PlatformPINOne.token("4831", permissions: 0x04, on: card)
            let newer = try PlatformPINOne.token("4831", permissions: 0x04, on: card)
            #expect(card.send(.credentialManagement, metadata(newer)).status == .ok)
            #expect(card.send(.credentialManagement, metadata(old)).status == expected)
        }
    }

    @Test("departure grantsUnsupportedPermissions: acfg on a card without authenticatorConfig gives a token")
    func grantsUnsupportedPermissions() throws {
        for (profile, granted) in [(CardProfile.default, false), (try switched { $0.departures.grantsUnsupportedPermissions = true }, true)] {
            let card = try VirtualCard(profile: profile)
            try PlatformPINOne.setPIN("4831", on: card)
            let session = try PlatformPINOne(card: card)
            let request: CBORMap = [.int(1): 1, .int(2): 9, .int(3): session.platformKey,
                                    .int(6): .bytes(try session.encrypt(pinHash("4831"))), .int(9): 0x20]
            let response = card.send(.clientPIN, request)
            #expect(response.status == (granted ? .ok : .unauthorizedPermission))
        }
    }

    @Test("departure pinStateBeforeMembers: getPinUvAuthTokenUsingPinWithPermissions without keyAgreement answers PIN_NOT_SET first; with a PIN set, MISSING_PARAMETER")
    func pinStateBeforeMembers() throws {
        let request: CBORMap = [.int(1): 2, .int(2): 9, .int(6): .bytes([UInt8](repeating: 3, count: 32)), .int(9): 0x01,
                                .int(0x0A): .text(Self.rpId)]
        #expect(try VirtualCard(profile: .default).send(.clientPIN, request).status == .missingParameter)
        let card = try VirtualCard(profile: try switched { $0.departures.pinStateBeforeMembers = true })
        #expect(card.send(.clientPIN, request).status == .pinNotSet)
        try PlatformPINOne.setPIN("4831", on: card)
        #expect(card.send(.clientPIN, request).status == .missingParameter)
    }

    @Test("departure pinRetriesNeedProtocol: getPINRetries without pinUvAuthProtocol on a card with a PIN is MISSING_PARAMETER; with it, the retries")
    func pinRetriesNeedProtocol() throws {
        let card = try VirtualCard(profile: try switched { $0.departures.pinRetriesNeedProtocol = true })
        try PlatformPINOne.setPIN("4831", on: card)
        #expect(card.send(.clientPIN, [.int(2): 1]).status == .missingParameter)
        #expect(try card.send(.clientPIN, [.int(1): 1, .int(2): 1]).okBody()[int: 3] == 8)
        let plain = try VirtualCard(profile: .default)
        try PlatformPINOne.setPIN("4831", on: plain)
        #expect(try plain.send(.clientPIN, [.int(2): 1]).okBody()[int: 3] == 8)
    }

    @Test("departures getAssertionIgnoresUv and rkOptionInvalid: uv true on an allow-listed assertion succeeds without UV; rk false is INVALID_OPTION")
    func getAssertionOptions() throws {
        let profile = try switched { $0.departures.getAssertionIgnoresUv = true; $0.departures.rkOptionInvalid = true }
        for (candidate, departs) in [(CardProfile.default, false), (profile, true)] {
            let card = try VirtualCard(profile: candidate)
            let made = try card.send(.makeCredential, makeCredentialParameters(rpId: Self.rpId, userId: [8], rk: false)).okBody()
            var uv = getAssertionParameters(rpId: Self.rpId, allow: try credential(from: made).id)
            uv[int: 5] = .map(["uv": true, "up": true])
            let answer = card.send(.getAssertion, uv)
            #expect(answer.status == (departs ? .ok : .invalidOption))
            if departs {
                let flags = try #require(answer.map[int: 2]?.bytesValue)[32]
                #expect(flags & 0x04 == 0, "no UV flag")
            }
            var rk = getAssertionParameters(rpId: Self.rpId, allow: try credential(from: made).id)
            rk[int: 5] = .map(["rk": false])
            #expect(card.send(.getAssertion, rk).status == (departs ? .invalidOption : .unsupportedOption))
        }
    }

    @Test("departure pinUvAuthParamWithoutProtocolInvalid: a discoverable makeCredential and an allow-listed getAssertion with a pinUvAuthParam and no protocol")
    func pinUvAuthParamWithoutProtocol() throws {
        let profile = try switched { $0.departures.pinUvAuthParamWithoutProtocolInvalid = true }
        var make = makeCredentialParameters(rpId: Self.rpId, userId: [10], rk: true)
        make[int: 8] = .bytes([UInt8](repeating: 0x11, count: 32))
        var get = getAssertionParameters(rpId: Self.rpId, allow: [UInt8](repeating: 4, count: 81))
        get[int: 6] = .bytes([UInt8](repeating: 0x22, count: 16))
        for (command, parameters) in [(CTAPCommand.makeCredential, make), (.getAssertion, get)] {
            #expect(try VirtualCard(profile: .default).send(command, parameters).status == .missingParameter)
            #expect(try VirtualCard(profile: profile).send(command, parameters).status == .pinAuthInvalid)
        }
    }
}
