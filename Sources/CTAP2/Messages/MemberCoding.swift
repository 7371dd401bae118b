import CBOR
import FIDOWire

/// How a member's value is coded: its CBOR kind, how it is read (``CBORReader``'s member
/// readers: a value of another type is CTAP2_ERR_CBOR_UNEXPECTED_TYPE, judged once the map is
/// read) and how it is written. A message-specific rule (a count clamped to `Int`, an input that
/// must be `true`, a map kept as sent) is a coding of its own, not code in the message.
///
/// Sendable as unchecked: its closures are functions of their arguments alone, built once.
struct MemberCoding<Value>: @unchecked Sendable {
    let kind: MemberShape.Kind
    let read: (inout CBORReader) throws(CBORError) -> Member<Value>
    let write: (inout CBORWriter, Value) -> Void

    /// An array whose elements are coded by `element`: the first element's failure is the array's.
    static func array<Element>(of element: MemberCoding<Element>) -> MemberCoding<[Element]> {
        MemberCoding<[Element]>(kind: .array, read: { reader throws(CBORError) in try reader.array(element.read) }, write: { writer, array in
            writer.arrayHead(count: array.count)
            for item in array { element.write(&writer, item) }
        })
    }
}

extension MemberCoding where Value: CTAPMessage {
    /// A structure that reads and writes itself (an entity, a descriptor).
    static var message: Self {
        Self(kind: .map, read: { reader throws(CBORError) in try reader.message(Value.self) }, write: { $1.write(to: &$0) })
    }
}

extension MemberCoding where Value == [UInt8] {
    static let bytes = Self(kind: .bytes, read: { reader throws(CBORError) in try reader.byteString() }, write: { $0.byteString($1) })

    /// A map kept as the bytes it was sent as (checked whole): a member read later by its own
    /// reader (subCommandParams, hmac-secret's salts), or bytes a pinUvAuthParam
    /// covers; written back as it came.
    static let mapAsSent = Self(kind: .map, read: { reader throws(CBORError) in
        switch try reader.asSent() {
        case .absent: .absent
        case .present(let bytes): .present(Array(bytes))
        case .invalid(let status): .invalid(status)
        }
    }, write: { $0.appendEncoded($1) })
}

extension MemberCoding where Value == ExtensionsMap {
    /// A request's extensions map, read once: checked whole, kept as sent with where the value of
    /// each extension the card knows lies (``ExtensionsMap``), for the command's
    /// ``ExtensionInputs`` to read the values of those the profile offers; written back as it came.
    static let extensionsMap = Self(kind: .map, read: { reader throws(CBORError) in try reader.extensionsMap() },
                                    write: { $0.appendEncoded($1.encoded) })
}

extension MemberCoding where Value == String {
    static let text = Self(kind: .text, read: { reader throws(CBORError) in try reader.text() }, write: { $0.text($1) })

    /// A text string that is most often `common`, which the card writes as `encoded`: matched on
    /// those bytes before they are lexed (giving `common` itself, no new `String`), and written so.
    static func text(usually common: String, encoded: [UInt8]) -> Self {
        Self(kind: .text, read: { reader throws(CBORError) in try reader.text(usually: common, encoded: encoded) }, write: { writer, text in
            if text == common { writer.appendEncoded(encoded) } else { writer.text(text) }
        })
    }
}

extension MemberCoding where Value == UInt64 {
    static let unsigned = Self(kind: .unsigned, read: { reader throws(CBORError) in try reader.unsigned() }, write: { $0.unsigned($1) })
}

extension MemberCoding where Value == Int {
    /// An unsigned count or length, clamped to `Int`; written as an integer.
    static let count = Self(kind: .unsigned, read: { reader throws(CBORError) in
        switch try reader.unsigned() {
        case .absent: .absent
        case .present(let number): .present(Int(clamping: number))
        case .invalid(let status): .invalid(status)
        }
    }, write: { $0.int($1) })

    /// An integer of either sign that an `Int` holds (a COSE algorithm identifier).
    static let integer = Self(kind: .integer, read: { reader throws(CBORError) in try reader.integer() }, write: { $0.int($1) })

    /// A `public-key` credential's algorithm, as a `PublicKeyCredentialParameters` entry (getInfo's
    /// algorithms): read from any entry, written with type `public-key`.
    static let publicKeyAlgorithm = Self(kind: .map, read: { reader throws(CBORError) in
        switch try reader.message(CredentialParameters.self) {
        case .absent: .absent
        case .present(let entry): .present(entry.algorithm)
        case .invalid(let status): .invalid(status)
        }
    }, write: { CredentialParameters(type: CredentialDescriptor.publicKey, algorithm: $1).write(to: &$0) })
}

extension MemberCoding where Value == UInt8 {
    /// A credProtect level (CTAP 2.1 §12.1): 1 to 3; another number reads as absent.
    static let protectionLevel = Self(kind: .unsigned, read: { reader throws(CBORError) in
        switch try reader.unsigned() {
        case .absent: .absent
        case .present(let level): (1...3).contains(level) ? .present(UInt8(level)) : .absent
        case .invalid(let status): .invalid(status)
        }
    }, write: { $0.unsigned(UInt64($1)) })
}

extension MemberCoding where Value == Bool {
    static let bool = Self(kind: .bool, read: { reader throws(CBORError) in try reader.bool() }, write: { $0.bool($1) })

    /// An input that, when present, is `true` (largeBlobKey, CTAP 2.1 §12.3): false is
    /// CTAP2_ERR_INVALID_OPTION.
    static let onlyTrue = Self(kind: .bool, read: { reader throws(CBORError) in
        switch try reader.bool() {
        case .present(false): .invalid(.invalidOption)
        case let member: member
        }
    }, write: { $0.bool($1) })
}

extension MemberCoding where Value == CBORValue {
    /// Any item, as a tree: a COSE key for the existing codec, a member whose type the command
    /// judges itself; written canonically.
    static let any = Self(kind: .any, read: { reader throws(CBORError) in try reader.anyValue() }, write: { $0.value($1) })
}

extension MemberCoding where Value == [String: Bool] {
    /// The `options` map (CTAP 2.1 §6.1.1, §6.2.1), names in canonical order when written.
    static let options = Self(kind: .map, read: { reader throws(CBORError) in try reader.options() }, write: { writer, options in
        writer.value(.map(CBORMap(options.map { (.text($0.key), .bool($0.value)) })))
    })
}

extension MemberCoding where Value == [(name: String, value: Bool)] {
    /// Options in the order listed (getInfo's), written in canonical order.
    static let optionList = Self(kind: .map, read: { reader throws(CBORError) in
        try reader.options(into: []) { $0.append(($1, $2)) }
    }, write: { writer, options in
        writer.value(.map(CBORMap(options.map { (.text($0.name), .bool($0.value)) })))
    })
}
