import ArculusCard
import CardCrypto
import FIDOWire

/// One in-process operation: how to run it on a card, and the bound it cannot beat.
struct OperationSpec {
    let name: String
    /// What the bound contains, exactly.
    let boundDescription: String?
    /// The bound, measured with OpenSSL directly through CardCrypto.
    let bound: Workload?
    /// Journal appends (each fdatasync'ed) the operation makes on an image-file card.
    let journalWrites: Int
    /// Target on the cards in memory: ops/s ≥ this × the bound's ops/s (nil: the ratio is shown,
    /// no target).
    let boundTarget: Double?
    /// Target on the image-file cards against their bound (cryptography + the flushes).
    var fileBoundTarget: Double? = nil
    /// Target on the image-file cards against the same card in memory: ops/s ≥ this × memory's.
    var fileVsMemoryTarget: Double? = nil

    /// The bound target of a row with `storage`.
    func boundTarget(for storage: BenchCard.Storage) -> Double? {
        storage == .memory ? boundTarget : fileBoundTarget
    }

    /// Untimed preparation of a card before the operation's rounds (e.g. setting the PIN).
    var prepare: ((BenchCard) throws -> Void)? = nil
    /// The step on one card.
    let step: (BenchCard) throws -> () throws -> UInt64
}

/// The measured rounds of one operation on every card, with its bounds, measured round-robin.
struct OperationResult {
    let spec: OperationSpec
    /// Bound ops/s per round (cryptography only).
    let crypto: Samples?
    /// Journal append + fdatasync per second, per round (nil for an operation that writes nothing).
    let fsync: Samples?
    /// Ops/s per round on each card.
    let cards: [(size: BenchCard.Size, storage: BenchCard.Storage, rates: Samples)]

    func rates(_ size: BenchCard.Size, _ storage: BenchCard.Storage) -> Samples? {
        cards.first { $0.size == size && $0.storage == storage }?.rates
    }

    /// The bound of a row, per round: the cryptography alone in memory; on an image file, the
    /// cryptography plus `journalWrites` appends + fdatasync (times add up).
    func bound(for storage: BenchCard.Storage) -> Samples? {
        guard let crypto else { return nil }
        guard storage == .file, spec.journalWrites > 0, let fsync else { return crypto }
        let writes = Double(spec.journalWrites)
        return crypto.pairwise(fsync) { 1 / (1 / $0 + writes / $1) }
    }
}

/// The in-process rows: every operation on the four cards (near-empty / 10k × memory / file).
struct InProcessSuite {
    let plan: RoundPlan
    let cards: [BenchCard]
    let probe: JournalAppendProbe
    let progress: (String) -> Void
    /// Only operations whose name contains this (the others still prepare their cards).
    var only: String? = nil

    func run() throws -> [OperationResult] {
        var results: [OperationResult] = []
        for spec in try Self.operations() {
            if let only, !spec.name.contains(only) {
                for card in cards { try spec.prepare?(card) }
                continue
            }
            progress("  \(spec.name)")
            for card in cards { try spec.prepare?(card) }
            var workloads: [Workload] = []
            if let bound = spec.bound { workloads.append(bound) }
            if spec.journalWrites > 0 { workloads.append(Workload(name: "fdatasync", step: probe.step)) }
            for card in cards { workloads.append(Workload(name: card.label, step: try spec.step(card))) }
            var samples = try plan.interleaved(workloads)
            let crypto = spec.bound == nil ? nil : samples.removeFirst()
            let fsync = spec.journalWrites > 0 ? samples.removeFirst() : nil
            results.append(OperationResult(
                spec: spec, crypto: crypto, fsync: fsync,
                cards: zip(cards, samples).map { ($0.size, $0.storage, $1) }))
        }
        return results
    }

    // MARK: - The operations

