import ISO7816
import FIDOWire

/// Turns a transcript's APDUs into the logical exchanges a host sees (``TranscriptMessage``).
///
/// What is joined:
/// - command chaining (ISO 7816-4 §5.1.1.1): pieces with CLA bit `10` and the same class,
///   INS, P1 and P2, up to the piece without the bit; whatever chunk size the client used
///   (python-fido2 250 bytes, libfido2 240). A piece answered other than `9000` ends the
///   message there (the client gives up), with that status word;
/// - response chaining: `61xx` followed by GET RESPONSE (`00 C0` or `80 C0`);
/// - NFCCTAP polling: `9100` followed by NFCCTAP_GETRESPONSE (`80 11`, P1 `00` poll or `11`
///   cancel). The keepalive byte of each `9100` answer is dropped.
///
/// What is not joined becomes a one-APDU ``TranscriptMessage/Kind/apdu(command:)``: unknown
/// instructions, malformed APDUs, a GET RESPONSE with nothing to continue, the pieces of a
/// chain that another command or an event interrupted. Events end any open message (the card
/// forgets chains and pending responses at power-off) and stay in order. Nothing here throws:
/// a transcript of a misbehaving host is still a transcript; decoding the CBOR of a message
/// (``TranscriptMessage/requestCBOR()``) is where errors naming the line come from.
public enum TranscriptMessages {
    /// The logical messages of `transcript`, in order. Comments are skipped; a session marker
    /// (see ``Transcript/sessions``) ends any open message, as an event does.
    public static func messages(of transcript: Transcript) -> [TranscriptMessage] {
        var builder = Builder(transcript: transcript)
        for (index, entry) in transcript.entries.enumerated() {
            switch entry {
            case .comment(let text):
                // A new session's card has forgotten whatever the last one left open.
                if Transcript.sessionNumber(ofComment: text) != nil { builder.closeAll() }
            case .event(let event):
                builder.closeAll()
                builder.output.append(TranscriptMessage(kind: .event(event), response: [], statusWord: nil, exchanges: [],
                                                        entries: index..<index + 1, line: transcript.line(ofEntry: index)))
            case .exchange(let command, let response, _):
                builder.add(command: command, response: response, entry: index)
            }
        }
        builder.closeAll()
        return builder.output
    }

    /// What the next APDU may continue.
    private enum Awaiting {
        case getResponse
        case poll
    }

    /// A chain of command pieces being collected.
    private struct OpenChain {
        var header: (cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8)
        var data: [UInt8]
        var exchanges: [TranscriptMessage.APDUExchange]
        /// The transcript entry of each piece.
        var entryIndices: [Int]
        var firstEntry: Int { entryIndices[0] }

        func continues(_ command: CommandAPDU) -> Bool {
            command.commandClass == header.cla && command.ins == header.ins && command.p1 == header.p1 && command.p2 == header.p2
        }
    }

    private struct Builder {
        let transcript: Transcript
        var output: [TranscriptMessage] = []
        var chain: OpenChain?
        /// A message whose response is still being collected.
        var pending: (message: TranscriptMessage, awaiting: Awaiting)?

        init(transcript: Transcript) {
            self.transcript = transcript
        }

