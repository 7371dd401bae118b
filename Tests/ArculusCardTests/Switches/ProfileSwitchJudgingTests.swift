import ArculusCard
import CBOR
import CardCrypto
import FIDOWire
import Foundation
import Testing
import TestSupport

/// The judging order (behaviour.judging) and the codes per kind of fault, each shown as a rule:
/// requests with two faults (or one) the battery does not send, for every command the order
/// concerns, each also sent to a card that judges the whole body first, which answers as before.
@Suite("Profile switches: the judging order and the codes per kind of fault")
struct ProfileSwitchJudgingTests {
    static let rpId = "judging.example"

    /// The status `card` answers to `command` followed by `body` as sent.
    static func status(_ card: VirtualCard, _ command: CTAPCommand, _ body: [UInt8]) -> CTAPStatus? {
        CTAPResponse(bytes: card.ctap2([command.rawValue] + body)).status
    }

    /// A makeCredential request's parameters with `edit` applied, encoded.
    static func makeCredential(_ edit: (inout CBORMap) -> Void = { _ in }) -> [UInt8] {
        var parameters = makeCredentialParameters(rpId: rpId, userId: [7], rk: false)
        edit(&parameters)
        return CBOREncoder.encode(.map(parameters))
    }

    /// A getAssertion request's parameters with `edit` applied, encoded.
    static func getAssertion(_ edit: (inout CBORMap) -> Void = { _ in }) -> [UInt8] {
        var parameters: CBORMap = [.int(1): .text(rpId), .int(2): .bytes(SHA256.hash(Array("judging".utf8)))]
        edit(&parameters)
        return CBOREncoder.encode(.map(parameters))
    }

    static let positional = { () -> CardProfile in
        var profile = CardProfile.default
        profile.behaviour.judging = .positional
        return profile
    }()

    /// (command, body, whole-body answer, positional answer): each a request two orders answer apart.
    static let twoFaults: [(String, CTAPCommand, [UInt8], CTAPStatus, CTAPStatus)] = [
        ("makeCredential: a 31-byte clientDataHash, a user without id", .makeCredential, makeCredential {
            $0[int: 1] = .bytes([UInt8](repeating: 3, count: 31))
            $0[int: 3] = .map(["name": "judged"])
        }, .missingParameter, .cborUnexpectedType),
        ("makeCredential: a 100-byte user id, extensions as text", .makeCredential, makeCredential {
            $0[int: 3] = .map(["id": .bytes([UInt8](repeating: 4, count: 100))])
            $0[int: 6] = "credProtect"
        }, .cborUnexpectedType, .requestTooLarge),
        ("makeCredential: only RS256 on an ES256 card, options as text", .makeCredential, makeCredential {
            $0[int: 4] = .array([.map(["alg": -257, "type": "public-key"])])
            $0[int: 7] = "uv"
        }, .cborUnexpectedType, .unsupportedAlgorithm),
        ("makeCredential: an rp without id, pubKeyCredParams as a map", .makeCredential, makeCredential {
            $0[int: 2] = .map(["name": "Judging"])
            $0[int: 4] = .map(["alg": -7])
        }, .cborUnexpectedType, .invalidParameter),
        ("makeCredential: pinUvAuthParam (8) after pinUvAuthProtocol (9)", .makeCredential, reorderedTail(), .pinNotSet, .invalidCBOR),
        ("getAssertion: an allowList entry without id, then a junk pinUvAuthParam with protocol 1", .getAssertion, getAssertion {
            $0[int: 3] = .array([.map(["type": "public-key"])])
            $0[int: 6] = .bytes([UInt8](repeating: 9, count: 16))
            $0[int: 7] = 1
        }, .missingParameter, .invalidParameter),
        ("getAssertion: a 1-byte clientDataHash (no room for 32)", .getAssertion,
         CBOREncoder.encode(.map([.int(1): .text("a.b"), .int(2): .bytes([0])])), .noCredentials, .invalidCBOR),
        ("getAssertion: clientDataHash before rpId", .getAssertion,
         [0xA2, 0x02, 0x58, 0x20] + [UInt8](repeating: 5, count: 32) + [0x01, 0x63] + Array("a.b".utf8), .noCredentials, .missingParameter),
        ("clientPIN getKeyAgreement: subCommand before pinUvAuthProtocol", .clientPIN, [0xA2, 0x02, 0x02, 0x01, 0x01], .ok, .invalidCBOR),
        ("clientPIN: subCommand as bytes", .clientPIN, [0xA2, 0x01, 0x01, 0x02, 0x41, 0x01], .cborUnexpectedType, .invalidSubcommand),
        ("largeBlobs get with an unknown member 7", .largeBlobs, [0xA3, 0x01, 0x0A, 0x03, 0x00, 0x07, 0x00], .ok, .invalidParameter),
        ("largeBlobs get as text", .largeBlobs, [0xA2, 0x01, 0x61, 0x31, 0x03, 0x00], .cborUnexpectedType, .invalidParameter),
        ("getAssertion, valid but for two stray bytes after the map", .getAssertion, getAssertion() + [0xFF, 0x00], .invalidCBOR, .noCredentials),
    ]

