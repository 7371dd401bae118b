import CardTestSupport
import CBOR
import CTAP2
import CardCrypto
import Testing
import FIDOWire
import TestSupport

/// authenticatorConfig subcommand numbers (CTAP 2.1 §6.11).
enum ConfigSubcommand {
    static let enableEnterpriseAttestation: UInt64 = 0x01
    static let toggleAlwaysUv: UInt64 = 0x02
    static let setMinPINLength: UInt64 = 0x03
}

extension TestClient {
    // MARK: - authenticatorConfig

    /// What an authenticatorConfig pinUvAuthParam covers: 32×0xff ‖ 0x0d ‖ subCommand ‖
    /// subCommandParams (CTAP 2.1 §6.11).
    static func configMessage(_ subCommand: UInt64, parameters: CBORMap?) -> [UInt8] {
        var message = [UInt8](repeating: 0xFF, count: 32) + [CTAPByte.config, UInt8(subCommand)]
        if let parameters { message += CBOREncoder.encode(.map(parameters)) }
        return message
    }

    static func configRequest(_ subCommand: UInt64, parameters: CBORMap? = nil, token: PlatformToken?) -> CBORMap {
        var request: CBORMap = [.int(1): .unsigned(subCommand)]
        if let parameters { request[int: 2] = .map(parameters) }
        if let token {
            request[int: 3] = .int(token.pinProtocol.rawValue)
            request[int: 4] = .bytes(token.authenticate(configMessage(subCommand, parameters: parameters)))
        }
        return request
    }

    func config(_ subCommand: UInt64, parameters: CBORMap? = nil, token: PlatformToken?) -> Reply {
        send(CTAPByte.config, Self.configRequest(subCommand, parameters: parameters, token: token))
    }

    /// A token with the acfg permission.
    func configToken(_ pinProtocol: PlatformPIN = .two, pin: String = Fixture.shortPIN) throws -> PlatformToken {
        try token(pin, pinProtocol, permissions: PermissionBit.authenticatorConfig)
    }

    // MARK: - authenticatorLargeBlobs

    /// A serialized large-blob array: CBOR(array) ‖ LEFT(SHA-256(CBOR(array)), 16) (CTAP 2.1 §6.10.1).
    static func serializedLargeBlobArray(_ items: [CBORValue]) -> [UInt8] {
        let array = CBOREncoder.encode(.array(items))
        return array + SHA256.hash(array).prefix(16)
    }

    /// What a large-blob write's pinUvAuthParam covers: 32×0xff ‖ 0x0c 0x00 ‖ uint32LE(offset) ‖
    /// SHA-256(fragment) (CTAP 2.1 §6.10.2).
    static func largeBlobMessage(offset: Int, fragment: [UInt8]) -> [UInt8] {
        let offset = UInt32(offset)
        return [UInt8](repeating: 0xFF, count: 32) + [CTAPByte.largeBlobs, 0x00]
            + [UInt8(offset & 0xFF), UInt8(offset >> 8 & 0xFF), UInt8(offset >> 16 & 0xFF), UInt8(offset >> 24)]
            + SHA256.hash(fragment)
    }

    static func largeBlobSetRequest(_ fragment: [UInt8], offset: Int, length: Int?, token: PlatformToken?) -> CBORMap {
        var request: CBORMap = [.int(2): .bytes(fragment), .int(3): .int(offset)]
        if let length { request[int: 4] = .int(length) }
        if let token {
            request[int: 5] = .bytes(token.authenticate(largeBlobMessage(offset: offset, fragment: fragment)))
            request[int: 6] = .int(token.pinProtocol.rawValue)
        }
        return request
    }

    func largeBlobSet(_ fragment: [UInt8], offset: Int, length: Int?, token: PlatformToken?) -> Reply {
        send(CTAPByte.largeBlobs, Self.largeBlobSetRequest(fragment, offset: offset, length: length, token: token))
    }

    func largeBlobGet(offset: Int, count: Int) -> Reply {
        send(CTAPByte.largeBlobs, [.int(1): .int(count), .int(3): .int(offset)])
    }

    /// Writes `serialized` in fragments of `fragmentSize`; the first status that is not OK, else OK.
    func writeLargeBlobArray(_ serialized: [UInt8], fragmentSize: Int, token: PlatformToken?) -> Reply {
        var offset = 0
        var reply = Reply(bytes: [CTAPStatus.ok.rawValue])
        repeat {
            let fragment = Array(serialized[offset..<min(serialized.count, offset + fragmentSize)])
            reply = largeBlobSet(fragment, offset: offset, length: offset == 0 ? serialized.count : nil, token: token)
            offset += fragment.count
        } while reply.status == .ok && offset < serialized.count
        return reply
    }

    /// Reads the whole serialized large-blob array in pieces of `count`.
    func readLargeBlobArray(count: Int = 1024) throws -> [UInt8] {
        var bytes: [UInt8] = []
        while true {
            guard let piece = try largeBlobGet(offset: bytes.count, count: count).body()[int: 1]?.bytesValue else {
                throw TestFailure("large-blob read without config (0x01)")
            }
            bytes += piece
            if piece.count < count { return bytes }
        }
    }

    // MARK: - credentialManagement over another command byte

    /// credentialManagement as `command` (0x0A, or 0x41 for the FIDO_2_1_PRE form).
    func credentialManagement(_ command: UInt8, _ subCommand: UInt64, parameters: CBORMap? = nil,
                              token: PlatformToken?) -> Reply {
        send(command, Self.credentialManagementRequest(subCommand, parameters: parameters, token: token))
    }
}

// MARK: - Credential public keys of any algorithm

/// A credential public key of any algorithm from its COSE_Key (RFC 9053 §7.1 EC2 and OKP, RFC 8230
/// §4 RSA), parsed here by its labels: kty 1, alg 3; EC2/OKP crv -1, x -2 (EC2 y -3); RSA n -1, e -2.
func credentialPublicKey(_ map: CBORMap) throws -> CredentialPublicKey {
    guard let kty = map[int: 1]?.intValue, let alg = map[int: 3]?.intValue,
          let algorithm = SignatureAlgorithm(rawValue: alg) else {
        throw TestFailure("COSE key without kty or a known alg: \(map)")
    }
    // The IANA "COSE Elliptic Curves" numbers, read here apart from the COSE module.
    let coseCurves: [Int: EllipticCurve] = [1: .p256, 2: .p384, 3: .p521, 6: .ed25519, 8: .secp256k1]
    let parameters: COSEKeyParameters
    switch kty {
    case 1:
        guard map.count == 4, let crv = map[int: -1]?.intValue, let curve = coseCurves[crv],
              let x = map[int: -2]?.bytesValue else { throw TestFailure("not an OKP COSE key: \(map)") }
        parameters = .okp(curve: curve, x: x)
    case 2:
        guard map.count == 5, let crv = map[int: -1]?.intValue, let curve = coseCurves[crv],
              let x = map[int: -2]?.bytesValue, let y = map[int: -3]?.bytesValue else {
            throw TestFailure("not an EC2 COSE key: \(map)")
        }
        parameters = .ec2(curve: curve, x: x, y: y)
    case 3:
        guard map.count == 4, let n = map[int: -1]?.bytesValue, let e = map[int: -2]?.bytesValue else {
            throw TestFailure("not an RSA COSE key: \(map)")
        }
        parameters = .rsa(n: n, e: e)
    default:
        throw TestFailure("COSE key type \(kty)")
    }
    return try CredentialPublicKey(algorithm: algorithm, coseKey: parameters)
}