        mutating func add(command bytes: [UInt8], response: [UInt8], entry: Int) {
            let exchange = TranscriptMessage.APDUExchange(command: bytes, response: response)
            guard let command = try? CommandAPDU(parsing: bytes), let answer = ResponseAPDU(parsing: response) else {
                closeAll()
                emitRaw(exchange, entry: entry)
                return
            }
            let instruction = FIDOInstruction(commandClass: command.commandClass, ins: command.ins)

            if let (message, awaiting) = pending {
                let continues = !command.isChained && chain == nil && {
                    switch awaiting {
                    case .getResponse: return instruction == .getResponse
                    case .poll: return instruction == .nfcctapGetResponse
                    }
                }()
                if continues {
                    pending = nil
                    var message = message
                    message.exchanges.append(exchange)
                    message.entries = message.entries.lowerBound..<entry + 1
                    absorb(answer, into: message)
                    return
                }
                closePending()
            }

            if command.isChained {
                var open: OpenChain
                if let current = chain, current.continues(command) {
                    open = current
                    open.data += command.data
                    open.exchanges.append(exchange)
                    open.entryIndices.append(entry)
                } else {
                    closeChain()
                    open = OpenChain(header: (command.commandClass, command.ins, command.p1, command.p2), data: command.data,
                                     exchanges: [exchange], entryIndices: [entry])
                }
                if answer.statusWord == .success {
                    chain = open
                } else {
                    // The client stops chaining at the first piece the card refuses.
                    chain = nil
                    let message = makeMessage(instruction: instruction, header: open.header, data: open.data,
                                              exchanges: open.exchanges, firstEntry: open.firstEntry, lastEntry: entry)
                    absorb(answer, into: message)
                }
                return
            }

            var data = command.data
            var exchanges = [exchange]
            var firstEntry = entry
            if let open = chain {
                chain = nil
                if open.continues(command) {
                    data = open.data + command.data
                    exchanges = open.exchanges + [exchange]
                    firstEntry = open.firstEntry
                } else {
                    // A different command in the middle of a chain: the pieces stand alone.
                    for (piece, index) in zip(open.exchanges, open.entryIndices) { emitRaw(piece, entry: index) }
                }
            }
            let header = (command.commandClass, command.ins, command.p1, command.p2)
            let message = makeMessage(instruction: instruction, header: header, data: data, exchanges: exchanges,
                                      firstEntry: firstEntry, lastEntry: entry)
            absorb(answer, into: message)
        }

        /// A message for a whole command, before any response is absorbed.
        private func makeMessage(instruction: FIDOInstruction?, header: (cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8),
                                 data: [UInt8], exchanges: [TranscriptMessage.APDUExchange],
                                 firstEntry: Int, lastEntry: Int) -> TranscriptMessage {
            let kind: TranscriptMessage.Kind
            switch instruction {
            case .select: kind = .select(aid: data)
            case .nfcctapMessage: kind = .ctap2(request: data, p1: header.p1)
            case .u2fRegister, .u2fAuthenticate, .u2fVersion:
                kind = .u2f(instruction: instruction!, p1: header.p1, p2: header.p2, data: data)
            default:
                kind = .apdu(command: exchanges.last?.command ?? [])
            }
            return TranscriptMessage(kind: kind, response: [], statusWord: nil, exchanges: exchanges,
                                     entries: firstEntry..<lastEntry + 1, line: transcript.line(ofEntry: firstEntry))
        }

        /// Adds one response APDU to `message`; closes it unless the card said more follows.
        private mutating func absorb(_ answer: ResponseAPDU, into message: TranscriptMessage) {
            var message = message
            message.statusWord = answer.statusWord
            let isCTAP: Bool = { if case .ctap2 = message.kind { return true }; return false }()
            if answer.statusWord.isBytesRemaining, !isRaw(message) {
                message.response += answer.data
                message.isComplete = false
                pending = (message, .getResponse)
            } else if answer.statusWord == .ctapStillProcessing, isCTAP {
                // The data is the keepalive status, not part of the CTAP response.
                message.busyPolls += 1
                message.isComplete = false
                pending = (message, .poll)
            } else {
                message.response += answer.data
                message.isComplete = true
                output.append(message)
            }
        }

        private func isRaw(_ message: TranscriptMessage) -> Bool {
            if case .apdu = message.kind { return true }
            return false
        }

        private mutating func emitRaw(_ exchange: TranscriptMessage.APDUExchange, entry: Int) {
            let answer = ResponseAPDU(parsing: exchange.response)
            output.append(TranscriptMessage(kind: .apdu(command: exchange.command), response: answer?.data ?? exchange.response,
                                            statusWord: answer?.statusWord, exchanges: [exchange],
                                            entries: entry..<entry + 1, line: transcript.line(ofEntry: entry)))
        }

        private mutating func closePending() {
            if let (message, _) = pending {
                output.append(message)
                pending = nil
            }
        }

        private mutating func closeChain() {
            if let open = chain {
                for (piece, index) in zip(open.exchanges, open.entryIndices) { emitRaw(piece, entry: index) }
                chain = nil
            }
        }

        mutating func closeAll() {
            closePending()
            closeChain()
        }
    }
}
