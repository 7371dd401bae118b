import CBOR
import FIDOWire

/// What authenticatorMakeCredential returned (CTAP 2.1 §6.1.2): the attestation statement format,
/// the authenticator data with the new credential, and the attestation statement.
public struct AttestationResult: Sendable {
    /// `fmt` (0x01), e.g. `packed`.
    public let format: String
    /// `authData` (0x02), parsed.
    public let authenticatorData: ParsedAuthenticatorData
    /// `attStmt` (0x03).
    public let statement: CBORMap

    /// Reads a makeCredential response map.
    public init(_ map: CBORMap) throws(CTAPClientError) {
        guard let format = map[MakeCredentialResponseKey.fmt]?.textValue else { throw .malformedResponse("makeCredential without fmt") }
        guard let authData = map[MakeCredentialResponseKey.authData]?.bytesValue else { throw .malformedResponse("makeCredential without authData") }
        guard let statement = map[MakeCredentialResponseKey.attStmt]?.mapValue else { throw .malformedResponse("makeCredential without attStmt") }
        self.format = format
        self.statement = statement
        authenticatorData = try ParsedAuthenticatorData(authData)
        guard authenticatorData.attestedCredential != nil else {
            throw .malformedResponse("makeCredential authData without attested credential data")
        }
    }

    /// A result of these parts, e.g. one a platform rewrote (WebAuthn's `none` attestation).
    public init(format: String, authenticatorData: ParsedAuthenticatorData, statement: CBORMap) {
        self.format = format
        self.authenticatorData = authenticatorData
        self.statement = statement
    }

    /// The new credential's ID.
    public var credentialID: [UInt8] { authenticatorData.attestedCredential?.credentialID ?? [] }

    /// The WebAuthn attestation object (WebAuthn §6.5): the same three items keyed by text,
    /// `fmt`, `attStmt`, `authData`, in canonical CBOR.
    public var attestationObject: [UInt8] {
        CBOREncoder.encode(.map([
            "fmt": .text(format),
            "attStmt": .map(statement),
            "authData": .bytes(authenticatorData.bytes),
        ]))
    }
}
