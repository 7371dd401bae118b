import CBOR
import FIDOWire

/// The contents the positional judge looks at the moment a member is read: a hash's length, an
/// entity's members, the algorithm entries, the options' and extensions' keys. Each gives the
/// code for the first thing wrong, or nil.
extension RequestShape {
    /// A 32-byte hash (clientDataHash); any other length is `code`.
    static func hash(orElse code: CTAPStatus) -> @Sendable (CBORValue) -> CTAPStatus? {
        { $0.bytesValue?.count == 32 ? nil : code }
    }

    /// A WebAuthn entity (rp, user: WebAuthn §5.4.2, §5.4.3): text keys; `id` of the given kind,
    /// present (else INVALID_PARAMETER) and at most `longestID` bytes (else REQUEST_TOO_LARGE);
    /// every other member text. A member of the wrong kind is CBOR_UNEXPECTED_TYPE.
    static func entity(id kind: MemberShape.Kind, longestID: Int? = nil) -> @Sendable (CBORValue) -> CTAPStatus? {
        { value in
            guard let map = value.mapValue else { return .cborUnexpectedType }
            var id: CBORValue?
            for (key, member) in map.entries {
                guard let name = key.textValue else { return .cborUnexpectedType }
                if name == "id" {
                    guard kind == .text ? member.textValue != nil : member.bytesValue != nil else { return .cborUnexpectedType }
                    id = member
                } else if member.textValue == nil {
                    return .cborUnexpectedType
                }
            }
            guard let id else { return .invalidParameter }
            if let longestID, let bytes = id.bytesValue, bytes.count > longestID { return .requestTooLarge }
            return nil
        }
    }

    /// pubKeyCredParams (CTAP 2.1 §6.1.1): each entry a map with an integer `alg` and a text
    /// `type` (missing: MISSING_PARAMETER; of another kind: CBOR_UNEXPECTED_TYPE), every entry
    /// judged; then none the card supports is UNSUPPORTED_ALGORITHM.
    static func parameters(in value: CBORValue, supported algorithms: [Int]) -> CTAPStatus? {
        guard let entries = value.arrayValue else { return .cborUnexpectedType }
        var found = false
        for entry in entries {
            guard let map = entry.mapValue else { return .cborUnexpectedType }
            guard let alg = map[text: "alg"], let type = map[text: "type"] else { return .missingParameter }
            guard let number = alg.intValue, let name = type.textValue else { return .cborUnexpectedType }
            if name == "public-key" && algorithms.contains(number) { found = true }
        }
        return found ? nil : .unsupportedAlgorithm
    }

    /// A map whose keys are all text (extensions).
    static let textKeys: @Sendable (CBORValue) -> CTAPStatus? = { value in
        guard let map = value.mapValue, map.keys.allSatisfy({ $0.textValue != nil }) else { return .cborUnexpectedType }
        return nil
    }

    /// The options map (CTAP 2.1 §6.1.1, §6.2.1): text keys, boolean values.
    static let options: @Sendable (CBORValue) -> CTAPStatus? = { value in
        guard let map = value.mapValue, map.entries.allSatisfy({ $0.key.textValue != nil && $0.value.boolValue != nil }) else {
            return .cborUnexpectedType
        }
        return nil
    }

    /// A list of credential descriptors (WebAuthn §5.8.3): each a map with a text `type` and a
    /// byte-string `id`, both present (else INVALID_PARAMETER; of another kind CBOR_UNEXPECTED_TYPE).
    static let descriptors: @Sendable (CBORValue) -> CTAPStatus? = { value in
        guard let entries = value.arrayValue else { return .cborUnexpectedType }
        for entry in entries {
            guard let map = entry.mapValue else { return .cborUnexpectedType }
            guard let type = map[text: "type"], let id = map[text: "id"] else { return .invalidParameter }
            guard type.textValue != nil, id.bytesValue != nil else { return .cborUnexpectedType }
        }
        return nil
    }
}
