import CBOR

/// What a command answers after the status byte.
enum ResponseBody {
    /// The status alone, no CBOR.
    case empty
    /// An assertion, the answer a card gives most: written into the answer's buffer directly.
    case assertion(GetAssertionResponse)
    /// CBOR already written (getInfo's kept answer, any other message).
    case encoded([UInt8])

    /// A message's CBOR, or the status alone for none.
    static func message(_ message: (some CTAPSerializable)?) -> ResponseBody {
        message.map { .encoded($0.encoded()) } ?? .empty
    }

    /// About how many bytes ``write(to:)`` writes (exact for an assertion without a user), so the
    /// answer is allocated once.
    var sizeHint: Int {
        switch self {
        case .empty: 0
        case .encoded(let bytes): bytes.count
        case .assertion(let response): response.credential.id.count + response.authData.count + response.signature.count + 32
        }
    }

    func write(to writer: inout CBORWriter) {
        switch self {
        case .empty: break
        case .assertion(let response): response.write(to: &writer)
        case .encoded(let bytes): writer.appendEncoded(bytes)
        }
    }
}
