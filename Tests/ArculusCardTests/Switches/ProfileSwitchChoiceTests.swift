import ArculusCard
import CBOR
import CardCrypto
import FIDOWire
import Foundation
import Testing
import TestSupport

/// The CTAP choices and departures a second CTAP 2.1 card (a JavaCard applet) showed beside the
/// judging order: bytes after a command that takes none, the UV token subcommand, config's unknown
/// subcommand, how much the first part of a CTAP answer carries, a stray byte after the uvm
/// output, a chained fragment losing the large-blob write. Each is shown as a rule with requests
/// the battery does not send (other commands, values and shapes), and against a card without it.
@Suite("Profile switches: CTAP choices and departures of a JavaCard applet")
struct ProfileSwitchChoiceTests {
    static let rpId = "choices.example"

    @Test("parametersToNone ignore: authenticatorSelection with an array, getNextAssertion with a byte and authenticatorReset with a map run as without them; a default card answers INVALID_LENGTH to each")
    func parametersToNone() throws {
        let profile = try switched { $0.behaviour.parametersToNone = .ignore }
        for (candidate, selection, next, reset) in [
            (CardProfile.default, CTAPStatus.invalidLength, CTAPStatus.invalidLength, CTAPStatus.invalidLength),
            (profile, .ok, .notAllowed, .ok),
        ] {
            let card = try VirtualCard(profile: candidate)
            try PlatformPINOne.setPIN("4831", on: card)
            #expect(CTAPResponse(bytes: card.ctap2([CTAPCommand.selection.rawValue, 0x80])).status == selection)
            #expect(CTAPResponse(bytes: card.ctap2([CTAPCommand.getNextAssertion.rawValue, 0x00])).status == next)
            #expect(CTAPResponse(bytes: card.ctap2([CTAPCommand.reset.rawValue, 0xA1, 0x01, 0x02])).status == reset)
            #expect(card.pinState.isSet == (reset != .ok))
        }
    }

    @Test("uvTokenWithoutUV notAllowed: getPinUvAuthTokenUsingUvWithPermissions with protocol 2 for ga answers NOT_ALLOWED; getUVRetries stays INVALID_SUBCOMMAND; a default card answers INVALID_SUBCOMMAND")
    func uvToken() throws {
        let profile = try switched { $0.behaviour.uvTokenWithoutUV = .notAllowed }
        for (candidate, expected) in [(CardProfile.default, CTAPStatus.invalidSubcommand), (profile, .notAllowed)] {
            let card = try VirtualCard(profile: candidate)
            #expect(card.send(.clientPIN, [.int(1): 2, .int(2): 6, .int(9): 0x02, .int(10): .text(Self.rpId)]).status == expected)
            #expect(card.send(.clientPIN, [.int(1): 2, .int(2): 7]).status == .invalidSubcommand)
        }
    }

    @Test("configUnknownSubcommand invalidParameter: authenticatorConfig subCommand 5 and vendorPrototype answer INVALID_PARAMETER; the reference card answers INVALID_SUBCOMMAND")
    func configSubcommand() throws {
        let profile = try switched(.reference) { $0.behaviour.configUnknownSubcommand = .invalidParameter }
        for (candidate, expected) in [(CardProfile.reference, CTAPStatus.invalidSubcommand), (profile, .invalidParameter)] {
            let card = try VirtualCard(profile: candidate)
            #expect(card.send(.config, [.int(1): 5]).status == expected)
            #expect(card.send(.config, [.int(1): 0xFF, .int(2): .map([.int(1): 1])]).status == expected)
            // An offered subcommand still runs.
            #expect(card.send(.config, [.int(1): 2]).status == .ok)
        }
    }

    @Test("commandResponseChunk 200: makeCredential's first part carries 200 bytes, getInfo's responseChunk's, GET RESPONSE the rest; a default card cuts both at 256")
    func commandResponseChunk() throws {
        let profile = try switched(.reference) {
            $0.behaviour.commandResponseChunk = 200
            $0.behaviour.responseChunk = 230
        }
        for (candidate, command, info) in [(CardProfile.reference, 256, 256), (profile, 200, 230)] {
            let card = try selectedCard(candidate)
            let infoAnswer = card.transmit([0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x00])
            #expect(infoAnswer.count - 2 == info && infoAnswer[infoAnswer.count - 2] == 0x61)
            let request = [CTAPCommand.makeCredential.rawValue] + CBOREncoder.encode(.map(makeCredentialParameters(rpId: Self.rpId, userId: [2], rk: false)))
            let first = card.transmit([0x80, 0x10, 0x00, 0x00, UInt8(request.count)] + request + [0x00])
            #expect(first.count - 2 == command && first[first.count - 2] == 0x61 && first.first == CTAPStatus.ok.rawValue)
            // GET RESPONSE gives the rest: the whole answer is a makeCredential response.
            let rest = card.exchangeWhole([0x00, 0xC0, 0x00, 0x00, first[first.count - 1]])
            #expect(rest.sw == 0x9000)
            #expect(try CBORDecoder.decode(Array(first.dropLast(2).dropFirst()) + rest.data).mapValue?[int: 1] == .text("packed"))
        }
    }

