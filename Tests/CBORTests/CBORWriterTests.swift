import CBOR
import Testing

/// The writer: a map written member by member is the encoder's map, whatever its size.
@Suite("CBORWriter")
struct CBORWriterTests {
    @Test("members written in canonical order are the tree's canonical encoding", arguments: [0, 1, 23, 24, 255, 256])
    func openMaps(count: Int) {
        var writer = CBORWriter()
        var map = writer.openMap()
        var tree = CBORMap()
        for key in 0..<count {
            writer.key(key, of: &map)
            writer.int(-key)
            tree[.int(key)] = .int(-key)
        }
        #expect(map.count == count)
        writer.close(map)
        #expect(writer.bytes == CBOREncoder.encode(.map(tree)))
    }

    @Test("text keys, nested maps, arrays and scalars")
    func nested() {
        var writer = CBORWriter(reservingCapacity: 4)
        var outer = writer.openMap()
        writer.key(1, of: &outer)
        var inner = writer.openMap()
        writer.key("id", of: &inner)
        writer.byteString([1, 2])
        writer.key("type", of: &inner)
        writer.text("public-key")
        writer.close(inner)
        writer.key(2, of: &outer)
        writer.arrayHead(count: 3)
        writer.bool(true)
        writer.unsigned(.max)
        writer.value(["b": 1, "a": 2])
        writer.close(outer)
        let tree: CBORValue = [1: ["id": .bytes([1, 2]), "type": "public-key"], 2: [true, .unsigned(.max), ["a": 2, "b": 1]]]
        #expect(writer.bytes == CBOREncoder.encode(tree))
    }

    @Test("bytes already encoded go in as they are")
    func appendEncoded() {
        var writer = CBORWriter()
        writer.appendEncoded([0x00])
        writer.byteString([UInt8]()[...])
        #expect(writer.bytes == [0x00, 0x40])
    }
}
