/// Bytes as a dictionary key (a credential ID, an RP ID's UTF-8, an RP ID hash), hashed as one
/// run of bytes. `[UInt8]`'s own `hash(into:)` feeds the hasher one element at a time, which
/// for the 60–200-byte credential IDs of every getAssertion costs more than the rest of the
/// look-up (about 2,900 instructions per find, against some 500 this way).
struct ByteKey: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
