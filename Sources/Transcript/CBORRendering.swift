import CBOR
import CTAP2
import FIDOWire

/// Diagnostic notation for reports: byte strings longer than a limit show their first bytes
/// and their length, so a report with a certificate in it stays readable.
public enum CBORRendering {
    /// Byte strings longer than this are abbreviated.
    public static let maximumBytes = 48

    /// `value` in diagnostic notation, long byte strings abbreviated.
    public static func render(_ value: CBORValue, maximumBytes: Int = maximumBytes) -> String {
        switch value {
        case .bytes(let bytes) where bytes.count > maximumBytes:
            return "h'\(Array(bytes.prefix(16)).hexString)…' /\(bytes.count) bytes/"
        case .array(let items):
            return "[" + items.map { render($0, maximumBytes: maximumBytes) }.joined(separator: ", ") + "]"
        case .map(let map):
            return "{" + map.map { "\(render($0.key, maximumBytes: maximumBytes)): \(render($0.value, maximumBytes: maximumBytes))" }
                .joined(separator: ", ") + "}"
        default:
            return value.diagnosticNotation
        }
    }
}
