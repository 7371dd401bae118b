import CBOR

/// A PIN/UV auth protocol, platform side (CTAP 2.1 §6.5.4): how the platform agrees a shared secret
/// with the card and encrypts, decrypts and authenticates with it.
///
/// Written for the host from the specification; the card's half lives elsewhere and the two
/// share no code, so each checks the other.
public protocol PlatformPINUVAuthProtocol: Sendable {
    /// The protocol number getInfo lists and requests carry (1 or 2).
    var version: Int { get }

    /// Generates a platform key pair, agrees a shared secret with the card's key agreement key
    /// `peer`, and returns the platform's COSE public key (to send) and the shared secret.
    func encapsulate(peer: COSEPublicKey) throws(CTAPClientError) -> (platformKey: COSEPublicKey, sharedSecret: [UInt8])

    /// Encrypts `plaintext` (a multiple of 16 bytes) under `key`.
    func encrypt(key: [UInt8], plaintext: [UInt8]) throws(CTAPClientError) -> [UInt8]

    /// Decrypts `ciphertext` under `key`.
    func decrypt(key: [UInt8], ciphertext: [UInt8]) throws(CTAPClientError) -> [UInt8]

    /// The authentication tag of `message` under `key` (a shared secret or a pinUvAuthToken).
    func authenticate(key: [UInt8], message: [UInt8]) -> [UInt8]
}

/// The protocol with a given number.
public func platformPINUVAuthProtocol(version: Int) -> (any PlatformPINUVAuthProtocol)? {
    switch version {
    case 1: PINUVAuthProtocolOne()
    case 2: PINUVAuthProtocolTwo()
    default: nil
    }
}
