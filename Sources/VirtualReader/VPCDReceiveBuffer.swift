/// The bridge's receive side of vpcd's framing (``VPCDFraming``): bytes read from the driver's
/// stream in as few `recv` calls as the stream allows, handed out a whole message at a time.
///
/// One buffer lives as long as the bridge, so a message costs no allocation beyond its command
/// APDU (a one-byte message, the driver's usual get-ATR poll, costs none). A read takes whatever
/// the socket holds, so a header and its payload that are both there arrive in one call.
/// Public so that the `vpcd` fuzz target can read streams the way the bridge does.
public struct VPCDReceiveBuffer: Sendable {
    /// One message out of the stream.
    public enum Message: Equatable, Sendable {
        /// A one-byte message: a control code, or the one-byte APDU that looks like one.
        case oneByte(UInt8)
        /// Any other length, empty included: a command APDU.
        case command([UInt8])
    }

    /// Room for the largest frame: a two-byte length and 65,535 payload bytes.
    public static let capacity = 2 + VPCDFraming.maximumPayload

    private var storage = [UInt8](repeating: 0, count: VPCDReceiveBuffer.capacity)

    /// An empty buffer (64 KiB).
    public init() {}
    /// The bytes received and not yet handed out are `storage[start..<end]`.
    private var start = 0
    private var end = 0

    /// Whether no byte is buffered: a stream that ends now ended between two messages.
    public var isEmpty: Bool { start == end }

    /// Whether a whole message is buffered (``nextMessage()`` returns one).
    public var holdsWholeMessage: Bool {
        guard end - start >= 2 else { return false }
        return end - start >= 2 + payloadLength
    }

    /// The payload length the buffered header announces (at least two bytes are buffered).
    private var payloadLength: Int { Int(storage[start]) << 8 | Int(storage[start + 1]) }

    /// Removes and returns the next whole message; nil when more bytes are needed.
    public mutating func nextMessage() -> Message? {
        guard holdsWholeMessage else { return nil }
        let length = payloadLength
        let payloadStart = start + 2
        start = payloadStart + length
        defer { if start == end { (start, end) = (0, 0) } }
        if length == 1 { return .oneByte(storage[payloadStart]) }
        return .command(Array(storage[payloadStart..<start]))
    }

    /// Reads more of the stream: `read` is given the free space at the end of the buffer and
    /// returns what `recv(2)` would (the count it stored, 0 at the end of the stream, or -1).
    /// The partial message at the front is moved down first when the rest of it would not fit.
    public mutating func fill(_ read: (UnsafeMutableRawBufferPointer) -> Int) -> Int {
        if start > 0 {
            let buffered = end - start
            storage.withUnsafeMutableBytes { bytes in
                bytes.baseAddress!.copyMemory(from: bytes.baseAddress! + start, byteCount: buffered)
            }
            (start, end) = (0, buffered)
        }
        let count = storage.withUnsafeMutableBytes { bytes in
            read(UnsafeMutableRawBufferPointer(rebasing: bytes[end...]))
        }
        if count > 0 { end += count }
        return count
    }
}
