import CBOR
import FIDOWire
import JSONSupport

/// What the fingerprint keeps of one answer: the status word (`sw`), for a CTAP message the CTAP
/// status by name (`ctap`) and the body's shape (`body`), for other data its text when it is short
/// and printable (`text`, e.g. `FIDO_2_0`), its bytes when it is one or two (`data`, a CTAP status
/// byte), else its length (`data`).
enum AnswerShape {
    /// An APDU's answer.
    static func apdu(_ answer: APDUAnswer) -> JSONValue {
        var object: [String: JSONValue] = ["sw": sw(answer.statusWord)]
        data(answer.data, into: &object)
        return .object(object)
    }

    /// A CTAP message's answer: pieces (when chained), status word, CTAP status, body.
    static func message(_ message: MessageAnswer, command: CTAPCommand?, shape: ResponseShape) -> JSONValue {
        var object: [String: JSONValue] = ["sw": sw(message.answer.statusWord)]
        if !message.pieces.isEmpty { object["pieces"] = .array(message.pieces.map(sw)) }
        let data = message.answer.data
        guard message.answer.statusWord == StatusWord.success.rawValue, let status = data.first else {
            self.data(data, into: &object)
            return .object(object)
        }
        object["ctap"] = .string(CTAPStatus(rawValue: status).name)
        if data.count > 1 {
            do {
                object["body"] = shape.of(try CBORDecoder.decode(data.dropFirst()), command: command)
            } catch {
                object["body"] = .string("\(CBORShape.bytes(data.count - 1)) that are not one CBOR item (\(error))")
            }
        }
        return .object(object)
    }

    /// A status word in hex, `none` for an answer without one.
    static func sw(_ word: UInt16?) -> JSONValue {
        word.map { .string(Hex.word($0)) } ?? "none"
    }

    private static func data(_ bytes: [UInt8], into object: inout [String: JSONValue]) {
        guard !bytes.isEmpty else { return }
        if bytes.count <= 12, bytes.allSatisfy({ (0x20...0x7E).contains($0) }) {
            object["text"] = .string(String(decoding: bytes, as: UTF8.self))
        } else if bytes.count <= 2 {
            object["data"] = .string(CBORShape.hex(bytes))
        } else {
            object["data"] = .string(CBORShape.bytes(bytes.count))
        }
    }
}
