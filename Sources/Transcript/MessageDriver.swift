import ISO7816
import FIDOWire

/// Sends one logical message to a card the way the recorded host did, and follows the card's
/// answers the way a host must.
///
/// The request goes in the recorded pieces (same header, same chunk sizes, same Le); when a
/// replay changed the request (credential IDs substituted) it is cut at the recorded piece
/// size. After the last piece, while the card answers `61xx` the recorded GET RESPONSE is
/// sent (its class and Le), or one made from the card's SW2 when the recording has no more;
/// while it answers `9100` to an NFCCTAP message the recorded NFCCTAP_GETRESPONSE is sent
/// (poll or cancel), or a poll. So for a card that behaves like the recorded one the APDUs
/// are exactly the recorded ones, and for one that does not, the whole answer is still
/// collected for the report.
struct MessageDriver {
    /// The instruction that polls a CTAP message the card is still processing.
    private static let poll = FIDOInstruction.nfcctapGetResponse
    /// Upper bound on follow-up APDUs for one message, against a card that never finishes.
    static let maximumFollowUps = 256

    /// The APDUs sent and answered.
    static func send(_ message: TranscriptMessage, request: [UInt8]?, to card: any TranscriptCard) -> [TranscriptMessage.APDUExchange] {
        let recorded = message.exchanges
        if case .apdu = message.kind {
            return recorded.map { .init(command: $0.command, response: card.transmit($0.command)) }
        }
        let pieceCount = requestPieceCount(recorded)
        let recordedPieces = recorded.prefix(pieceCount).map(\.command)
        let pieces = request.map { rebuild(pieces: recordedPieces, data: $0) } ?? recordedPieces
        var followUps = Array(recorded.dropFirst(pieceCount).map(\.command))

        var sent: [TranscriptMessage.APDUExchange] = []
        var last: [UInt8] = []
        for (index, piece) in pieces.enumerated() {
            last = card.transmit(piece)
            sent.append(.init(command: piece, response: last))
            let isFinal = index == pieces.count - 1
            if !isFinal, statusWord(last) != .success { return sent }
        }
        let isCTAP: Bool = { if case .ctap2 = message.kind { return true }; return false }()
        var count = 0
        while count < maximumFollowUps, let word = statusWord(last) {
            let next: [UInt8]
            if word.isBytesRemaining {
                let recordedNext = followUps.first.flatMap { isGetResponse($0) ? $0 : nil }
                let cla = recorded.lazy.map(\.command).first(where: isGetResponse)?.first ?? FIDOInstruction.getResponse.commandClass
                next = recordedNext ?? [cla, FIDOInstruction.getResponse.rawValue, 0x00, 0x00, word.sw2]
            } else if word == .ctapStillProcessing, isCTAP {
                let recordedNext = followUps.first.flatMap { isPoll($0) ? $0 : nil }
                next = recordedNext ?? [Self.poll.commandClass, Self.poll.rawValue, 0x00, 0x00]
            } else {
                break
            }
            if !followUps.isEmpty { followUps.removeFirst() }
            last = card.transmit(next)
            sent.append(.init(command: next, response: last))
            count += 1
        }
        return sent
    }

    /// How many of the recorded APDUs carry the request: the chained pieces and the last one.
    static func requestPieceCount(_ exchanges: [TranscriptMessage.APDUExchange]) -> Int {
        var count = 0
        for exchange in exchanges {
            count += 1
            guard let command = try? CommandAPDU(parsing: exchange.command), command.isChained else { break }
        }
        return max(count, min(1, exchanges.count))
    }

    /// `data` cut into pieces like `pieces` (same header and Le; the recorded sizes while the
    /// data lasts, then the first piece's size).
    static func rebuild(pieces: [[UInt8]], data: [UInt8]) -> [[UInt8]] {
        let parsed = pieces.compactMap { try? CommandAPDU(parsing: $0) }
        guard parsed.count == pieces.count, let last = parsed.last else { return pieces }
        if parsed.map(\.data).reduce([], +) == data { return pieces }
        var sizes = parsed.map(\.data.count)
        let chunk = max(1, sizes.first ?? data.count)
        if sizes.reduce(0, +) != data.count {
            sizes = []
            var remaining = data.count
            while remaining > chunk {
                sizes.append(chunk)
                remaining -= chunk
            }
            sizes.append(remaining)
        }
        var result: [[UInt8]] = []
        var offset = 0
        for (index, size) in sizes.enumerated() {
            let isLast = index == sizes.count - 1
            var command = last
            command.cla = isLast ? last.commandClass : last.commandClass | CommandAPDU.chainingBit
            command.data = Array(data[offset..<offset + size])
            command.ne = isLast ? last.ne : 0
            command.isExtended = last.isExtended && sizes.count == 1
            result.append(command.encoded)
            offset += size
        }
        return result
    }

    private static func statusWord(_ response: [UInt8]) -> StatusWord? {
        ResponseAPDU(parsing: response)?.statusWord
    }

    private static func isGetResponse(_ command: [UInt8]) -> Bool {
        command.count >= 2 && command[1] == FIDOInstruction.getResponse.rawValue && command[0] & CommandAPDU.chainingBit == 0
    }

    private static func isPoll(_ command: [UInt8]) -> Bool {
        command.count >= 2 && command[0] == poll.commandClass && command[1] == poll.rawValue
    }
}
