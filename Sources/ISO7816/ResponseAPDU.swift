import FIDOWire
/// A response APDU (ISO/IEC 7816-4 §5.1.3): response data followed by SW1 SW2.
public struct ResponseAPDU: Hashable, Sendable {
    /// The response data field (possibly empty).
    public var data: [UInt8]
    /// The trailing status word.
    public var statusWord: StatusWord

    /// A response with the given data and status word.
    public init(data: [UInt8] = [], statusWord: StatusWord) {
        self.data = data
        self.statusWord = statusWord
    }

    /// Splits raw response bytes; `nil` when there are fewer than the two status bytes.
    public init?(parsing bytes: some Collection<UInt8>) {
        let all = Array(bytes)
        guard all.count >= 2 else { return nil }
        data = Array(all.dropLast(2))
        statusWord = StatusWord(sw1: all[all.count - 2], sw2: all[all.count - 1])
    }

    /// The bytes as they travel: data then SW1 SW2.
    public var bytes: [UInt8] { data + statusWord.bytes }
}
