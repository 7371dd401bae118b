import CBOR
import CardCrypto
import TestSupport

/// Authenticator data parsed by the layout of WebAuthn §6.1: rpIdHash (32) ‖ flags (1) ‖
/// signCount (4, big-endian) ‖ [aaguid (16) ‖ L (2) ‖ credentialId (L) ‖ COSE key] ‖ [extensions].
struct AuthData {
    static let userPresent: UInt8 = 0x01
    static let userVerified: UInt8 = 0x04
    static let attestedCredentialData: UInt8 = 0x40
    static let extensionData: UInt8 = 0x80

    let raw: [UInt8]
    let rpIdHash: [UInt8]
    let flags: UInt8
    let counter: UInt32
    let aaguid: [UInt8]?
    let credentialId: [UInt8]?
    let credentialPublicKey: CBORMap?
    let extensions: CBORMap?

    var up: Bool { flags & Self.userPresent != 0 }
    var uv: Bool { flags & Self.userVerified != 0 }
    var at: Bool { flags & Self.attestedCredentialData != 0 }
    var ed: Bool { flags & Self.extensionData != 0 }

    init(_ bytes: [UInt8]) throws {
        guard bytes.count >= 37 else { throw TestFailure("authenticator data of \(bytes.count) bytes") }
        raw = bytes
        rpIdHash = Array(bytes[0..<32])
        flags = bytes[32]
        counter = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var rest = bytes[37...]
        if flags & Self.attestedCredentialData != 0 {
            guard rest.count >= 18 else { throw TestFailure("attested credential data truncated") }
            let start = rest.startIndex
            aaguid = Array(rest[start..<start + 16])
            let length = Int(rest[start + 16]) << 8 | Int(rest[start + 17])
            guard rest.count >= 18 + length else { throw TestFailure("credential ID truncated") }
            credentialId = Array(rest[start + 18..<start + 18 + length])
            let (key, after) = try CBORDecoder.decodePrefix(rest[(start + 18 + length)...])
            guard let keyMap = key.mapValue else { throw TestFailure("credential public key is not a map") }
            credentialPublicKey = keyMap
            rest = after
        } else {
            aaguid = nil
            credentialId = nil
            credentialPublicKey = nil
        }
        if flags & Self.extensionData != 0 {
            let (value, after) = try CBORDecoder.decodePrefix(rest)
            guard let map = value.mapValue else { throw TestFailure("extensions are not a map") }
            extensions = map
            rest = after
        } else {
            extensions = nil
        }
        guard rest.isEmpty else { throw TestFailure("\(rest.count) bytes after the authenticator data") }
    }
}

/// An ES256 credential public key as COSE_Key: {1: 2, 3: -7, -1: 1, -2: x, -3: y} (RFC 8152).
func es256PublicKey(_ map: CBORMap) throws -> P256PublicKey {
    guard map.count == 5, map[int: 1] == .int(2), map[int: 3] == .int(-7), map[int: -1] == .int(1),
          let x = map[int: -2]?.bytesValue, let y = map[int: -3]?.bytesValue else {
        throw TestFailure("not an ES256 COSE key: \(map)")
    }
    return try P256PublicKey(x: x, y: y)
}

/// A makeCredential response (attestation object with integer keys 1 fmt, 2 authData, 3 attStmt).
struct MadeCredential {
    let response: CBORMap
    let clientDataHash: [UInt8]
    let format: String
    let authData: AuthData
    let attestationStatement: CBORMap
    let id: [UInt8]
    let publicKey: P256PublicKey

    init(_ response: CBORMap, clientDataHash: [UInt8]) throws {
        self.response = response
        self.clientDataHash = clientDataHash
        guard let format = response[int: 1]?.textValue, let authData = response[int: 2]?.bytesValue,
              let statement = response[int: 3]?.mapValue else {
            throw TestFailure("makeCredential response lacks fmt/authData/attStmt: \(response)")
        }
        self.format = format
        self.authData = try AuthData(authData)
        attestationStatement = statement
        guard let id = self.authData.credentialId, let key = self.authData.credentialPublicKey else {
            throw TestFailure("makeCredential authData has no attested credential data")
        }
        self.id = id
        publicKey = try es256PublicKey(key)
    }
}

/// A getAssertion / getNextAssertion response.
struct Assertion {
    let response: CBORMap
    let clientDataHash: [UInt8]
    let credentialId: [UInt8]
    let authData: AuthData
    let signature: [UInt8]
    let user: CBORMap?
    let numberOfCredentials: Int?

    init(_ response: CBORMap, clientDataHash: [UInt8]) throws {
        self.response = response
        self.clientDataHash = clientDataHash
        guard let credential = response[int: 1]?.mapValue, let id = credential[text: "id"]?.bytesValue,
              credential[text: "type"] == "public-key",
              let authData = response[int: 2]?.bytesValue, let signature = response[int: 3]?.bytesValue else {
            throw TestFailure("getAssertion response lacks credential/authData/signature: \(response)")
        }
        credentialId = id
        self.authData = try AuthData(authData)
        self.signature = signature
        user = response[int: 4]?.mapValue
        numberOfCredentials = response[int: 5]?.intValue
    }

    /// Whether the signature over authData ‖ clientDataHash verifies with `key`.
    func verifies(with key: P256PublicKey) -> Bool {
        key.isValidSignature(signature, for: authData.raw + clientDataHash)
    }
}

/// Total length of the DER element at the start of `bytes` (tag, length, contents).
func derElementLength(_ bytes: ArraySlice<UInt8>) throws -> Int {
    guard bytes.count >= 2 else { throw TestFailure("DER element truncated") }
    let start = bytes.startIndex
    let first = bytes[start + 1]
    if first < 0x80 { return 2 + Int(first) }
    let count = Int(first & 0x7F)
    guard count >= 1, count <= 3, bytes.count >= 2 + count else { throw TestFailure("bad DER length") }
    let length = bytes[(start + 2)..<(start + 2 + count)].reduce(0) { $0 << 8 | Int($1) }
    return 2 + count + length
}
