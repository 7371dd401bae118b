import CBOR
import CTAPClient
import CardCrypto
import FIDOWire

/// The platform's sanity check of what the card signed, before anything goes to a server: the
/// RP ID hash is the one asked for, and the attestation signature verifies (packed with a
/// certificate, packed self, or none). A failure is 604 Signature Failed: a card whose
/// signatures do not verify is broken or not what it claims, and a server would refuse it anyway.
enum AttestationCheck {
    static func verify(_ result: AttestationResult, clientDataHash: [UInt8], rpID: String, operation: ArculusFidoOperation) throws(ArculusFidoError) {
        let data = result.authenticatorData
        guard data.rpIDHash == SHA256.hash(Array(rpID.utf8)) else {
            throw ArculusFidoError(.signatureFailed, during: operation, "the card signed for another relying party than \(rpID)")
        }
        guard data.userPresent else {
            throw ArculusFidoError(.signatureFailed, during: operation, "the card's registration lacks the user-present flag")
        }
        let signed = data.bytes + clientDataHash
        switch result.format {
        case "none":
            return
        case "packed":
            guard let signature = result.statement[text: "sig"]?.bytesValue,
                  result.statement[text: "alg"]?.intValue == COSEPublicKey.es256 else {
                throw ArculusFidoError(.signatureFailed, during: operation, "the packed attestation statement has no ES256 signature")
            }
            let key: P256PublicKey
            if let leaf = result.statement[text: "x5c"]?.arrayValue?.first?.bytesValue {
                do {
                    key = try X509Certificate(der: leaf).publicKey
                } catch {
                    throw ArculusFidoError(.signatureFailed, during: operation, "the attestation certificate is unreadable: \(error)")
                }
            } else if let credentialKey = data.attestedCredential?.publicKey.publicKey {
                key = credentialKey
            } else {
                throw ArculusFidoError(.signatureFailed, during: operation, "no key to check the attestation signature with")
            }
            guard key.isValidSignature(signature, for: signed) else {
                throw ArculusFidoError(.signatureFailed, during: operation, "the card's attestation signature does not verify")
            }
        default:
            throw ArculusFidoError(.signatureFailed, during: operation, "unknown attestation format '\(result.format)'")
        }
    }

    static func check(_ assertion: AssertionResult, rpID: String, operation: ArculusFidoOperation) throws(ArculusFidoError) {
        guard assertion.authenticatorData.rpIDHash == SHA256.hash(Array(rpID.utf8)) else {
            throw ArculusFidoError(.signatureFailed, during: operation, "the card signed for another relying party than \(rpID)")
        }
        guard assertion.authenticatorData.userPresent else {
            throw ArculusFidoError(.signatureFailed, during: operation, "the card's assertion lacks the user-present flag")
        }
    }
}
