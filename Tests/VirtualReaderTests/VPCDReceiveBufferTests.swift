import Testing
import VirtualReader

@Suite("vpcd receive buffer")
struct VPCDReceiveBufferTests {
    /// Feeds `stream` to a buffer in pieces of at most `chunk` bytes, taking every whole message
    /// out after each piece; returns the messages and how many pieces it took.
    static func messages(of stream: [UInt8], chunk: Int) -> (messages: [VPCDReceiveBuffer.Message], fills: Int, empty: Bool) {
        var buffer = VPCDReceiveBuffer()
        var rest = stream[...]
        var messages: [VPCDReceiveBuffer.Message] = []
        var fills = 0
        while !rest.isEmpty {
            let count = buffer.fill { space in
                let count = min(chunk, rest.count, space.count)
                space.copyBytes(from: rest.prefix(count))
                return count
            }
            guard count > 0 else {
                Issue.record("no room to read into, \(rest.count) bytes to go")
                break
            }
            rest = rest.dropFirst(count)
            fills += 1
            while let message = buffer.nextMessage() { messages.append(message) }
        }
        return (messages, fills, buffer.isEmpty)
    }

    static let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x08] + [UInt8](repeating: 0xA0, count: 8)
    static let long = (0..<300).map { UInt8(truncatingIfNeeded: $0) }
    static let stream = try! VPCDFraming.frame([0x04]) + VPCDFraming.frame(select) + VPCDFraming.frame([])
        + VPCDFraming.frame([0x01]) + VPCDFraming.frame(long)
    static let expected: [VPCDReceiveBuffer.Message] = [.oneByte(0x04), .command(select), .command([]), .oneByte(0x01), .command(long)]

    @Test(arguments: [1, 2, 3, 5, 7, 64, 1000, 100_000])
    func wholeMessagesFromAnyPieces(chunk: Int) {
        let result = Self.messages(of: Self.stream, chunk: chunk)
        #expect(result.messages == Self.expected)
        #expect(result.empty)
    }

    /// The point of the buffer: everything the socket holds is one read, several messages too.
    @Test func oneReadForEverythingThere() {
        let result = Self.messages(of: Self.stream, chunk: 100_000)
        #expect(result.fills == 1)
    }

    @Test func everyPrefixButTheWholeLacksTheLastMessage() throws {
        let frame = try VPCDFraming.frame(Self.select)
        for cut in 0..<frame.count {
            var buffer = VPCDReceiveBuffer()
            _ = buffer.fill { space in
                space.copyBytes(from: frame.prefix(cut))
                return cut
            }
            #expect(!buffer.holdsWholeMessage, "a prefix of \(cut) bytes")
            #expect(buffer.nextMessage() == nil)
            #expect(buffer.isEmpty == (cut == 0))
        }
    }

    /// A partial message behind a whole one is moved to the front before the next read, so the
    /// largest frame still fits whole.
    @Test func largestFrameAfterAnotherMessage() throws {
        let largest = [UInt8](repeating: 0x5A, count: VPCDFraming.maximumPayload)
        let result = Self.messages(of: try VPCDFraming.frame([0x04]) + VPCDFraming.frame(largest), chunk: 40_000)
        #expect(result.messages.map(\.length) == [1, VPCDFraming.maximumPayload])
        #expect(result.messages.last == .command(largest), "the payload as sent (not shown: 65,535 bytes)")
        #expect(result.empty)
    }

    @Test func endOfStreamIsReportedAsIs() {
        var buffer = VPCDReceiveBuffer()
        #expect(buffer.fill { _ in 0 } == 0)
        #expect(buffer.fill { _ in -1 } == -1)
        #expect(buffer.isEmpty)
    }
}

extension VPCDReceiveBuffer.Message {
    /// The payload length, for messages too long to print.
    var length: Int {
        switch self {
        case .oneByte: 1
        case .command(let bytes): bytes.count
        }
    }
}
