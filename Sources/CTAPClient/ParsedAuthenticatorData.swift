import CBOR
import FIDOWire

/// Authenticator data (WebAuthn §6.1): what the card signs in a registration or an assertion.
public struct ParsedAuthenticatorData: Equatable, Sendable {
    /// The bytes as the card produced them (what signatures cover).
    public let bytes: [UInt8]
    /// SHA-256 of the RP ID.
    public let rpIDHash: [UInt8]
    /// The flags byte: UP `01`, UV `04`, AT `40`, ED `80`.
    public let flags: UInt8
    /// The signature counter.
    public let signCount: UInt32
    /// Attested credential data, present when flag AT is set (registrations).
    public let attestedCredential: AttestedCredentialData?
    /// Extension outputs, present when flag ED is set.
    public let extensions: CBORValue?

    /// The attested credential data of a registration (WebAuthn §6.5.1).
    public struct AttestedCredentialData: Equatable, Sendable {
        /// The authenticator model's AAGUID.
        public let aaguid: [UInt8]
        /// The new credential's ID.
        public let credentialID: [UInt8]
        /// The new credential's public key.
        public let publicKey: COSEPublicKey
    }

    /// User present.
    public var userPresent: Bool { AuthenticatorDataFlags(rawValue: flags).contains(.userPresent) }
    /// User verified (here: by PIN).
    public var userVerified: Bool { AuthenticatorDataFlags(rawValue: flags).contains(.userVerified) }

    /// Parses authenticator data; every length is checked and nothing may follow. The reading is
    /// `COSE`'s ``AuthenticatorDataFields`` (the one the probe and the transcripts use); the
    /// credential public key must be an EC2 P-256 COSE_Key.
    public init(_ bytes: [UInt8]) throws(CTAPClientError) {
        let fields: AuthenticatorDataFields
        do throws(AuthenticatorDataFields.ParseError) {
            fields = try AuthenticatorDataFields(parsing: bytes)
        } catch {
            throw try Self.reason(error)
        }
        self.bytes = bytes
        rpIDHash = fields.rpIDHash
        flags = fields.flags
        signCount = fields.signCount
        attestedCredential = try fields.attestedCredential.map { credential throws(CTAPClientError) in
            AttestedCredentialData(aaguid: credential.aaguid, credentialID: credential.credentialID,
                                   publicKey: try COSEPublicKey(fromCard: credential.publicKey))
        }
        extensions = fields.extensions
    }

    /// The error for `error`, in the order the parts come: a credential key that is not a P-256
    /// COSE_Key is named before what follows it.
    private static func reason(_ error: AuthenticatorDataFields.ParseError) throws(CTAPClientError) -> CTAPClientError {
        switch error {
        case .tooShort(let count):
            return .malformedResponse("authenticator data of \(count) bytes (at least 37)")
        case .attestedCredentialCutShort:
            return .malformedResponse("attested credential data cut short")
        case .credentialIDBeyondData:
            return .malformedResponse("a credential ID longer than the data")
        case .publicKeyNotCBOR(let cause, _):
            return .malformedResponse("the credential public key is not CBOR: \(cause)")
        case .extensionsNotCBOR(let cause, let before):
            if let key = before.attestedCredential?.publicKey { _ = try COSEPublicKey(fromCard: key) }
            return .malformedResponse("the extension outputs are not one CBOR map: \(cause)")
        case .trailingBytes(let count, let before):
            if let key = before.attestedCredential?.publicKey { _ = try COSEPublicKey(fromCard: key) }
            return .malformedResponse("\(count) byte(s) after the authenticator data")
        }
    }
}
