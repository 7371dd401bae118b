import CBOR
import COSE
import CardCrypto
import FIDOWire

/// Authenticator data (WebAuthn §6.1): rpIdHash ‖ flags ‖ signCount ‖ attested credential data ‖ extensions.
public struct AuthenticatorData {
    /// The flags byte, as the wire vocabulary names its bits.
    public typealias Flags = AuthenticatorDataFlags

    /// Attested credential data (WebAuthn §6.5.1).
    public struct AttestedCredential {
        public var aaguid: [UInt8]
        public var credentialId: [UInt8]
        public var publicKey: CredentialPublicKey
    }

    public var rpIdHash: [UInt8]
    public var flags: Flags
    public var signatureCounter: UInt32
    public var attestedCredential: AttestedCredential?
    public var extensions: CBORMap?

    /// The serialised form. Sets AT and ED from the parts present.
    public var bytes: [UInt8] {
        var flags = self.flags
        if attestedCredential != nil { flags.insert(.attestedCredentialData) }
        if extensions != nil { flags.insert(.extensionData) }
        var out = rpIdHash
        out.reserveCapacity(37 + 200)
        out.append(flags.rawValue)
        out += [UInt8(signatureCounter >> 24), UInt8(signatureCounter >> 16 & 0xFF),
                UInt8(signatureCounter >> 8 & 0xFF), UInt8(signatureCounter & 0xFF)]
        if let credential = attestedCredential {
            out += credential.aaguid
            out += [UInt8(credential.credentialId.count >> 8), UInt8(credential.credentialId.count & 0xFF)]
            out += credential.credentialId
            out += CBOREncoder.encode(CBORValue(coseKey: credential.publicKey))
        }
        if let extensions {
            out += CBOREncoder.encode(.map(extensions))
        }
        return out
    }
}
