import CBOR
import FIDOWire
import JSONSupport

/// What a fingerprint says about the card itself, for an emulator to be loaded with: its getInfo,
/// SELECT answer and PIN state, read back from the entries that hold them.
extension Fingerprint {
    /// The ID of the entry holding getInfo's answer.
    public static let getInfoEntry = "getInfo"
    /// The ID of the entry holding the standard SELECT's answer.
    public static let selectEntry = "select.fido"
    /// The ID of the entry holding getPINRetries' answer.
    public static let pinRetriesEntry = "clientPIN.getPINRetries.protocol-1"

    /// getInfo as the card sent it, rebuilt from its shape: every member but those kept only as
    /// `bytes(N)` (getInfo's byte strings other than the AAGUID are encrypted identifiers).
    public var getInfo: CBORMap? {
        guard let body = probes[Self.getInfoEntry]?.answer["body"]?.objectValue else { return nil }
        var map = CBORMap()
        for (name, value) in body {
            guard let key = GetInfoKey.allCases.first(where: { "\($0)" == name })?.rawValue ?? Int(name),
                  let cbor = Self.cbor(value) else { continue }
            map[int: key] = cbor
        }
        return map
    }

    /// What the card answered to SELECT of the FIDO applet (`FIDO_2_0`).
    public var selectAnswer: String? {
        probes[Self.selectEntry]?.answer["text"]?.stringValue
    }

    /// Whether the card had a PIN, and its retries, when it was probed.
    public var pinState: (isSet: Bool, retries: Int?) {
        let isSet = probes[Self.getInfoEntry]?.answer["body"]?["options"]?["clientPin"]?.boolValue ?? false
        let retries = probes[Self.pinRetriesEntry]?.answer["body"]?["pinRetries"]?.intValue
        return (isSet, retries)
    }

    /// A shape's CBOR again: integers, booleans, text, `h'…'` bytes, arrays, maps with text keys;
    /// nil for what the shape kept only as a type and length.
    private static func cbor(_ value: JSONValue) -> CBORValue? {
        switch value {
        case .integer(let number): return .int(number)
        case .bool(let flag): return .bool(flag)
        case .null: return .null
        case .string(let text):
            if text.hasPrefix("h'"), text.hasSuffix("'"), let bytes = [UInt8](hex: String(text.dropFirst(2).dropLast())) {
                return .bytes(bytes)
            }
            return text.hasPrefix("bytes(") ? nil : .text(text)
        case .array(let items):
            let converted = items.compactMap(cbor)
            return converted.count == items.count ? .array(converted) : nil
        case .object(let members):
            var map = CBORMap()
            for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                guard let converted = cbor(member) else { return nil }
                map[text: key] = converted
            }
            return .map(map)
        case .number: return nil
        }
    }
}
