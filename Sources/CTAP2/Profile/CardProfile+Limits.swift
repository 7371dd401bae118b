/// The range of every numeric profile field, in one table: ``validate()`` refuses a profile with a
/// value outside it (naming the field, the value and the range), and `pcsc capture-profile` clamps
/// what a card reports into it, saying so. A value outside these ranges is one the emulator cannot
/// serve: it would overflow arithmetic the card does for a request (a large-blob read at an offset
/// near maxMsgSize, a reset window in nanoseconds) or promise what the card does not keep.
extension CardProfile {
    /// One numeric field and the values the emulator serves for it.
    public struct NumericLimit: Sendable {
        /// The field's name in the profile JSON.
        public let field: String
        /// The values the emulator serves, for this profile (some bounds follow other fields).
        public let range: ClosedRange<Int>
        /// Why the range is what it is, for the message.
        public let why: String
        /// The field's value.
        let get: @Sendable (CardProfile) -> Int
        /// Sets the field.
        let set: @Sendable (inout CardProfile, Int) -> Void

        /// `maxMsgSize is 9223372036854775807, outside 1024...65535 (…)`.
        func refusal(_ value: Int) -> String {
            "\(field) is \(value), outside \(range.lowerBound)...\(range.upperBound) (\(why))"
        }
    }

    /// The longest credential ID the emulator can need to name: WebAuthn Level 2 §4 caps a
    /// credential ID at 1023 bytes.
    public static let longestCredentialID = 1023
    /// The shortest credential ID the emulator makes (a P-256 key wrapped with its flags).
    public static let shortestOwnCredentialID = 81
    /// The most bytes a credBlob may have: a non-discoverable credential ID carries it with a
    /// one-byte length.
    public static let longestCredBlob = 255
    /// The longest reset window, in seconds: a day.
    public static let longestResetWindowSeconds = 86_400.0

    /// The numeric fields and their ranges for this profile (a feature's limit is 0 when the
    /// profile lacks the feature).
    public var numericLimits: [NumericLimit] {
        func limit(_ field: String, _ range: ClosedRange<Int>, _ why: String,
                   _ keyPath: WritableKeyPath<CardProfile, Int> & Sendable) -> NumericLimit {
            NumericLimit(field: field, range: range, why: why, get: { $0[keyPath: keyPath] }, set: { $0[keyPath: keyPath] = $1 })
        }
        let maximumPIN = min(max(maxPINLength, 4), 63)
        return [
            limit("maxMsgSize", 1024...65535, "CTAP 2.1 §6.4 asks at least 1024; an extended APDU carries at most 65535 bytes",
                  \.maxMsgSize),
            limit("maxCredentialCountInList", 1...255, "at least one credential; at most 255", \.maxCredentialCountInList),
            limit("maxCredentialIdLength", Self.shortestOwnCredentialID...Self.longestCredentialID,
                  "the emulator's own credential IDs are \(Self.shortestOwnCredentialID) bytes or more; WebAuthn caps one at \(Self.longestCredentialID)",
                  \.maxCredentialIdLength),
            limit("firmwareVersion", 0...Int(UInt32.max), "an unsigned integer of 32 bits", \.firmwareVersion),
            limit("maxPINLength", 4...63, "CTAP 2.1's PIN is 4 to 63 code points", \.maxPINLength),
            limit("minPINLength", 4...maximumPIN, "CTAP 2.1's minimum is 4; no more than maxPINLength", \.minPINLength),
            limit("residentKeyCapacity", 0...1_000_000, "the emulator keeps at most a million discoverable credentials",
                  \.residentKeyCapacity),
            limit("maxRPIDsForSetMinPINLength", setMinPINLength ? 0...255 : 0...0,
                  setMinPINLength ? "at most 255" : "needs setMinPINLength", \.maxRPIDsForSetMinPINLength),
            limit("maxSerializedLargeBlobArray", largeBlobs ? 1024...1_048_576 : 0...0,
                  largeBlobs ? "CTAP 2.1 §6.10 asks at least 1024; the emulator keeps at most 1 MiB" : "needs largeBlobs",
                  \.maxSerializedLargeBlobArray),
            limit("maxCredBlobLength", offers(.credBlob) ? 32...Self.longestCredBlob : 0...0,
                  offers(.credBlob) ? "CTAP 2.1 §12.2 asks at least 32; a credential ID carries at most \(Self.longestCredBlob)"
                      : "needs the credBlob extension", \.maxCredBlobLength),
            limit("signatureCounterReservation", 1...1_000_000, "at least every assertion; at most a million ahead",
                  \.signatureCounterReservation),
        ]
    }

    /// Every numeric field within its range, and the reset window a number of seconds the card
    /// can count in nanoseconds.
    func validateLimits() throws(ProfileError) {
        for limit in numericLimits where !limit.range.contains(limit.get(self)) {
            throw .invalid(name, limit.refusal(limit.get(self)))
        }
        if let seconds = resetWindowSeconds, !(0...Self.longestResetWindowSeconds).contains(seconds) {
            throw .invalid(name, "resetWindowSeconds is \(seconds), outside 0...\(Int(Self.longestResetWindowSeconds)) "
                           + "(seconds after power-up, at most a day; delete the field to allow a reset at any time)")
        }
    }

    /// Brings every numeric field into its range and returns what it changed, one entry a field
    /// (`maxMsgSize: 9223372036854775807 (clamped to 65535: the emulator serves 1024...65535)`).
    public mutating func clampToLimits() -> [String] {
        var clamped: [String] = []
        for limit in numericLimits {
            let value = limit.get(self)
            guard !limit.range.contains(value) else { continue }
            let served = min(max(value, limit.range.lowerBound), limit.range.upperBound)
            limit.set(&self, served)
            clamped.append("\(limit.field): \(value) (clamped to \(served): the emulator serves "
                           + "\(limit.range.lowerBound)...\(limit.range.upperBound), \(limit.why))")
        }
        if let seconds = resetWindowSeconds, !(0...Self.longestResetWindowSeconds).contains(seconds) {
            let served = seconds.isNaN ? 0 : min(max(seconds, 0), Self.longestResetWindowSeconds)
            resetWindowSeconds = served
            clamped.append("resetWindowSeconds: \(seconds) (clamped to \(served): the emulator serves 0...\(Int(Self.longestResetWindowSeconds)))")
        }
        return clamped
    }
}
