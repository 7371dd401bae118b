import CBOR

/// What a command answers after the status byte.
enum ResponseBody {
    /// A CBOR tree, encoded canonically; nil is no CBOR at all (the status alone).
    case value(CBORValue?)
    /// An assertion, written member by member (``GetAssertionResponse/encode(into:)``): the
    /// command a card answers most, kept off the tree.
    case assertion(GetAssertionResponse)
    /// CBOR already encoded (getInfo's kept answer).
    case encoded([UInt8])

    /// The status alone.
    static let empty = ResponseBody.value(nil)

    /// About how many bytes ``encode(into:)`` writes (exact for an assertion without a user), so
    /// the answer is allocated once.
    var sizeHint: Int {
        switch self {
        case .value: 0
        case .encoded(let bytes): bytes.count
        case .assertion(let response): response.credential.id.count + response.authData.count + response.signature.count + 32
        }
    }

    func encode(into output: inout [UInt8]) {
        switch self {
        case .value(let value?): CBOREncoder.encode(value, into: &output)
        case .value(nil): break
        case .assertion(let response): response.encode(into: &output)
        case .encoded(let bytes): output.append(contentsOf: bytes)
        }
    }
}
