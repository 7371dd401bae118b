import Testing

@testable import CTAP2

/// Credential IDs and RP IDs as dictionary keys: hashed by their length and first 32 bytes,
/// told apart by all of them.
@Suite("byte keys")
struct ByteKeyTests {
    @Test("keys alike in their first 32 bytes are still different keys")
    func sharedPrefix() {
        let prefix = [UInt8](repeating: 0x01, count: 40)
        let keys = [prefix + [1], prefix + [2], prefix + [1, 0], prefix, [], [0], Array(prefix.prefix(32))].map(ByteKey.init)
        var table: [ByteKey: Int] = [:]
        for (position, key) in keys.enumerated() { table[key] = position }
        #expect(table.count == keys.count)
        for (position, key) in keys.enumerated() {
            #expect(table[ByteKey(key.bytes)] == position)
        }
        #expect(ByteKey(prefix + [1]) != ByteKey(prefix + [2]))
        #expect(ByteKey([]) == ByteKey([]))
    }

    @Test("RP IDs are the same only with the same UTF-8", arguments: [
        ("example.com", "example.com", true), ("example.com", "example.org", false), ("", "", true), ("a", "", false),
        ("caf\u{E9}", "cafe\u{301}", false), ("a-relying-party-id-longer-than-fifteen.example", "a-relying-party-id-longer-than-fifteen.example", true),
        ("a-relying-party-id-longer-than-fifteen.example", "a-relying-party-id-longer-than-fifteen.exampla", false),
    ])
    func sameUTF8(lhs: String, rhs: String, same: Bool) {
        #expect(ByteKey.sameUTF8(lhs, rhs) == same)
        #expect(ByteKey.sameUTF8(lhs, rhs) == (Array(lhs.utf8) == Array(rhs.utf8)))
    }
}
