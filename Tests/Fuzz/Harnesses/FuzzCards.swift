import ArculusCard
import CardCrypto
import TestSupport

// The card memories fuzz inputs start from, built once per process (`CardModel` and the platform's
// knowledge are values, copied for every input): a blank card, one with a PIN and credentials,
// one a wrong PIN from blocked, the CTAP 2.0 + U2F model. The start states (FuzzStarts.swift) are
// made from these. Key generation, certificate parsing, the attestation identity and the set-up
// flows happen here, never per input.

/// The entropy seed of every fuzzed card: same input, same responses.
let fuzzSeed: [UInt8] = Array("arculus fuzz seed".utf8)

/// The PIN of the baselines that have one.
let fuzzPIN = "1234"

enum FuzzBaseline: Int, CaseIterable {
    /// A blank FIDO 2.1 card.
    case blank21 = 0
    /// FIDO 2.1, PIN set, three discoverable credentials (two RPs, one credProtect 3).
    case populated21 = 1
    /// As `populated21`, with one PIN attempt left.
    case lastRetry21 = 2
    /// A blank CTAP 2.0 + U2F card.
    case blank20 = 3

    var profile: CardProfile { self == .blank20 ? .arculusFIDO2 : .arculusFIDO21 }
}

/// Where an input starts: the card, and what the platform knows of it (a PIN/UV session with
/// the card's key-agreement key for each protocol, the PIN, the credential IDs, maybe a token).
struct FuzzStart {
    var card: FuzzCard
    var platform: FuzzPlatform
}

final class FuzzBaselines: @unchecked Sendable {
    // Unchecked: immutable once built.
    static let shared = FuzzBaselines()

    private let starts: [FuzzStart]

    private init() {
        do {
            let identities = [try AttestationIdentity.emulator(for: .arculusFIDO21), try AttestationIdentity.emulator(for: .arculusFIDO2)]
            let blank21 = try Self.blank(.arculusFIDO21, identities[0])
            let populated = try Self.populated(blank21)
            var lastRetryState = populated.card.state
            lastRetryState.pinRetries = 1
            var lastRetry = try Self.start(.arculusFIDO21, state: lastRetryState, identities[0])
            lastRetry.platform.pin = fuzzPIN
            lastRetry.platform.credentialIDs = populated.platform.credentialIDs
            let blank20 = try Self.blank(.arculusFIDO2, identities[1])
            starts = [blank21, populated, lastRetry, blank20]
        } catch {
            fatalError("cannot build the fuzz baselines: \(error)")
        }
    }

    func start(_ baseline: FuzzBaseline) -> FuzzStart { starts[baseline.rawValue] }

    private static func blank(_ profile: CardProfile, _ identity: AttestationIdentity) throws -> FuzzStart {
        try start(profile, state: nil, identity)
    }

    private static func start(_ profile: CardProfile, state: CardState?, _ identity: AttestationIdentity) throws -> FuzzStart {
        let authenticator = try Authenticator(profile: profile, state: state, attestation: identity,
                                              entropy: .seeded(fuzzSeed), now: .origin)
        var start = FuzzStart(card: FuzzCard(authenticator: authenticator), platform: FuzzPlatform())
        start.platform.preferredProtocol = profile.pinUvAuthProtocols.first ?? 1
        start.platform.credentialIDs = authenticator.state.residentCredentials.map(\.id)
        learnKeyAgreement(&start, protocols: profile.pinUvAuthProtocols)
        return start
    }

    /// getKeyAgreement, so that the platform starts with a session (the card keeps its key).
    private static func learnKeyAgreement(_ start: inout FuzzStart, protocols: [Int]) {
        for pinProtocol in protocols.prefix(1) {
            let request = PlatformClient.request(CTAPByte.clientPIN, [.int(1): .int(pinProtocol), .int(2): 2])
            let response = start.card.ctap(request).response
            start.platform.observe(request: request, response: response, body: FuzzPlatform.map(response.dropFirst()))
        }
    }

    /// PIN set, three discoverable credentials (two RPs, one with credProtect 3).
    private static func populated(_ blank: FuzzStart) throws -> FuzzStart {
        let box = FuzzCardBox(blank.card)
        let platform = PlatformClient(send: { box.card.ctap($0).response })
        guard try platform.setPIN(fuzzPIN).isOK else { throw TestFailure("setPIN") }
        for (rp, user) in [("example.com", [UInt8]([1])), ("example.com", [2]), ("other.example", [3])] {
            var request = PlatformClient.makeCredentialRequest(rpId: rp, userId: user, userName: "user\(user[0])", rk: true)
            if rp == "other.example" { request[int: 6] = .map(["credProtect": 3]) }
            // A fresh token per credential: makeCredential consumes the mc permission.
            let token = try platform.token(fuzzPIN, protocol: 2, permissions: 0x07, rpId: rp).get()
            request[int: 8] = .bytes(token.authenticate(PlatformClient.clientDataHash("make")))
            request[int: 9] = 2
            guard platform.call(CTAPByte.makeCredential, request).isOK else { throw TestFailure("makeCredential \(rp)") }
        }
        // Stored as they are now, but from a fresh power-up: no token, no session left over.
        var start = try start(.arculusFIDO21, state: box.card.state, blank.card.model.authenticator.attestation)
        start.platform.pin = fuzzPIN
        return start
    }
}

/// A card a `PlatformClient` can drive (its `send` is a closure).
final class FuzzCardBox {
    var card: FuzzCard
    init(_ card: FuzzCard) { self.card = card }
}
