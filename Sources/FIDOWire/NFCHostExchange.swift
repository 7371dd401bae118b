/// One exchange of ``NFCHostFraming`` in progress: a value that says what the host does next
/// (``next(at:)``) and takes the card's answers (``receive(_:)``), so that the same rules serve a
/// synchronous host, an asynchronous one, and a test that plays the card.
public struct NFCHostExchange: Sendable {
    /// What the host does next.
    public enum Step: Equatable, Sendable {
        /// Send this APDU, then call ``NFCHostExchange/receive(_:)`` with the answer.
        case send([UInt8])
        /// The card answered `9100` with this keepalive status (1 processing, 2 user presence
        /// needed); call ``NFCHostExchange/cancel()`` now to cancel the request.
        case keepalive(UInt8)
        /// Wait this long before the next poll.
        case pause(Duration)
        /// Done: what the card answered.
        case finished(NFCHostFraming.Answer)
    }

    /// What an APDU whose `61xx` is followed is for.
    private enum Purpose: Sendable {
        /// A plain command: `9100` is an answer like any other.
        case command
        /// The last piece of a message, or a poll: `9100` means poll again.
        case message
        /// The cancel of a request answered `9100`.
        case cancel
    }

    /// An APDU in flight whose `61xx` and `6Cxx` are followed.
    private struct Following: Sendable {
        var command: [UInt8]
        var purpose: Purpose
        var data: [UInt8] = []
        var getResponses = 0
        var corrected = false
    }

    private enum Phase: Sendable {
        /// Send the message's chained piece at this index (all but the last).
        case piece(Int)
        case following(Following)
        /// Tell the host the keepalive status of the `9100` just received.
        case keepalive(UInt8)
        /// Check the time, then pause.
        case pausing
        /// Send the poll.
        case polling
        case finished(NFCHostFraming.Answer)
    }

    private let framing: NFCHostFraming
    /// The message's APDUs (one, for a plain command).
    private let apdus: [[UInt8]]
    private var phase: Phase
    /// The status words of the chained pieces answered so far.
    private var pieces: [UInt16?] = []
    /// Whether a ``Step/send(_:)`` awaits its ``receive(_:)``.
    private var awaitingAnswer = false
    /// The last `9100` answer, kept for a time-out.
    private var stillProcessing: NFCHostFraming.Answer?
    private var pollingSince: ContinuousClock.Instant?
    private var pause: Duration

    init(framing: NFCHostFraming, apdu: [UInt8]) {
        self.framing = framing
        // A plain command has no pieces to keep (and costs no array to keep them in).
        apdus = []
        phase = .following(Following(command: apdu, purpose: .command))
        pause = framing.firstPollPause
    }

    init(framing: NFCHostFraming, pieces apdus: [[UInt8]]) {
        self.framing = framing
        self.apdus = apdus
        phase = apdus.count > 1 ? .piece(0) : .following(Following(command: apdus[0], purpose: .message))
        pause = framing.firstPollPause
    }

    /// What to do now; `now` is the host's clock, read only for the polling time limit.
    public mutating func next(at now: @autoclosure () -> ContinuousClock.Instant) -> Step {
        precondition(!awaitingAnswer, "NFCHostExchange.next before the answer to the APDU it asked for")
        switch phase {
        case .piece(let index):
            awaitingAnswer = true
            return .send(apdus[index])
        case .following(let following):
            awaitingAnswer = true
            return .send(following.command)
        case .keepalive(let status):
            phase = .pausing
            return .keepalive(status)
        case .pausing:
            let current = now()
            let start = pollingSince ?? current
            pollingSince = start
            guard start.duration(to: current) <= framing.pollingLimit else {
                // The phase follows a 9100, which is kept.
                var answer = stillProcessing ?? NFCHostFraming.Answer(data: [], statusWord: nil, pieces: pieces)
                answer.stop = .stillProcessing(framing.pollingLimit)
                phase = .finished(answer)
                return .finished(answer)
            }
            let waiting = pause
            pause = min(pause * 2, framing.longestPollPause)
            phase = .polling
            return .pause(waiting)
        case .polling:
            phase = .following(Following(command: NFCHostFraming.pollAPDU, purpose: .message))
            awaitingAnswer = true
            return .send(NFCHostFraming.pollAPDU)
        case .finished(let answer):
            return .finished(answer)
        }
    }

