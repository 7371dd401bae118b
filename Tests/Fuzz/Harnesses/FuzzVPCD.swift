import ArculusCard
import VirtualReader

// Target `vpcd`: the vpcd framing as the reader bridge sees a TCP stream, and what the bridge
// does with each message (control codes, APDUs to the card, the --verbose APDU trace).
//
// Input: a control byte, then the byte stream the driver would send. Control: bits 0-3 how the
// stream is cut into receive() chunks (1…16 bytes at a time), bits 4-7 the start state
// (`FuzzStartState`). The first message is also parsed as a `--vpcd` endpoint. Messages are
// read with `VPCDFraming.readMessage` and handled as `VPCDBridge.serve` does (the bridge has no
// entry point for one message without its socket, so the harness follows it): `00`/`01`/`02`
// power off/on/reset, `04` get ATR, another one-byte message `6700`, longer ones to the card
// (a copy of the baseline model, as in the card target). Every answer is framed and read back,
// and every exchange goes through the trace formatter (one input in four while fuzzing, every
// input in the corpus check).
//
// Properties: reading never traps; the messages read do not depend on how the stream was cut
// (compared with reading it all at once, and on one input in 16 one byte at a time); every frame
// reads back to its payload; an answer always fits a frame; the card's answers are response APDUs
// it can send (`checkResponseAPDU`); the card's memory keeps its invariants; the same stream
// gives the same answers twice (one input in 16).

@_cdecl("LLVMFuzzerInitialize")
public func fuzzVPCDInitialize(_ argc: UnsafeMutablePointer<Int32>?,
                               _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    fuzzBenchmarkIfAsked(fuzzVPCDTestOneInput)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVPCDTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzBytes(data, size)
    guard let control = input.first else { return 0 }
    let stream = Array(input.dropFirst())
    let chunk = Int(control & 0x0F) + 1

    let messages = readAll(stream, chunk: chunk)
    fuzzCheck(messages == readAll(stream, chunk: 1 << 17), "message boundaries depend on how the stream is cut")
    let sampled = shouldCheckDeterminism(input)
    // Byte by byte is the slowest reading (a call per byte): on the sampled inputs, and on those
    // whose control byte asks for it anyway (chunk 1).
    if sampled && chunk > 1 {
        fuzzCheck(messages == readAll(stream, chunk: 1), "message boundaries depend on how the stream is cut")
    }

    let formatting = shouldFormatTrace(input)
    let answers = serve(messages.messages, control: control, chunk: chunk, formatting: formatting)
    if sampled {
        fuzzCheck(serve(messages.messages, control: control, chunk: chunk, formatting: formatting) == answers, "the same stream gave different answers")
    }
    if let first = messages.messages.first {
        _ = VPCDEndpoint(parsing: String(decoding: first, as: UTF8.self))
    }
    return 0
}

/// The card on the virtual reader, as the bridge sees it.
private final class FuzzReaderCard: ReaderCard {
    var card: FuzzCard
    let atr: [UInt8]

    init(_ start: FuzzStart) {
        card = start.card
        atr = (try? card.model.authenticator.profile.atrBytes) ?? []
    }

    func powerOn() { card.powerOn() }
    func powerOff() { card.powerOff() }
    func reset() { card.powerCycle() }
    func transmit(_ apdu: [UInt8]) -> [UInt8] { card.transmit(apdu).response }
}

/// The messages handled as the bridge handles them; the answers sent back.
private func serve(_ messages: [[UInt8]], control: UInt8, chunk: Int, formatting: Bool) -> [[UInt8]] {
    let start = FuzzStarts.shared.start(FuzzStartState(selector: control >> 4))
    fuzzTrace("--- the input, from baseline \(start.card.state.profile.name)")
    let card = FuzzReaderCard(start)
    var formatter = APDUTraceFormatter()
    var answers: [[UInt8]] = []
    for message in messages {
        var answer: [UInt8]?
        if message.count == 1, let code = VPCDFraming.Control(rawValue: message[0]) {
            switch code {
            case .powerOff: card.powerOff(); formatter.reset()
            case .powerOn: card.powerOn(); formatter.reset()
            case .reset: card.reset(); formatter.reset()
            case .getATR: answer = card.atr
            }
        } else {
            var response = message.count <= 1 ? [0x67, 0x00] : card.transmit(message)
            if message.count > 1 { checkResponseAPDU(response, to: message) }
            if response.count > VPCDFraming.maximumPayload || response.count < 2 { response = [0x6F, 0x00] }
            if formatting { _ = formatter.lines(command: message, response: response) }
            answer = response
        }
        if let answer {
            do {
                let framed = try VPCDFraming.frame(answer)
                let back = readAll(framed, chunk: chunk)
                fuzzCheck(back.messages == [answer] && back.ended == .cleanly, "a frame does not read back to its payload")
            } catch {
                fuzzCheck(false, "an answer does not fit a frame: \(error)")
            }
            answers.append(answer)
        }
    }
    card.card.checkMemory()
    checkCardState(card.card.state, start: start.card.state)
    return answers
}

private struct ReadResult: Equatable {
    enum End: Equatable { case cleanly, truncated }
    var messages: [[UInt8]] = []
    var ended = End.cleanly
}

/// Every message in `stream`, received `chunk` bytes at a time at most.
private func readAll(_ stream: [UInt8], chunk: Int) -> ReadResult {
    var offset = 0
    var result = ReadResult()
    let receive: (Int) throws -> [UInt8] = { count in
        fuzzCheck(count > 0, "readMessage asked for \(count) bytes")
        let taken = Array(stream[offset..<min(stream.count, offset + min(count, chunk))])
        offset += taken.count
        return taken
    }
    while true {
        do {
            guard let message = try VPCDFraming.readMessage(receive) else { return result }
            fuzzCheck(message.count <= VPCDFraming.maximumPayload, "a \(message.count)-byte message")
            result.messages.append(message)
        } catch {
            result.ended = .truncated
            return result
        }
    }
}
