import CBOR
import COSE
import CardCrypto

/// Authenticator data (WebAuthn §6.1) taken apart for comparison: rpIdHash, flags,
/// signCount, the attested credential (aaguid, credentialId, credentialPublicKey) and the
/// extension outputs.
struct AuthenticatorDataView {
    var rpIdHash: [UInt8]
    var flags: UInt8
    var signCount: UInt32
    var aaguid: [UInt8]?
    var credentialId: [UInt8]?
    var credentialPublicKey: CBORValue?
    var extensions: CBORValue?

    /// Parses `bytes` (`COSE`'s ``AuthenticatorDataFields``, the one reading of authenticator
    /// data); nil when they are not well-formed authenticator data.
    init?(_ bytes: [UInt8]) {
        guard let fields = try? AuthenticatorDataFields(parsing: bytes) else { return nil }
        rpIdHash = fields.rpIDHash
        flags = fields.flags
        signCount = fields.signCount
        aaguid = fields.attestedCredential?.aaguid
        credentialId = fields.attestedCredential?.credentialID
        credentialPublicKey = fields.attestedCredential?.publicKey
        extensions = fields.extensions
    }

    /// The fields as a map with text keys, in the order they appear in the bytes.
    var asCBOR: CBORValue {
        var map = CBORMap()
        map[text: "rpIdHash"] = .bytes(rpIdHash)
        map[text: "flags"] = .unsigned(UInt64(flags))
        map[text: "signCount"] = .unsigned(UInt64(signCount))
        if let aaguid { map[text: "aaguid"] = .bytes(aaguid) }
        if let credentialId { map[text: "credentialId"] = .bytes(credentialId) }
        if let credentialPublicKey { map[text: "credentialPublicKey"] = credentialPublicKey }
        if let extensions { map[text: "extensions"] = extensions }
        return .map(map)
    }

    /// The attested credential's ES256 key.
    var publicKey: P256PublicKey? {
        credentialPublicKey.flatMap { try? COSEPublicKey(cbor: $0).publicKey }
    }
}