    /// In the order they run: the discoverable makeCredential adds credentials, so it comes
    /// after the rows that should see the card as built; the PIN rows set the PIN first.
    static func operations() throws -> [OperationSpec] {
        let signBound = try Bounds.signature(messageLength: 37 + 32)
        let assertionBoundText = "1 ECDSA P-256 signature (SHA-256 + sign of authData‖clientDataHash, 69 bytes)"
        let u2fBoundText = "1 ECDSA P-256 signature (SHA-256 + sign of 69 bytes)"
        return [
            OperationSpec(name: "getInfo", boundDescription: nil, bound: nil, journalWrites: 0, boundTarget: nil) { card in
                { try Self.expectOK(timedCTAP(card, Platform.getInfo), "getInfo") }
            },
            OperationSpec(name: "getInfo as APDUs (NFCCTAP_MSG via VirtualCard.transmit)", boundDescription: nil, bound: nil,
                          journalWrites: 0, boundTarget: nil) { card in
                try Self.apduStep(card, try Platform.nfcctapMessage(Platform.getInfo))
            },
            OperationSpec(name: "getAssertion (allowList of 1, no PIN)", boundDescription: assertionBoundText,
                          bound: signBound, journalWrites: 1, boundTarget: 0.9, fileVsMemoryTarget: 0.8) { card in
                let request = Platform.getAssertion(clientDataHash: SecureRandom.bytes(32), credentialId: card.credentialId)
                return { try Self.expectOK(timedCTAP(card, request), "getAssertion") }
            },
            OperationSpec(name: "getAssertion as APDUs (NFCCTAP_MSG via VirtualCard.transmit)",
                          boundDescription: assertionBoundText, bound: signBound, journalWrites: 1, boundTarget: nil) { card in
                try Self.apduStep(card, try Platform.nfcctapMessage(
                    Platform.getAssertion(clientDataHash: SecureRandom.bytes(32), credentialId: card.credentialId)))
            },
            // No target and no durability rows: a diagnostic for the pcscd getAssertion row.
            OperationSpec(name: Self.coldAssertionName, boundDescription: assertionBoundText, bound: signBound,
                          journalWrites: 0, boundTarget: nil) { card in
                let step = try Self.apduStep(card, try Platform.nfcctapMessage(
                    Platform.getAssertion(clientDataHash: SecureRandom.bytes(32), credentialId: card.credentialId)))
                let sweep = CacheSweep(bytes: 32 << 20)
                return {
                    sweep.run()
                    return try step()
                }
            },
            OperationSpec(name: "U2F authenticate (check user presence + sign)", boundDescription: u2fBoundText,
                          bound: signBound, journalWrites: 1, boundTarget: nil) { card in
                let application = SHA256.hash(Array(Platform.rpId.utf8))
                let challenge = SecureRandom.bytes(32)
                let virtualCard = card.card
                return {
                    var result = U2FResult.wrongData
                    let elapsed = timed {
                        result = virtualCard.u2fAuthenticate(control: 0x03, challenge: challenge,
                                                               application: application, keyHandle: card.u2fKeyHandle)
                    }
                    guard case .success = result else { throw BenchError("U2F authenticate answered \(result)") }
                    return elapsed
                }
            },
            OperationSpec(name: "makeCredential, non-discoverable (packed)",
                          boundDescription: Bounds.makeCredentialText, bound: try Bounds.makeCredential(),
                          journalWrites: 1, boundTarget: 0.6, fileBoundTarget: 0.6) { card in
                let request = Platform.makeCredential(clientDataHash: SecureRandom.bytes(32), userId: SecureRandom.bytes(16),
                                                      discoverable: false)
                return { try Self.expectOK(timedCTAP(card, request), "makeCredential") }
            },
            OperationSpec(name: "makeCredential, discoverable (packed; a new user each time)",
                          boundDescription: Bounds.makeCredentialText, bound: try Bounds.makeCredential(),
                          journalWrites: 1, boundTarget: 0.6, fileBoundTarget: 0.6) { card in
                var index = 0
                let clientDataHash = SecureRandom.bytes(32)
                return {
                    index += 1
                    let request = Platform.makeCredential(rpId: BenchCard.rpId(index), clientDataHash: clientDataHash,
                                                          userId: SecureRandom.bytes(16), discoverable: true)
                    return try Self.expectOK(timedCTAP(card, request), "makeCredential (rk)")
                }
            },
            OperationSpec(name: "getPinUvAuthToken (protocol 2, permissions mc|ga)",
                          boundDescription: Bounds.tokenText, bound: try Bounds.token(), journalWrites: 2, boundTarget: nil,
                          prepare: { try $0.setPIN() }) { card in
                guard let session = card.pinSession else { throw BenchError("no PIN session") }
                let request = try session.getPinUvAuthToken(Platform.pin)
                return { try Self.expectOK(timedCTAP(card, request), "getPinUvAuthToken") }
            },
            OperationSpec(name: "getAssertion with a pinUvAuthToken (token fetched untimed)",
                          boundDescription: assertionBoundText, bound: signBound, journalWrites: 1, boundTarget: nil) { card in
                guard let session = card.pinSession else { throw BenchError("no PIN session") }
                let tokenRequest = try session.getPinUvAuthToken(Platform.pin)
                let clientDataHash = SecureRandom.bytes(32)
                return {
                    // CTAP 2.1: an assertion with user presence uses the token up, so each one
                    // needs a fresh token; fetching it is the previous row's operation.
                    let token = try session.token(from: card.card.ctap2(tokenRequest))
                    let request = Platform.getAssertion(
                        clientDataHash: clientDataHash, credentialId: card.credentialId,
                        pinUvAuthParam: HMACSHA256.authenticate(key: token, data: clientDataHash))
                    return try Self.expectOK(timedCTAP(card, request), "getAssertion (token)")
                }
            },
        ]
    }

