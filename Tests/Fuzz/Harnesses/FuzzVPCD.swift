import ArculusCard
import VirtualReader

// Target `vpcd`: the vpcd framing as the reader bridge sees a TCP stream, and what the bridge
// does with each message (control codes, APDUs to the card, the --verbose APDU trace).
//
// Input: one byte that sets how the stream is cut into receive() chunks, then the byte stream
// the driver would send. Messages are read with `VPCDFraming.readMessage` from a receive that
// returns at most `chunk` bytes at a time, and handled as `VPCDBridge.serve` does: `00`/`01`/`02`
// power off/on/reset, `04` get ATR, another one-byte message `6700`, longer ones to the card.
// Every answer is framed and read back, and every exchange goes through the trace formatter.
//
// Properties: reading never traps; the messages read do not depend on how the stream was cut
// (compared with reading it one byte at a time… and all at once); every frame reads back to its
// payload; an answer always fits a frame.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzVPCDTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzBytes(data, size)
    guard let control = input.first else { return 0 }
    let stream = Array(input.dropFirst())
    let chunk = Int(control & 0x0F) + 1

    let messages = readAll(stream, chunk: chunk)
    fuzzCheck(messages == readAll(stream, chunk: 1), "message boundaries depend on how the stream is cut")
    fuzzCheck(messages == readAll(stream, chunk: 1 << 17), "message boundaries depend on how the stream is cut")

    let card: VirtualCard
    do {
        card = try VirtualCard(profile: control & 0x10 != 0 ? .arculusFIDO2 : .arculusFIDO21, storage: InMemoryStorage(),
                               entropy: .seeded(fuzzSeed))
    } catch {
        fatalError("cannot make the fuzz card: \(error)")
    }
    var formatter = APDUTraceFormatter()
    for message in messages.messages {
        var answer: [UInt8]?
        if message.count == 1, let code = VPCDFraming.Control(rawValue: message[0]) {
            switch code {
            case .powerOff: card.powerOff(); formatter.reset()
            case .powerOn: card.powerOn(); formatter.reset()
            case .reset: card.powerCycle(); formatter.reset()
            case .getATR: answer = card.atr
            }
        } else {
            var response = message.count <= 1 ? [0x67, 0x00] : card.transmit(message)
            if response.count > VPCDFraming.maximumPayload || response.count < 2 { response = [0x6F, 0x00] }
            _ = formatter.lines(command: message, response: response)
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
        }
    }
    if control & 0x20 != 0, let first = messages.messages.first {
        _ = VPCDEndpoint(parsing: String(decoding: first, as: UTF8.self))
    }
    return 0
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
