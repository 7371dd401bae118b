import CBOR
import COSE
import CardCrypto
import FIDOWire

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

    /// Parses `bytes`; nil when they are not well-formed authenticator data.
    init?(_ bytes: [UInt8]) {
        guard bytes.count >= 37 else { return nil }
        rpIdHash = Array(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var rest = bytes[37...]
        if AuthenticatorDataFlags(rawValue: flags).contains(.attestedCredentialData) {
            guard rest.count >= 18 else { return nil }
            aaguid = Array(rest.prefix(16))
            let idLength = Int(rest[rest.startIndex + 16]) << 8 | Int(rest[rest.startIndex + 17])
            rest = rest.dropFirst(18)
            guard rest.count >= idLength else { return nil }
            credentialId = Array(rest.prefix(idLength))
            rest = rest.dropFirst(idLength)
            guard let (key, after) = try? CBORDecoder.decodePrefix(rest) else { return nil }
            credentialPublicKey = key
            rest = after
        }
        if AuthenticatorDataFlags(rawValue: flags).contains(.extensionData) {
            guard let (outputs, after) = try? CBORDecoder.decodePrefix(rest) else { return nil }
            extensions = outputs
            rest = after
        }
        guard rest.isEmpty else { return nil }
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
