import Glibc

/// Bytes as a dictionary key (a credential ID, an RP ID's UTF-8, an RP ID hash).
///
/// `[UInt8]`'s own hashing feeds the hasher one element at a time and its `==` compares element
/// by element, which for the 60–200-byte credential IDs of every getAssertion cost more than
/// the rest of the look-up (about 2,900 instructions per find). Here the hash covers the length
/// and at most the first ``hashedPrefix`` bytes, and equality is one `memcmp` of all of them:
/// the IDs the card makes start with a version byte and a 16-byte random IV, so their first 32
/// bytes spread as well as all of them; keys that share a longer prefix (an image's hand-made
/// IDs, RP IDs longer than 32 bytes alike at the start) only share a bucket, they are still
/// told apart by their bytes. Only IDs the card made or unwrapped (MAC checked) go in.
struct ByteKey: Hashable, Sendable {
    let bytes: [UInt8]

    /// How many leading bytes the hash covers.
    static let hashedPrefix = 32

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes.count)
        bytes.withUnsafeBytes { hasher.combine(bytes: UnsafeRawBufferPointer(rebasing: $0.prefix(Self.hashedPrefix))) }
    }

    static func == (lhs: ByteKey, rhs: ByteKey) -> Bool {
        guard lhs.bytes.count == rhs.bytes.count else { return false }
        return lhs.bytes.withUnsafeBytes { left in
            rhs.bytes.withUnsafeBytes { right in
                left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0
            }
        }
    }
}

extension ByteKey {
    /// Whether two strings have the same UTF-8 (RP IDs are told apart by their bytes; Swift's
    /// `==` would call `é` and `e` + U+0301 equal).
    static func sameUTF8(_ lhs: String, _ rhs: String) -> Bool {
        let left = lhs.utf8, right = rhs.utf8
        guard left.count == right.count else { return false }
        let fast = left.withContiguousStorageIfAvailable { l in
            right.withContiguousStorageIfAvailable { r in l.count == 0 || memcmp(l.baseAddress!, r.baseAddress!, l.count) == 0 }
        }
        return (fast ?? nil) ?? left.elementsEqual(right)
    }
}
