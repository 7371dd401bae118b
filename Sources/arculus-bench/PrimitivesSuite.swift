import CardCrypto

/// The CardCrypto calls the card is built from, each alone (round-robin): context for the
/// bounds and for the profiling notes. No targets.
struct PrimitivesSuite {
    let plan: RoundPlan

    func run() throws -> [(name: String, rates: Samples)] {
        let key = try P256PrivateKey()
        let scalar = key.rawScalar
        let message = SecureRandom.bytes(69)
        let peer = try P256PrivateKey().publicKey
        let point = peer.x962
        let workloads = [
            Workload(name: "ECDSA P-256 sign, key already imported (signature(for:), 69 bytes)") {
                try timed { _ = try key.signature(for: message) }
            },
            Workload(name: "RFC 6979 deterministic sign (seeded cards, transcripts)") {
                try timed { _ = try key.deterministicSignature(for: message) }
            },
            Workload(name: "key generation (P256PrivateKey())") {
                try timed { _ = try P256PrivateKey() }
            },
            Workload(name: "private key import (P256PrivateKey(rawScalar:))") {
                try timed { _ = try P256PrivateKey(rawScalar: scalar) }
            },
            Workload(name: "public key import + check (P256PublicKey(x962:))") {
                try timed { _ = try P256PublicKey(x962: point) }
            },
            Workload(name: "ECDH with an imported peer (sharedSecret(with:))") {
                try timed { _ = try key.sharedSecret(with: peer) }
            },
        ]
        let samples = try plan.interleaved(workloads)
        return zip(workloads, samples).map { ($0.name, $1) }
    }
}
