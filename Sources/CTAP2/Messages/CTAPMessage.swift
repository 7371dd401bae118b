import CBOR
import FIDOWire

/// A CTAP message, or a structure inside one, that reads itself from the pull reader
/// (``CBORReader``): the shape of swift-asn1's `DERParseable`. Every request the card takes is
/// read this way, and nothing else reads it.
///
/// Reading has two outcomes, kept apart so that the card answers what a reading through a
/// ``CBORValue`` tree would: CBOR that is not well-formed is thrown at once (the whole body is
/// then INVALID_CBOR or CBOR_UNEXPECTED_TYPE, wherever the bad byte is), while well-formed CBOR
/// that is not this message — a member missing or of the wrong type — is the returned failure,
/// which ``init(decoding:)`` answers only once the whole body is read. A message judges its
/// members in one fixed order (its declaration's), whatever order they came in.
protocol CTAPParseable {
    /// Reads one item from `reader`: the message's map (members in any order, unknown ones
    /// skipped, each key once) or the structure's item.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus>
}

/// A CTAP message, or a structure inside one, that writes itself with the one writer
/// (``CBORWriter``), members in CTAP2 canonical order: swift-asn1's `DERSerializable`. Each
/// message's writing is the inverse of its reading (a round-trip test holds them so).
protocol CTAPSerializable {
    /// Writes the message's item.
    func write(to writer: inout CBORWriter)
}

/// A message that reads and writes itself.
typealias CTAPMessage = CTAPParseable & CTAPSerializable

/// A message whose members are declared once (``MessageMembers``): its reading and, when it is
/// written, its writing come from the declaration.
protocol DeclaredMembers {
    associatedtype Key: MemberKey
    /// The members, in the order the message judges them.
    static var members: MessageMembers<Self, Key> { get }
    /// The message before any member is read: every member at its default.
    static var initial: Self { get }
}

extension CTAPParseable where Self: DeclaredMembers {
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        try members.read(from: &reader, initial: initial)
    }
}

extension CTAPSerializable where Self: DeclaredMembers {
    func write(to writer: inout CBORWriter) { Self.members.write(self, to: &writer) }
}

extension CTAPParseable {
    /// Reads a whole body (the CBOR after a command or status byte): one item and nothing after it.
    init(decoding body: ArraySlice<UInt8>) throws(CTAPStatus) {
        var reader = CBORReader(body)
        let result: Result<Self, CTAPStatus>
        do {
            result = try Self.read(from: &reader)
            try reader.finish()
        } catch {
            throw CTAPStatus(decodingError: error)
        }
        self = try result.get()
    }
}

extension CTAPSerializable {
    /// The message's canonical CBOR.
    func encoded() -> [UInt8] {
        var writer = CBORWriter()
        write(to: &writer)
        return writer.bytes
    }
}

/// One member of a message as read: absent, present, or present but not what the message takes
/// (the status the card answers, once the body is read and it is this member's turn).
enum Member<Value> {
    case absent
    case present(Value)
    case invalid(CTAPStatus)

    init(_ result: Result<Value, CTAPStatus>) {
        switch result {
        case .success(let value): self = .present(value)
        case .failure(let status): self = .invalid(status)
        }
    }

    /// The value, nil when absent; an invalid member's status is thrown.
    func optional() throws(CTAPStatus) -> Value? {
        switch self {
        case .absent: nil
        case .present(let value): value
        case .invalid(let status): throw status
        }
    }

    /// The value of a member the message needs: absent is CTAP2_ERR_MISSING_PARAMETER.
    func required() throws(CTAPStatus) -> Value {
        guard let value = try optional() else { throw .missingParameter }
        return value
    }
}

extension Member: Equatable where Value: Equatable {}
extension Member: Sendable where Value: Sendable {}

extension CTAPStatus {
    /// The status for a body that is not well-formed CTAP2 CBOR.
    init(decodingError error: CBORError) {
        switch error {
        case .unsupportedMajorType, .unsupportedSimpleValue:
            self = .cborUnexpectedType
        default:
            self = .invalidCBOR
        }
    }
}
