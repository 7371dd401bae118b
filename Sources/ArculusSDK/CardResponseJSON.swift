import CTAPClient
import JSONSupport

/// The JSON a card operation returns and a backend forwards to its FIDO2 server: WebAuthn's
/// RegistrationResponseJSON / AuthenticationResponseJSON (WebAuthn §5.1), bytes in base64url
/// without padding.
///
/// Registration:
/// ```
/// {"id":…,"rawId":…,"type":"public-key","authenticatorAttachment":"cross-platform",
///  "clientExtensionResults":{},
///  "response":{"clientDataJSON":…,"attestationObject":…,"transports":["nfc"]}}
/// ```
/// Authentication: the same frame with `authenticatorData`, `signature`, `userHandle` in `response`.
public enum CardResponseJSON {
    /// The registration response for `result` and the clientData it was made over.
    public static func registration(_ result: AttestationResult, clientData: ClientDataJSON) -> JSONValue {
        frame(credentialID: result.credentialID, response: [
            "clientDataJSON": .string(Base64URL.encode(clientData.bytes)),
            "attestationObject": .string(Base64URL.encode(result.attestationObject)),
            "transports": .array([.string("nfc")]),
        ])
    }

    /// The authentication response for `assertion` and the clientData it was made over.
    public static func authentication(_ assertion: AssertionResult, clientData: ClientDataJSON) -> JSONValue {
        frame(credentialID: assertion.credential.id, response: [
            "clientDataJSON": .string(Base64URL.encode(clientData.bytes)),
            "authenticatorData": .string(Base64URL.encode(assertion.authenticatorData.bytes)),
            "signature": .string(Base64URL.encode(assertion.signature)),
            "userHandle": assertion.user.map { .string(Base64URL.encode($0.id)) } ?? .null,
        ])
    }

    private static func frame(credentialID: [UInt8], response: [String: JSONValue]) -> JSONValue {
        let id = Base64URL.encode(credentialID)
        return .object([
            "id": .string(id),
            "rawId": .string(id),
            "type": .string("public-key"),
            "authenticatorAttachment": .string("cross-platform"),
            "clientExtensionResults": .object([:]),
            "response": .object(response),
        ])
    }
}