    /// The bytes after the extensions map of a makeCredential answer's authData.
    static func afterExtensions(_ authData: [UInt8]) throws -> [UInt8] {
        let credentialLength = Int(authData[53]) << 8 | Int(authData[54])
        let key = try CBORDecoder.decodePrefix(authData[(55 + credentialLength)...])
        return Array(try CBORDecoder.decodePrefix(key.rest).rest)
    }

    @Test("departure uvmTrailingByte: a non-discoverable credential made with uvm alone has one 00 after its extensions; with credProtect alone none; the reference card never")
    func uvmTrailingByte() throws {
        let profile = try switched(.reference) { $0.departures.uvmTrailingByte = true }
        for (candidate, trailing) in [(CardProfile.reference, [UInt8]()), (profile, [0x00])] {
            let card = try VirtualCard(profile: candidate)
            var request = makeCredentialParameters(rpId: Self.rpId, userId: [4], rk: false)
            request[int: 6] = .map(["uvm": true])
            let withUVM = try #require(try card.send(.makeCredential, request).okBody()[int: 2]?.bytesValue)
            #expect(try Self.afterExtensions(withUVM) == trailing)
            request[int: 6] = .map(["credProtect": 2])
            let without = try #require(try card.send(.makeCredential, request).okBody()[int: 2]?.bytesValue)
            #expect(try Self.afterExtensions(without) == [])
        }
    }

    /// A largeBlobs set of `fragment` at `offset` (with `length` on the first), as NFCCTAP_MSG
    /// APDUs: one, or a chain of two pieces.
    static func setAPDUs(_ fragment: [UInt8], offset: Int, length: Int?, chained: Bool) -> [[UInt8]] {
        var parameters: CBORMap = [.int(2): .bytes(fragment), .int(3): .int(offset)]
        if let length { parameters[int: 4] = .int(length) }
        let message = [CTAPCommand.largeBlobs.rawValue] + CBOREncoder.encode(.map(parameters))
        guard chained else { return [[0x80, 0x10, 0x00, 0x00, UInt8(message.count)] + message + [0x00]] }
        let half = message.count / 2
        return [[0x90, 0x10, 0x00, 0x00, UInt8(half)] + message[..<half],
                [0x80, 0x10, 0x00, 0x00, UInt8(message.count - half)] + message[half...] + [0x00]]
    }

    @Test("departure chainEndsLargeBlobWrite: a second fragment sent as a chain answers INVALID_SEQ, one sent whole after a chained first continues the write; a default card takes both")
    func chainedFragment() throws {
        let profile = try switched { $0.departures.chainEndsLargeBlobWrite = true }
        // A serialized large-blob array: one byte string, then LEFT(SHA-256, 16).
        let array = CBOREncoder.encode(.array([.bytes([UInt8](repeating: 0x5A, count: 120))]))
        let blob = array + SHA256.hash(array).prefix(16)
        let (first, second) = (Array(blob[..<70]), Array(blob[70...]))
        for (candidate, chainedSecond) in [(CardProfile.default, CTAPStatus.ok), (profile, .invalidSequence)] {
            let card = try selectedCard(candidate)
            for apdu in Self.setAPDUs(first, offset: 0, length: blob.count, chained: false) { _ = card.exchangeWhole(apdu) }
            let answers = Self.setAPDUs(second, offset: first.count, length: nil, chained: true).map { card.exchangeWhole($0) }
            #expect(answers.last?.data == [chainedSecond.rawValue])
            // The first fragment chained, the second whole: the write goes on.
            var last: (data: [UInt8], sw: UInt16)?
            for apdu in Self.setAPDUs(first, offset: 0, length: blob.count, chained: true) { last = card.exchangeWhole(apdu) }
            #expect(last?.data == [CTAPStatus.ok.rawValue])
            let whole = Self.setAPDUs(second, offset: first.count, length: nil, chained: false).map { card.exchangeWhole($0) }
            #expect(whole.last?.data == [CTAPStatus.ok.rawValue])
        }
    }
}
