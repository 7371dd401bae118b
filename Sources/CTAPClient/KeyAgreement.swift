import CardCrypto
import FIDOWire

/// The ECDH step both PIN/UV auth protocols share (CTAP 2.1 §6.5.6 `ecdh`).
enum KeyAgreement {
    /// A fresh platform key pair and Z, the x-coordinate of the shared point with `peer`.
    static func ecdh(with peer: COSEPublicKey) throws(CTAPClientError) -> (platformKey: COSEPublicKey, z: [UInt8]) {
        do {
            let privateKey = try P256PrivateKey()
            let z = try privateKey.sharedSecret(with: peer.publicKey)
            return (COSEPublicKey.keyAgreement(privateKey.publicKey), z)
        } catch {
            throw .malformedResponse("key agreement with the card's key failed: \(error)")
        }
    }
}
