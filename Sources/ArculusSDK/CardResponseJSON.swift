import CTAPClient
import JSONSupport

/// The JSON of a registration or an authentication, bytes in base64url without padding, in the
/// two shapes servers read:
///
/// - WebAuthn Level 3's `toJSON()` (RegistrationResponseJSON / AuthenticationResponseJSON,
///   WebAuthn L3 §5.1): what the card-only operations return and a backend forwards. Its
///   registration `response` has `clientDataJSON`, `authenticatorData`, `transports`,
///   `publicKey` (SubjectPublicKeyInfo DER), `publicKeyAlgorithm` and `attestationObject`; its
///   authentication `response` has `userHandle` only when the card returned one.
///
///   ```
///   {"authenticatorAttachment":"cross-platform","clientExtensionResults":{},"id":…,"rawId":…,
///    "response":{"attestationObject":…,"authenticatorData":…,"clientDataJSON":…,"publicKey":…,
///                "publicKeyAlgorithm":-7,"transports":["nfc"]},"type":"public-key"}
///   ```
/// - The FIDO conformance server API's ServerPublicKeyCredential: `id`, `type`, `response` with
///   the members its text names, and `getClientExtensionResults`; what the client-direct flow
///   posts. Its assertion `response.userHandle` is required, `""` when the card returned none.
public enum CardResponseJSON {
    /// The transports an NFC card reports (WebAuthn `AuthenticatorTransport`).
    static let transports: [JSONValue] = ["nfc"]

    /// WebAuthn L3 RegistrationResponseJSON for `result` and the clientData it was made over.
    public static func registration(_ result: AttestationResult, clientData: ClientDataJSON) -> JSONValue {
        var response: [String: JSONValue] = [
            "clientDataJSON": .string(Base64URL.encode(clientData.bytes)),
            "authenticatorData": .string(Base64URL.encode(result.authenticatorData.bytes)),
            "transports": .array(transports),
            "attestationObject": .string(Base64URL.encode(result.attestationObject)),
        ]
        if let key = result.authenticatorData.attestedCredential?.publicKey {
            response["publicKey"] = .string(Base64URL.encode(key.publicKey.derSubjectPublicKeyInfo))
            response["publicKeyAlgorithm"] = .int(key.algorithm)
        }
        return levelThree(credentialID: result.credentialID, response: response)
    }

    /// WebAuthn L3 AuthenticationResponseJSON for `assertion` and the clientData it was made over.
    public static func authentication(_ assertion: AssertionResult, clientData: ClientDataJSON) -> JSONValue {
        var response: [String: JSONValue] = [
            "clientDataJSON": .string(Base64URL.encode(clientData.bytes)),
            "authenticatorData": .string(Base64URL.encode(assertion.authenticatorData.bytes)),
            "signature": .string(Base64URL.encode(assertion.signature)),
        ]
        if let user = assertion.user { response["userHandle"] = .string(Base64URL.encode(user.id)) }
        return levelThree(credentialID: assertion.credential.id, response: response)
    }

    /// The conformance API's registration result (ServerPublicKeyCredential with a
    /// ServerAuthenticatorAttestationResponse).
    static func conformanceRegistration(_ result: AttestationResult, clientData: ClientDataJSON) -> [String: JSONValue] {
        conformance(credentialID: result.credentialID, response: [
            "clientDataJSON": .string(Base64URL.encode(clientData.bytes)),
            "attestationObject": .string(Base64URL.encode(result.attestationObject)),
        ])
    }

    /// The conformance API's assertion result (ServerPublicKeyCredential with a
    /// ServerAuthenticatorAssertionResponse).
    static func conformanceAuthentication(_ assertion: AssertionResult, clientData: ClientDataJSON) -> [String: JSONValue] {
        conformance(credentialID: assertion.credential.id, response: [
            "clientDataJSON": .string(Base64URL.encode(clientData.bytes)),
            "authenticatorData": .string(Base64URL.encode(assertion.authenticatorData.bytes)),
            "signature": .string(Base64URL.encode(assertion.signature)),
            "userHandle": .string(assertion.user.map { Base64URL.encode($0.id) } ?? ""),
        ])
    }

    private static func levelThree(credentialID: [UInt8], response: [String: JSONValue]) -> JSONValue {
        let id = Base64URL.encode(credentialID)
        return .object([
            "id": .string(id),
            "rawId": .string(id),
            "type": "public-key",
            "authenticatorAttachment": "cross-platform",
            "clientExtensionResults": .object([:]),
            "response": .object(response),
        ])
    }

    private static func conformance(credentialID: [UInt8], response: [String: JSONValue]) -> [String: JSONValue] {
        [
            "id": .string(Base64URL.encode(credentialID)),
            "type": "public-key",
            "response": .object(response),
            "getClientExtensionResults": .object([:]),
        ]
    }
}
