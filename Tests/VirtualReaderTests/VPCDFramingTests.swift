import Testing
import VirtualReader

@Suite("vpcd framing")
struct VPCDFramingTests {
    /// A stream over fixed bytes that hands out at most `chunk` bytes per receive.
    final class Stream {
        var bytes: ArraySlice<UInt8>
        let chunk: Int
        var receives = 0
        init(_ bytes: [UInt8], chunk: Int) {
            self.bytes = bytes[...]
            self.chunk = chunk
        }
        func receive(_ max: Int) -> [UInt8] {
            receives += 1
            let count = Swift.min(max, chunk, bytes.count)
            defer { bytes = bytes.dropFirst(count) }
            return Array(bytes.prefix(count))
        }
    }

    @Test func frameAddsBigEndianLength() throws {
        #expect(try VPCDFraming.frame([0x04]) == [0x00, 0x01, 0x04])
        #expect(try VPCDFraming.frame([]) == [0x00, 0x00])
        let big = [UInt8](repeating: 7, count: 0x1234)
        #expect(try Array(VPCDFraming.frame(big).prefix(2)) == [0x12, 0x34])
        #expect(try VPCDFraming.frame([UInt8](repeating: 0, count: 65535)).count == 65537)
    }

    @Test func frameRejectsOversizePayload() {
        #expect(throws: VPCDFraming.Error.payloadTooLong(count: 65536)) {
            try VPCDFraming.frame([UInt8](repeating: 0, count: 65536))
        }
    }

    @Test(arguments: [1, 2, 3, 7, 1000])
    func readsWholeMessagesFromPartialReads(chunk: Int) throws {
        let first: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x08] + [UInt8](repeating: 0xA0, count: 8)
        let second = [UInt8](repeating: 0x55, count: 300)
        let stream = Stream(try VPCDFraming.frame(first) + VPCDFraming.frame([0x04]) + VPCDFraming.frame(second) + VPCDFraming.frame([]), chunk: chunk)
        #expect(try VPCDFraming.readMessage(stream.receive) == first)
        #expect(try VPCDFraming.readMessage(stream.receive) == [0x04])
        #expect(try VPCDFraming.readMessage(stream.receive) == second)
        #expect(try VPCDFraming.readMessage(stream.receive) == [])
        #expect(try VPCDFraming.readMessage(stream.receive) == nil)
    }

    @Test func oneByteAtATimeNeedsOneReceivePerByte() throws {
        let stream = Stream([0x00, 0x03, 0x01, 0x02, 0x03], chunk: 1)
        #expect(try VPCDFraming.readMessage(stream.receive) == [0x01, 0x02, 0x03])
        #expect(stream.receives == 5)
    }

    @Test func endInsideHeader() {
        let stream = Stream([0x00], chunk: 1)
        #expect(throws: VPCDFraming.Error.truncated(expected: 2, received: 1)) {
            try VPCDFraming.readMessage(stream.receive)
        }
    }

    @Test func endInsidePayload() {
        let stream = Stream([0x00, 0x05, 0x01, 0x02], chunk: 3)
        #expect(throws: VPCDFraming.Error.truncated(expected: 5, received: 2)) {
            try VPCDFraming.readMessage(stream.receive)
        }
    }
}

@Suite("vpcd endpoint")
struct VPCDEndpointTests {
    @Test(arguments: [
        ("127.0.0.1:35963", "127.0.0.1", 35963),
        ("localhost:35964", "localhost", 35964),
        ("localhost", "localhost", 35963),
        ("[::1]:35964", "::1", 35964),
        ("[::1]", "::1", 35963),
        ("::1", "::1", 35963),
    ] as [(String, String, Int)])
    func parses(text: String, host: String, port: Int) {
        let endpoint = VPCDEndpoint(parsing: text)
        #expect(endpoint?.host == host)
        #expect(endpoint.map { Int($0.port) } == port)
    }

    @Test(arguments: ["", ":35963", "host:", "host:0", "host:65536", "host:x", "[::1", "[::1]x", "[]:1"])
    func rejects(text: String) {
        #expect(VPCDEndpoint(parsing: text) == nil)
    }

    @Test func slots() {
        #expect(VPCDEndpoint.default.description == "127.0.0.1:35963")
        #expect(VPCDEndpoint.default.slot(1) == VPCDEndpoint(host: "127.0.0.1", port: 35964))
        #expect(VPCDEndpoint(host: "::1", port: 1).slot(0)?.description == "[::1]:35963")
        #expect(VPCDEndpoint.default.slot(-1) == nil)
        #expect(VPCDEndpoint.default.slot(40000) == nil)
    }
}