    /// The card's answer to the APDU of the last ``Step/send(_:)``.
    public mutating func receive(_ response: [UInt8]) {
        precondition(awaitingAnswer, "NFCHostExchange.receive without an APDU sent")
        awaitingAnswer = false
        switch phase {
        case .piece(let index):
            receivePiece(response, index: index)
        case .following(var following):
            // The phase lets go of the payload first, so that it is changed in place.
            phase = .polling
            receive(response, following: &following)
        case .keepalive, .pausing, .polling, .finished:
            preconditionFailure("NFCHostExchange.receive in a phase that sent nothing")
        }
    }

    /// Cancels the request the card answered `9100` (right after ``Step/keepalive(_:)``): the
    /// next step sends NFCCTAP_GETRESPONSE with P1 `11`, and its answer finishes the exchange.
    public mutating func cancel() {
        guard case .pausing = phase else { preconditionFailure("NFCHostExchange.cancel outside a keepalive") }
        phase = .following(Following(command: NFCHostFraming.cancelAPDU, purpose: .cancel))
    }

    private mutating func finish(_ answer: NFCHostFraming.Answer) {
        phase = .finished(answer)
    }

    private mutating func receivePiece(_ response: [UInt8], index: Int) {
        guard response.count >= 2 else {
            pieces.append(nil)
            return finish(.init(data: response, statusWord: nil, pieces: pieces,
                                stop: .tooShort(command: apdus[index], response: response)))
        }
        let word = UInt16(response[response.count - 2]) << 8 | UInt16(response[response.count - 1])
        pieces.append(word)
        guard word == StatusWord.success.rawValue else {
            return finish(.init(data: Array(response[..<(response.count - 2)]), statusWord: word, pieces: pieces, stop: .pieceRefused))
        }
        let next = index + 1
        phase = next < apdus.count - 1 ? .piece(next) : .following(Following(command: apdus[next], purpose: .message))
    }

    private mutating func receive(_ response: [UInt8], following: inout Following) {
        guard response.count >= 2 else {
            return finish(.init(data: following.data + response, statusWord: nil, pieces: pieces,
                                stop: .tooShort(command: following.command, response: response)))
        }
        let sw1 = response[response.count - 2]
        let sw2 = response[response.count - 1]
        let word = UInt16(sw1) << 8 | UInt16(sw2)
        if framing.correctsWrongLength && sw1 == 0x6C {
            // One correction is what ISO/IEC 7816-4 foresees; a card that asks again is broken.
            guard !following.corrected else {
                return finish(.init(data: following.data, statusWord: word, pieces: pieces,
                                    stop: .wrongLengthRepeated(command: following.command)))
            }
            guard let corrected = NFCHostFraming.settingLe(of: following.command, to: sw2 == 0 ? 256 : Int(sw2)) else {
                return finish(.init(data: following.data, statusWord: word, pieces: pieces,
                                    stop: .cannotCorrectLength(command: following.command)))
            }
            following.corrected = true
            following.command = corrected
            phase = .following(following)
            return
        }
        following.corrected = false
        // A slice, not `dropLast` (which `+=` would take as Sequence's, copying element by element).
        following.data += response[..<(response.count - 2)]
        if sw1 == 0x61 {
            guard following.getResponses < framing.maximumGetResponses else {
                return finish(.init(data: following.data, statusWord: word, pieces: pieces,
                                    stop: .tooManyGetResponses(framing.maximumGetResponses)))
            }
            following.getResponses += 1
            following.command = framing.getResponse(sw2)
            phase = .following(following)
            return
        }
        let answer = NFCHostFraming.Answer(data: following.data, statusWord: word, pieces: pieces)
        switch following.purpose {
        case .cancel:
            finish(.init(data: answer.data, statusWord: word, pieces: pieces, stop: .cancelled))
        case .message where word == StatusWord.ctapStillProcessing.rawValue:
            stillProcessing = answer
            phase = answer.data.first.map(Phase.keepalive) ?? .pausing
        case .command, .message:
            finish(answer)
        }
    }
}
