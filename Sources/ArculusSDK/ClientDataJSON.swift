import CardCrypto

/// The clientDataJSON a platform builds for the card to sign over (WebAuthn §5.8.1), in the
/// serialisation WebAuthn §5.8.1.1 prescribes: `type`, `challenge`, `origin`, `crossOrigin`, in
/// that order, no whitespace.
///
/// ```
/// {"type":"webauthn.create","challenge":"q83v...","origin":"https://example.com","crossOrigin":false}
/// ```
public struct ClientDataJSON: Equatable, Sendable {
    /// `webauthn.create` or `webauthn.get`.
    public let type: String
    /// The challenge, base64url without padding.
    public let challenge: String
    /// The origin the relying party expects, e.g. `https://example.com`.
    public let origin: String
    /// The UTF-8 JSON text.
    public let bytes: [UInt8]

    /// clientData for a registration (`webauthn.create`).
    public static func create(challenge: String, origin: String) throws(ArculusFidoError) -> ClientDataJSON {
        try ClientDataJSON(type: "webauthn.create", challenge: challenge, origin: origin)
    }

    /// clientData for an authentication (`webauthn.get`).
    public static func get(challenge: String, origin: String) throws(ArculusFidoError) -> ClientDataJSON {
        try ClientDataJSON(type: "webauthn.get", challenge: challenge, origin: origin)
    }

    /// clientData with `challenge` (base64url of at least 16 bytes, re-encoded without padding)
    /// and `origin` (`https://host[:port]`, as ``WebOrigin`` describes); other values are
    /// refused with 700 Invalid Input.
    public init(type: String, challenge: String, origin: String) throws(ArculusFidoError) {
        let check = InputCheck(operation: nil)
        self.init(type: type, challenge: try check.challenge(challenge), origin: try check.origin(origin))
    }

    /// clientData over checked values.
    init(type: String, challenge: [UInt8], origin: WebOrigin) {
        self.type = type
        self.challenge = Base64URL.encode(challenge)
        self.origin = origin.serialised
        let text = "{\"type\":\(Self.quoted(type)),\"challenge\":\(Self.quoted(self.challenge)),\"origin\":\(Self.quoted(self.origin)),\"crossOrigin\":false}"
        bytes = Array(text.utf8)
    }

    /// clientData received ready-made (the seed's `clientDataJSONbase64`).
    init(bytes: [UInt8]) {
        self.bytes = bytes
        type = ""
        challenge = ""
        origin = ""
    }

    /// SHA-256 of the JSON text: what the card signs.
    public var hash: [UInt8] { SHA256.hash(bytes) }

    /// The JSON text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// A JSON string literal (WebAuthn §5.8.1.1 CCDToString).
    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
