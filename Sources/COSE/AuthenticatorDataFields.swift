import CBOR
import FIDOWire

/// Authenticator data (WebAuthn §6.1) taken apart: the RP ID hash, the flags, the signature
/// counter, the attested credential data (WebAuthn §6.5.1: AAGUID, credential ID, the credential
/// public key as its COSE_Key CBOR) when flag AT is set, and the extension outputs when flag ED
/// is set. Every length is checked; nothing may follow.
///
/// The one reading of authenticator data on the host side — the CTAP client's
/// `ParsedAuthenticatorData`, the probe's fingerprint shape — and in the transcript checks. It
/// lives in `COSE` beside the COSE_Key codec because the credential public key sits inside it and
/// reading it takes CBOR: `COSE` is the codec module card side, host side and transcripts already
/// share, so every reader may import it and the two sides still meet only in bytes and the
/// spec's formats. (The card writes its authenticator data in `CTAP2`.)
public struct AuthenticatorDataFields: Equatable, Sendable {
    /// SHA-256 of the RP ID.
    public var rpIDHash: [UInt8]
    /// The flags byte: UP `01`, UV `04`, BE `08`, BS `10`, AT `40`, ED `80`.
    public var flags: UInt8
    /// The signature counter.
    public var signCount: UInt32
    /// The attested credential data, when flag AT is set.
    public var attestedCredential: AttestedCredential?
    /// The extension outputs (one CBOR item), when flag ED is set.
    public var extensions: CBORValue?

    /// Attested credential data (WebAuthn §6.5.1).
    public struct AttestedCredential: Equatable, Sendable {
        public var aaguid: [UInt8]
        public var credentialID: [UInt8]
        /// The credential public key, as the COSE_Key CBOR the card wrote.
        public var publicKey: CBORValue

        public init(aaguid: [UInt8], credentialID: [UInt8], publicKey: CBORValue) {
            self.aaguid = aaguid
            self.credentialID = credentialID
            self.publicKey = publicKey
        }
    }

    /// Why bytes are not authenticator data, in the order the parts come; `before` holds the parts
    /// read before the one that is wrong (a reader may still show them).
    public enum ParseError: Error, Equatable, Sendable {
        /// Fewer than the 37 bytes of RP ID hash, flags and counter.
        case tooShort(count: Int)
        /// Flag AT, but fewer than the 18 bytes of AAGUID and credential ID length.
        case attestedCredentialCutShort(before: AuthenticatorDataFields)
        /// A credential ID length beyond the bytes that follow.
        case credentialIDBeyondData(length: Int, before: AuthenticatorDataFields)
        /// The credential public key is not a CBOR item.
        case publicKeyNotCBOR(CBORError, before: AuthenticatorDataFields)
        /// Flag ED, but what follows is not one CBOR item.
        case extensionsNotCBOR(CBORError, before: AuthenticatorDataFields)
        /// Bytes after the last part.
        case trailingBytes(Int, before: AuthenticatorDataFields)
    }

    /// Parses `bytes`.
    public init(parsing bytes: [UInt8]) throws(ParseError) {
        guard bytes.count >= 37 else { throw .tooShort(count: bytes.count) }
        rpIDHash = Array(bytes[0..<32])
        flags = bytes[32]
        signCount = bytes[33..<37].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        attestedCredential = nil
        extensions = nil
        var rest = bytes[37...]
        if AuthenticatorDataFlags(rawValue: flags).contains(.attestedCredentialData) {
            guard rest.count >= 18 else { throw .attestedCredentialCutShort(before: self) }
            let aaguid = Array(rest.prefix(16))
            let length = Int(rest[rest.startIndex + 16]) << 8 | Int(rest[rest.startIndex + 17])
            rest = rest.dropFirst(18)
            guard rest.count >= length else { throw .credentialIDBeyondData(length: length, before: self) }
            let credentialID = Array(rest.prefix(length))
            rest = rest.dropFirst(length)
            let key: (value: CBORValue, rest: ArraySlice<UInt8>)
            do {
                key = try CBORDecoder.decodePrefix(rest)
            } catch {
                throw .publicKeyNotCBOR(error, before: self)
            }
            attestedCredential = AttestedCredential(aaguid: aaguid, credentialID: credentialID, publicKey: key.value)
            rest = key.rest
        }
        if AuthenticatorDataFlags(rawValue: flags).contains(.extensionData) {
            // One CBOR item, then nothing: bytes after it are trailing bytes (with the outputs read),
            // so a card that declares its authenticator data a byte too long is told as such.
            do {
                let item = try CBORDecoder.decodePrefix(rest)
                extensions = item.value
                rest = item.rest
            } catch {
                throw .extensionsNotCBOR(error, before: self)
            }
        }
        guard rest.isEmpty else { throw .trailingBytes(rest.count, before: self) }
    }
}
