import Foundation

/// Byte strings in the control protocol: credential IDs and user handles travel as base64url
/// without padding (as WebAuthn writes them); `…Hex` members carry the same bytes as hex.
enum ControlChannelBytes {
    /// base64url without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Bytes from base64url (padding optional; `+` and `/` accepted too), nil if it is not.
    static func bytes(base64URL text: String) -> [UInt8]? {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while standard.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard).map { Array($0) }
    }
}
