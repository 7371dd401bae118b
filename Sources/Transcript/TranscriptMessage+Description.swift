import CBOR
import CTAP2
import FIDOWire

extension TranscriptMessage {
    /// The message for people: its line and name, the request (CBOR in diagnostic notation
    /// for CTAP2), then `→` and the response (status word, CTAP status, CBOR). Byte strings
    /// longer than `maximumBytes` are abbreviated (pass `Int.max` for everything).
    public func describe(maximumBytes: Int = CBORRendering.maximumBytes) -> [String] {
        let render = { (value: CBORValue) in CBORRendering.render(value, maximumBytes: maximumBytes) }
        let bytes = { (value: [UInt8]) in render(.bytes(value)) }
        let prefix = "line \(line)".padding(toLength: 10, withPad: " ", startingAt: 0)
        let indent = String(repeating: " ", count: 12)
        var framing: [String] = []
        let pieces = MessageDriver.requestPieceCount(exchanges)
        if pieces > 1 { framing.append("\(pieces) chained pieces") }
        if exchanges.count > pieces { framing.append("\(exchanges.count - pieces) follow-up APDUs") }
        if busyPolls > 0 { framing.append("\(busyPolls)× 9100") }
        if !isComplete { framing.append("unfinished") }
        let framingText = framing.isEmpty ? "" : "  (\(framing.joined(separator: ", ")))"
        let word = statusWord.map { "\($0)" } ?? "----"

        switch kind {
        case .event(let event):
            return ["\(prefix)! \(event.rawValue)"]
        case .select(let aid):
            let answer = response.isEmpty ? "" : " " + (String(validating: response, as: UTF8.self).map { "\"\($0)\"" } ?? bytes(response))
            return ["\(prefix)SELECT \(aid.hexString.uppercased())\(framingText)", "\(indent)→ \(word)\(answer)"]
        case .ctap2(let request, _):
            var head = "\(prefix)\(name)"
            if request.count > 1 {
                if let body = try? CBORDecoder.decode(request.dropFirst()) { head += " " + render(body) } else { head += " (not CBOR) " + bytes(Array(request.dropFirst())) }
            }
            var answer = "\(indent)→ \(word)"
            if let status = response.first {
                answer += " " + CTAPNames.statusName(status)
                if response.count > 1 {
                    if let body = try? CBORDecoder.decode(response.dropFirst()) { answer += " " + render(body) } else { answer += " (not CBOR) " + bytes(Array(response.dropFirst())) }
                }
            }
            return [head + framingText, answer]
        case .u2f(_, _, _, let data):
            return ["\(prefix)\(name)\(data.isEmpty ? "" : " " + bytes(data))\(framingText)", "\(indent)→ \(word)" + (response.isEmpty ? "" : " " + bytes(response))]
        case .apdu(let command):
            return ["\(prefix)\(name) \(command.hexString.uppercased())\(framingText)", "\(indent)→ \(word)" + (response.isEmpty ? "" : " " + bytes(response))]
        }
    }
}
