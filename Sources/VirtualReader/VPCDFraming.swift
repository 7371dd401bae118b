/// The message framing of vsmartcard's vpcd driver: every message, in both directions, is a
/// two-byte big-endian length followed by that many payload bytes.
///
/// One-byte messages from the driver are control codes (``Control``); longer ones are
/// command APDUs. One `recv` may return part of a message, so reading loops until the whole
/// payload is there.
public enum VPCDFraming {
    /// The largest payload a frame can carry.
    public static let maximumPayload = 0xFFFF

    /// The driver's one-byte control messages.
    public enum Control: UInt8, Sendable {
        /// The reader cut the power (for our card: it left the field).
        case powerOff = 0x00
        /// The reader powered the card.
        case powerOn = 0x01
        /// The reader reset the card.
        case reset = 0x02
        /// The driver asks for the ATR (it polls this to learn whether a card is present).
        case getATR = 0x04
    }

    /// Why a frame could not be read or written.
    public enum Error: Swift.Error, Hashable, Sendable {
        /// The stream ended inside a frame.
        case truncated(expected: Int, received: Int)
        /// The payload is longer than a two-byte length can say.
        case payloadTooLong(count: Int)
    }

    /// The framed bytes of `payload`, ready to send in one write.
    public static func frame(_ payload: [UInt8]) throws(Error) -> [UInt8] {
        guard payload.count <= maximumPayload else { throw .payloadTooLong(count: payload.count) }
        return [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
    }

    /// Reads one whole message.
    ///
    /// - Parameter receive: returns at most the given number of bytes from the stream,
    ///   blocking until at least one is there; an empty result means end of stream.
    /// - Returns: the payload, or `nil` when the stream ended cleanly between messages.
    /// - Throws: ``Error/truncated(expected:received:)`` when it ended inside a message, or
    ///   whatever `receive` throws.
    public static func readMessage(_ receive: (Int) throws -> [UInt8]) throws -> [UInt8]? {
        var header: [UInt8] = []
        while header.count < 2 {
            let chunk = try receive(2 - header.count)
            if chunk.isEmpty {
                if header.isEmpty { return nil }
                throw Error.truncated(expected: 2, received: header.count)
            }
            header += chunk.prefix(2 - header.count)
        }
        let length = Int(header[0]) << 8 | Int(header[1])
        var payload: [UInt8] = []
        payload.reserveCapacity(length)
        while payload.count < length {
            let chunk = try receive(length - payload.count)
            if chunk.isEmpty { throw Error.truncated(expected: length, received: payload.count) }
            payload += chunk.prefix(length - payload.count)
        }
        return payload
    }
}
