import CBOR
import FIDOWire
import JSONSupport

/// The shape of U2F answers (FIDO U2F Raw Message Formats §4.3, §5.4): fixed fields by value,
/// keys and handles by length, the attestation certificate by its names, signatures by kind, the
/// counter as a step.
struct U2FShape {
    var json: JSONValue
    /// The key handle a REGISTER answer carries, for the entries after it.
    var keyHandle: [UInt8]?

    /// REGISTER: reserved byte `05`, user public key (65), key handle, certificate, signature.
    static func register(_ answer: APDUAnswer, context: ShapeContext) -> U2FShape {
        let data = answer.data
        guard answer.statusWord == StatusWord.success.rawValue, data.count > 67 else {
            return U2FShape(json: AnswerShape.apdu(answer))
        }
        let handleLength = Int(data[66])
        let certificateStart = 67 + handleLength
        guard data.count > certificateStart + 4, let certificateLength = derLength(data[certificateStart...]),
              data.count > certificateStart + certificateLength else {
            return U2FShape(json: ["sw": AnswerShape.sw(answer.statusWord), "data": .string("\(CBORShape.bytes(data.count)) that do not parse")])
        }
        let certificate = Array(data[certificateStart..<(certificateStart + certificateLength)])
        let signature = Array(data[(certificateStart + certificateLength)...])
        return U2FShape(json: [
            "sw": AnswerShape.sw(answer.statusWord), "reserved": .string(Hex.byte(data[0])),
            "publicKey": .string(CBORShape.bytes(65)), "keyHandle": .string(CBORShape.bytes(handleLength)),
            "certificate": ResponseShape.certificate(.bytes(certificate)), "signature": CBORShape.signature(.bytes(signature)),
        ], keyHandle: Array(data[67..<certificateStart]))
    }

    /// AUTHENTICATE: the user-presence byte, the counter's step, the signature's kind.
    static func authenticate(_ answer: APDUAnswer, context: ShapeContext) -> JSONValue {
        let data = answer.data
        guard answer.statusWord == StatusWord.success.rawValue, data.count > 5 else { return AnswerShape.apdu(answer) }
        let counter = data[1..<5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        return ["sw": AnswerShape.sw(answer.statusWord), "userPresence": .integer(Int(data[0])),
                "counter": .string(context.counterStep(counter)), "signature": CBORShape.signature(.bytes(Array(data[5...])))]
    }

    /// The whole length of the DER item at the start of `bytes` (tag, length, contents).
    private static func derLength(_ bytes: ArraySlice<UInt8>) -> Int? {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        let first = bytes[start + 1]
        if first < 0x80 { return 2 + Int(first) }
        let count = Int(first & 0x7F)
        guard count <= 3, bytes.count >= 2 + count else { return nil }
        let length = bytes[(start + 2)..<(start + 2 + count)].reduce(0) { $0 << 8 | Int($1) }
        return 2 + count + length
    }
}
