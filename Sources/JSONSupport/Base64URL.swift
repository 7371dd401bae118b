import Foundation

/// base64url without padding (RFC 4648 §5): how the project's JSON carries bytes — WebAuthn's
/// documents in the SDK, credential IDs, user handles and keys on the control channel.
public enum Base64URL {
    /// Encodes `bytes` as base64url without `=` padding.
    public static func encode<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes base64url or standard base64, with or without padding (servers and tools write
    /// either); nil for anything else, whitespace included.
    public static func decode(_ text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.hasSuffix("=") { standard.removeLast() }
        guard standard.count % 4 != 1 else { return nil }
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}
