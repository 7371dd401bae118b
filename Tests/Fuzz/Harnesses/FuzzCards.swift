import ArculusCard
import CardCrypto

// The card states fuzz inputs start from. The first byte of a card or ctap2 input picks one
// (`FuzzBaseline(selector:)`), so the fuzzer explores a blank card, a card with a PIN and
// credentials, a card one wrong PIN from blocked, and the CTAP 2.0 + U2F model.

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

    init(selector: UInt8) { self = FuzzBaseline(rawValue: Int(selector & 0x03))! }

    var profile: CardProfile { self == .blank20 ? .arculusFIDO2 : .arculusFIDO21 }

    /// The card's non-volatile memory for this baseline, built once per process.
    var state: CardState { FuzzBaselineStates.shared.states[rawValue] }

    /// The attestation identity per profile, built once (parsing it per input would dominate).
    var attestation: AttestationIdentity { FuzzBaselineStates.shared.attestation[self == .blank20 ? 1 : 0] }
}

final class FuzzBaselineStates: @unchecked Sendable {
    static let shared = FuzzBaselineStates()

    let states: [CardState]
    let attestation: [AttestationIdentity]

    private init() {
        do {
            attestation = [try AttestationIdentity.emulator(for: .arculusFIDO21),
                           try AttestationIdentity.emulator(for: .arculusFIDO2)]
            let blank21 = try Self.blank(.arculusFIDO21)
            let populated = try Self.populated(attestation[0])
            var lastRetry = populated
            lastRetry.pinRetries = 1
            let blank20 = try Self.blank(.arculusFIDO2)
            states = [blank21, populated, lastRetry, blank20]
        } catch {
            fatalError("cannot build the fuzz baselines: \(error)")
        }
    }

    private static func blank(_ profile: CardProfile) throws -> CardState {
        let storage = InMemoryStorage()
        _ = try VirtualCard(profile: profile, storage: storage, entropy: .seeded(fuzzSeed))
        return storage.state!
    }

    private static func populated(_ attestation: AttestationIdentity) throws -> CardState {
        let storage = InMemoryStorage()
        let card = try VirtualCard(profile: .arculusFIDO21, storage: storage, entropy: .seeded(fuzzSeed))
        let platform = PlatformClient(send: card.ctap2)
        guard try platform.setPIN(fuzzPIN).isOK else { throw PlatformFailure("setPIN") }
        let token = try platform.token(fuzzPIN, protocol: 2, permissions: 0x07).get()
        for (rp, user) in [("example.com", [UInt8]([1])), ("example.com", [2]), ("other.example", [3])] {
            var request = PlatformClient.makeCredentialRequest(rpId: rp, userId: user, userName: "user\(user[0])", rk: true)
            if rp == "other.example" { request[int: 6] = .map(["credProtect": 3]) }
            // A fresh token per credential: makeCredential consumes the mc permission.
            let fresh = try platform.token(fuzzPIN, protocol: 2, permissions: 0x07).get()
            let hash = PlatformClient.clientDataHash("make")
            request[int: 8] = .bytes(fresh.authenticate(hash))
            request[int: 9] = 2
            guard platform.call(CTAPByte.makeCredential, request).isOK else { throw PlatformFailure("makeCredential \(rp)") }
        }
        _ = token
        return storage.state!
    }
}

/// The card's memory is within its invariants whatever the APDUs were.
func checkCardState(_ state: CardState, baseline: FuzzBaseline) {
    fuzzCheck((0...CardState.maximumPINRetries).contains(state.pinRetries), "PIN retries \(state.pinRetries)")
    fuzzCheck(state.residentCredentials.count <= baseline.profile.residentKeyCapacity,
              "\(state.residentCredentials.count) discoverable credentials, capacity \(baseline.profile.residentKeyCapacity)")
    fuzzCheck(state.signatureCounter >= baseline.state.signatureCounter, "the signature counter went backwards")
    fuzzCheck(Set(state.residentCredentials.map(\.id)).count == state.residentCredentials.count, "duplicate credential IDs")
    fuzzCheck(state.pinHash == nil || state.pinHash?.count == 16, "PIN hash of \(state.pinHash?.count ?? 0) bytes")
}