    /// makeCredential whose last two members are pinUvAuthProtocol (9) then pinUvAuthParam (8).
    static func reorderedTail() -> [UInt8] {
        let parameters = makeCredentialParameters(rpId: rpId, userId: [7], rk: false)
        var body: [UInt8] = [0xA6]
        for (key, value) in parameters.entries { body += CBOREncoder.encode(key) + CBOREncoder.encode(value) }
        return body + [0x09, 0x01, 0x08, 0x50] + [UInt8](repeating: 1, count: 16)
    }

    @Test("judging positional: each request with two faults gets the code of the first member in key order; a whole-body card the code of its own order",
          arguments: twoFaults.indices)
    func positionalOrder(index: Int) throws {
        let (name, command, body, wholeBody, positional) = Self.twoFaults[index]
        #expect(Self.status(try VirtualCard(profile: .default), command, body) == wholeBody, "\(name)")
        #expect(Self.status(try VirtualCard(profile: Self.positional), command, body) == positional, "\(name)")
    }

    @Test("judging positional: every proper prefix of a valid request is refused with a CTAP error, never answered OK, and the whole request is taken; random bytes after a command get an answer")
    func positionalPrefixes() throws {
        let card = try VirtualCard(profile: Self.positional)
        let requests: [(CTAPCommand, [UInt8])] = [
            (.makeCredential, Self.makeCredential()), (.getAssertion, Self.getAssertion { $0[int: 5] = .map(["up": false]) }),
            (.clientPIN, CBOREncoder.encode(.map([.int(1): 1, .int(2): 2]))),
            (.largeBlobs, CBOREncoder.encode(.map([.int(1): 16, .int(3): 0]))),
        ]
        for (command, body) in requests {
            for length in 0..<body.count {
                let status = Self.status(card, command, Array(body[..<length]))
                #expect(status != nil && status != .ok, "\(command) cut to \(length) of \(body.count) bytes: \(status.map { "\($0)" } ?? "no answer")")
            }
            #expect(Self.status(card, command, body) == (command == .getAssertion ? .noCredentials : .ok))
        }
        var generator = SplitMix64(seed: 25)
        for _ in 0..<500 {
            let commands: [CTAPCommand] = [.makeCredential, .getAssertion, .clientPIN, .credentialManagement, .largeBlobs]
            let command = commands[Int(generator.next() % UInt64(commands.count))]
            let body = (0..<Int.random(in: 0...40, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            #expect(Self.status(card, command, [0xA0 | UInt8(body.count % 8)] + body) != nil)
        }
    }

    @Test("judging positional: a valid makeCredential followed by stray bytes makes a credential; credentialManagement with a PIN: a two-byte subCommand CBOR_UNEXPECTED_TYPE before the token, a one-byte one as on a whole-body card")
    func positionalReading() throws {
        let card = try VirtualCard(profile: Self.positional)
        let plain = try VirtualCard(profile: .default)
        #expect(Self.status(card, .makeCredential, Self.makeCredential() + [0x00, 0x00, 0x00]) == .ok)
        #expect(Self.status(plain, .makeCredential, Self.makeCredential() + [0x00]) == .invalidCBOR)
        try PlatformPINOne.setPIN("4831", on: card)
        try PlatformPINOne.setPIN("4831", on: plain)
        let junk: CBORValue = .bytes([UInt8](repeating: 0, count: 16))
        #expect(card.send(.credentialManagement, [.int(1): 0x20, .int(3): 1, .int(4): junk]).status == .cborUnexpectedType)
        #expect(plain.send(.credentialManagement, [.int(1): 0x20, .int(3): 1, .int(4): junk]).status != .cborUnexpectedType)
        let oneByte = plain.send(.credentialManagement, [.int(1): 0x10, .int(3): 1, .int(4): junk]).status
        #expect(card.send(.credentialManagement, [.int(1): 0x10, .int(3): 1, .int(4): junk]).status == oneByte)
    }

    @Test("judging positional on the reference card: authenticatorConfig's members in any order, an unknown one INVALID_PARAMETER; the whole-body card takes both")
    func positionalConfig() throws {
        let profile = try switched(.reference) { $0.behaviour.judging = .positional }
        for (candidate, unknown) in [(CardProfile.reference, CTAPStatus.ok), (profile, .invalidParameter)] {
            let card = try VirtualCard(profile: candidate)
            #expect(Self.status(card, .config, [0xA2, 0x01, 0x02, 0x09, 0x00]) == unknown)
            // toggleAlwaysUv with pinUvAuthProtocol (3) before subCommandParams (2).
            #expect(Self.status(card, .config, [0xA3, 0x01, 0x02, 0x03, 0x01, 0x02, 0xA0]) == .ok)
        }
    }

    @Test("parametersAbsent cborUnexpectedType, in either order: largeBlobs and authenticatorConfig alone answer CBOR_UNEXPECTED_TYPE, getInfo alone still answers; a default card INVALID_CBOR")
    func parametersAbsent() throws {
        for judging in CardBehaviour.JudgingOrder.allCases {
            let profile = try switched(.reference) {
                $0.behaviour.parametersAbsent = .cborUnexpectedType
                $0.behaviour.judging = judging
            }
            for (candidate, expected) in [(CardProfile.reference, CTAPStatus.invalidCBOR), (profile, .cborUnexpectedType)] {
                let card = try VirtualCard(profile: candidate)
                #expect(Self.status(card, .largeBlobs, []) == expected)
                #expect(Self.status(card, .config, []) == expected)
                #expect(Self.status(card, .getInfo, []) == .ok)
            }
        }
    }

    @Test("longMemberKey cborUnexpectedType, in either order: getPINRetries with member 0x20 answers CBOR_UNEXPECTED_TYPE, with member 0x17 the retries; a default card skips both")
    func longMemberKey() throws {
        for judging in CardBehaviour.JudgingOrder.allCases {
            let profile = try switched {
                $0.behaviour.longMemberKey = .cborUnexpectedType
                $0.behaviour.judging = judging
                $0.behaviour.pinRetriesWithoutPIN = .retries
            }
            for (candidate, long) in [(try switched { $0.behaviour.pinRetriesWithoutPIN = .retries }, CTAPStatus.ok), (profile, .cborUnexpectedType)] {
                let card = try VirtualCard(profile: candidate)
                #expect(card.send(.clientPIN, [.int(1): 1, .int(2): 1, .int(0x20): 0]).status == long)
                #expect(card.send(.clientPIN, [.int(1): 1, .int(2): 1, .int(0x17): 0]).status == .ok)
            }
        }
    }

    @Test("pinUvAuthProtocolCheck onSight, in either order: makeCredential with protocol 7 and no pinUvAuthParam, getAssertion with protocol as bytes, largeBlobs get with protocol 0 answer INVALID_PARAMETER; a default card judges them where used")
    func protocolOnSight() throws {
        for judging in CardBehaviour.JudgingOrder.allCases {
            let profile = try switched {
                $0.behaviour.pinUvAuthProtocolCheck = .onSight
                $0.behaviour.judging = judging
            }
            for (candidate, made, asserted, read) in [(CardProfile.default, CTAPStatus.ok, CTAPStatus.cborUnexpectedType, CTAPStatus.invalidParameter),
                                                      (profile, .invalidParameter, .invalidParameter, .invalidParameter)] {
                let card = try VirtualCard(profile: candidate)
                #expect(Self.status(card, .makeCredential, Self.makeCredential { $0[int: 9] = 7 }) == made)
                #expect(Self.status(card, .getAssertion, Self.getAssertion { $0[int: 7] = .bytes([1]) }) == asserted)
                #expect(Self.status(card, .largeBlobs, [0xA3, 0x01, 0x0A, 0x03, 0x00, 0x06, 0x00]) == read)
            }
        }
    }

    @Test("credentialManagementWithoutPIN puatRequired: getNextRP and a mistyped subCommand answer PUAT_REQUIRED without a PIN; with a PIN getNextRP answers NOT_ALLOWED as on a default card")
    func credentialManagementWithoutPIN() throws {
        let profile = try switched { $0.behaviour.credentialManagementWithoutPIN = .puatRequired }
        for (candidate, next, mistyped) in [(CardProfile.default, CTAPStatus.notAllowed, CTAPStatus.cborUnexpectedType),
                                            (profile, .puatRequired, .puatRequired)] {
            let card = try VirtualCard(profile: candidate)
            #expect(card.send(.credentialManagement, [.int(1): 3]).status == next)
            #expect(card.send(.credentialManagement, [.int(1): .bytes([1])]).status == mistyped)
            try PlatformPINOne.setPIN("4831", on: card)
            #expect(card.send(.credentialManagement, [.int(1): 3]).status == .notAllowed)
        }
    }
}
