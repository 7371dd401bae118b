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

    /// Parses authenticator data; every length is checked and nothing may follow.
    public init(_ bytes: [UInt8]) throws(CTAPClientError) {
        guard bytes.count >= 37 else {
            throw .malformedResponse("authenticator data of \(bytes.count) bytes (at least 37)")
        }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        var rest = bytes[37...]
        if AuthenticatorDataFlags(rawValue: flags).contains(.attestedCredentialData) {
            guard rest.count >= 18 else { throw .malformedResponse("attested credential data cut short") }
            let aaguid = Array(rest.prefix(16))
            let length = Int(rest[rest.startIndex + 16]) << 8 | Int(rest[rest.startIndex + 17])
            rest = rest.dropFirst(18)
            guard rest.count >= length else { throw .malformedResponse("a credential ID longer than the data") }
            let credentialID = Array(rest.prefix(length))
            rest = rest.dropFirst(length)
            let key: CBORValue
            do {
                let decoded = try CBORDecoder.decodePrefix(rest)
                key = decoded.value
                rest = decoded.rest
            } catch {
                throw .malformedResponse("the credential public key is not CBOR: \(error)")
            }
            attestedCredential = AttestedCredentialData(aaguid: aaguid, credentialID: credentialID,
                                                        publicKey: try COSEPublicKey(fromCard: key))
        } else {
            attestedCredential = nil
        }
        if AuthenticatorDataFlags(rawValue: flags).contains(.extensionData) {
            do {
                extensions = try CBORDecoder.decode(rest)
            } catch {
                throw .malformedResponse("the extension outputs are not one CBOR map: \(error)")
            }
            rest = []
        } else {
            extensions = nil
        }
        guard rest.isEmpty else { throw .malformedResponse("\(rest.count) byte(s) after the authenticator data") }
    }
}
