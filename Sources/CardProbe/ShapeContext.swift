import CardCrypto

/// What keeping an answer's structure needs beyond the answer itself: the RP IDs the battery
/// uses (so an rpIdHash reads `sha256(arculus-card-probe.example)`, not 32 bytes) and the last
/// signature counter (so counters read as steps: a card's counter is its history, its step is
/// its behaviour).
final class ShapeContext {
    private var rpIDs: [[UInt8]: String] = [:]
    private var lastCounter: UInt32?

    init(rpIDs: [String]) {
        for rpID in rpIDs { self.rpIDs[SHA256.hash(Array(rpID.utf8))] = rpID }
    }

    /// `sha256(RP ID)` for a battery RP, else the byte string's type and length.
    func rpIDHash(_ bytes: [UInt8]) -> String {
        rpIDs[bytes].map { "sha256(\($0))" } ?? CBORShape.bytes(bytes.count)
    }

    /// A signature counter as the probe keeps it: `0` or `nonzero` for the first one seen, then
    /// the step from the previous one (`+1`, `+0`, `-3`).
    func counterStep(_ counter: UInt32) -> String {
        defer { lastCounter = counter }
        guard let last = lastCounter else { return counter == 0 ? "0" : "nonzero" }
        let step = Int64(counter) - Int64(last)
        return step >= 0 ? "+\(step)" : "\(step)"
    }
}
