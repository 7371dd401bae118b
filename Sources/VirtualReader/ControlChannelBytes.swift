import Foundation

/// Byte strings in the control protocol: credential IDs, user handles and private keys travel
/// as base64url without padding (as WebAuthn and WebDriver write them); `…Hex` members carry
/// the same bytes as hex.
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

    /// A PKCS#8 DER private key as PEM (`PRIVATE KEY`), the form the card's key import reads.
    static func pem(pkcs8DER der: [UInt8]) -> String {
        let body = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return "-----BEGIN PRIVATE KEY-----\n\(body)\n-----END PRIVATE KEY-----\n"
    }

    /// The DER inside a PEM block (the lines between the armor), nil if there is none.
    static func der(pem: String) -> [UInt8]? {
        let body = pem.split(whereSeparator: \.isNewline).filter { !$0.hasPrefix("-----") }.joined()
        return Data(base64Encoded: body).map { Array($0) }
    }
}