    /// The getAssertion APDU row with every cache emptied before each operation (untimed): what
    /// the card costs when it wakes for an APDU after pcscd, the client and the kernel ran, as
    /// through pcscd (compare the pcscd getAssertion row's serve − responder).
    static let coldAssertionName = "getAssertion as APDUs, caches cold (32 MiB read between operations, untimed)"

    /// The step of an APDU row: `apdu` through `VirtualCard.transmit` (SELECT once first),
    /// following 61xx; it must answer CTAP success + 9000.
    static func apduStep(_ card: BenchCard, _ apdu: [UInt8]) throws -> () throws -> UInt64 {
        guard card.card.transmit(Platform.select).suffix(2) == [0x90, 0x00] else { throw BenchError("SELECT failed") }
        return {
            var response: [UInt8] = []
            let elapsed = timed { response = Platform.transmitFollowingChain(card.card, apdu) }
            guard response.count > 2, response.first == 0x00, response.suffix(2) == [0x90, 0x00] else {
                throw BenchError("APDU \(Array(apdu.prefix(6)).hexString)… answered \(response.suffix(2).hexString)")
            }
            return elapsed
        }
    }

    /// Times one raw CTAP2 request; returns the elapsed time and the response.
    static func timedCTAP(_ card: BenchCard, _ request: [UInt8]) -> (UInt64, [UInt8]) {
        var response: [UInt8] = []
        let elapsed = timed { response = card.card.ctap2(request) }
        return (elapsed, response)
    }

    static func expectOK(_ result: (UInt64, [UInt8]), _ what: String) throws -> UInt64 {
        guard result.1.first == 0x00 else {
            throw BenchError("\(what) answered CTAP status 0x\(String(result.1.first ?? 0xFF, radix: 16))")
        }
        return result.0
    }
}

/// The bounds: the cryptography an operation cannot avoid, with OpenSSL directly (CardCrypto).
enum Bounds {
    /// One ECDSA P-256 signature over `messageLength` bytes (SHA-256 included) with a key
    /// imported once.
    static func signature(messageLength: Int) throws -> Workload {
        let key = try P256PrivateKey()
        let message = SecureRandom.bytes(messageLength)
        return Workload(name: "ECDSA sign") { try timed { _ = try key.signature(for: message) } }
    }

    static let makeCredentialText =
        "credential key generation (P256PrivateKey(): EVP_PKEY_generate + scalar/point export) + 1 ECDSA P-256 attestation signature over authData‖clientDataHash (245 bytes)"

    /// makeCredential: a fresh credential key pair, and the packed attestation signature with a
    /// key imported once (the batch key).
    static func makeCredential() throws -> Workload {
        let attestationKey = try P256PrivateKey()
        let message = SecureRandom.bytes(213 + 32)
        return Workload(name: "keygen + sign") {
            try timed {
                let credentialKey = try P256PrivateKey()
                _ = credentialKey.publicKey
                _ = try attestationKey.signature(for: message)
            }
        }
    }

    static let tokenText =
        "platform key check (P256PublicKey(x:y:)) + 1 ECDH P-256; no key generation: CTAP 2.1 renews the key-agreement key only at power-up and after a wrong PIN"

    /// getPinUvAuthToken: the card validates the platform's key and derives the shared secret.
    static func token() throws -> Workload {
        let cardKey = try P256PrivateKey()
        let platformKey = try P256PrivateKey().publicKey
        let x = platformKey.x, y = platformKey.y
        return Workload(name: "ECDH") {
            try timed {
                let peer = try P256PublicKey(x: x, y: y)
                _ = try cardKey.sharedSecret(with: peer)
            }
        }
    }
}

/// Reads a buffer larger than the caches, to start the next operation with them cold.
final class CacheSweep {
    private var buffer: [UInt8]
    private var sink: UInt8 = 0

    init(bytes: Int) {
        buffer = [UInt8](repeating: 1, count: bytes)
    }

    /// Touches every cache line of the buffer (a read and a write, so no line stays clean).
    func run() {
        buffer.withUnsafeMutableBufferPointer { lines in
            var index = 0
            while index < lines.count {
                sink &+= lines[index]
                lines[index] = sink
                index += 64
            }
        }
    }
}
