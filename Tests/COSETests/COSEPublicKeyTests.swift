import CBOR
import COSE
import CardCrypto
import Testing

/// The one COSE_Key codec: the map it writes, member by member and in canonical order, and every
/// way a map is refused, with its reason.
@Suite("COSE keys")
struct COSEPublicKeyTests {
    static let key = Result { try P256PrivateKey().publicKey }

    /// An EC2 P-256 map written out member by member, as RFC 9053 §7.1.1 and CTAP 2.1 §6.5.6 give it.
    static func ec2Map(algorithm: Int, x: [UInt8], y: [UInt8]) -> CBORMap {
        [.int(1): .int(2), .int(3): .int(algorithm), .int(-1): .int(1), .int(-2): .bytes(x), .int(-3): .bytes(y)]
    }

    @Test("a key-agreement key is {1: 2, 3: -25, -1: 1, -2: x, -3: y} in canonical order, and reads back")
    func keyAgreement() throws {
        let key = try Self.key.get()
        let cose = COSEPublicKey.keyAgreement(key)
        #expect(cose.algorithm == -25)
        #expect(cose.cbor == .map(Self.ec2Map(algorithm: -25, x: key.x, y: key.y)))
        #expect(Array(CBOREncoder.encode(cose.cbor).prefix(8)) == [0xA5, 0x01, 0x02, 0x03, 0x38, 0x18, 0x20, 0x01])
        #expect(try COSEPublicKey(cbor: cose.cbor) == cose)
    }

    @Test("an ES256 credential key reads back with its algorithm; a map without alg reads as 0")
    func es256() throws {
        let key = try Self.key.get()
        #expect(try COSEPublicKey(cbor: .map(Self.ec2Map(algorithm: -7, x: key.x, y: key.y))) == COSEPublicKey(algorithm: -7, publicKey: key))
        var withoutAlgorithm = Self.ec2Map(algorithm: -7, x: key.x, y: key.y)
        withoutAlgorithm[.int(3)] = nil
        #expect(try COSEPublicKey(cbor: .map(withoutAlgorithm)).algorithm == 0)
    }

    @Test("what is not an EC2 P-256 key is refused with its reason", arguments: [
        ("not a map", COSEKeyError.notAMap, "a COSE key that is not a map"),
        ("kty OKP", .keyTypeNotEC2, "a COSE key whose kty is not EC2"),
        ("no kty", .keyTypeNotEC2, "a COSE key whose kty is not EC2"),
        ("crv P-384", .curveNotP256, "a COSE key whose curve is not P-256"),
        ("x of 31 bytes", .coordinatesNot32Bytes, "a COSE key without 32-byte x and y coordinates"),
        ("no y", .coordinatesNot32Bytes, "a COSE key without 32-byte x and y coordinates"),
        ("off the curve", .pointNotOnCurve, "a COSE key whose point is not on P-256"),
    ])
    func refused(change: String, error: COSEKeyError, description: String) throws {
        let key = try Self.key.get()
        var map = Self.ec2Map(algorithm: -25, x: key.x, y: key.y)
        switch change {
        case "kty OKP": map[.int(1)] = .int(1)
        case "no kty": map[.int(1)] = nil
        case "crv P-384": map[.int(-1)] = .int(2)
        case "x of 31 bytes": map[.int(-2)] = .bytes(Array(key.x.dropFirst()))
        case "no y": map[.int(-3)] = nil
        case "off the curve": map[.int(-3)] = .bytes([UInt8](repeating: 1, count: 32))
        default: break
        }
        let value: CBORValue = change == "not a map" ? .bytes(key.x962) : .map(map)
        #expect(throws: error) { _ = try COSEPublicKey(cbor: value) }
        #expect(error.description == description)
    }

    @Test("a credential key of each key type: EC2, OKP and RSA members with their labels", arguments: [
        SignatureAlgorithm.es256, .es384, .edDSA, .rs256,
    ])
    func credentialKey(algorithm: SignatureAlgorithm) throws {
        var block: UInt64 = 0
        let key = try CredentialPrivateKey(algorithm: algorithm) { count in
            var bytes: [UInt8] = []
            while bytes.count < count {
                block += 1
                bytes += SHA256.hash(Array("COSETests \(block)".utf8))
            }
            return Array(bytes.prefix(count))
        }.publicKey
        let expected: CBORMap
        switch key.coseKey {
        case .ec2(let curve, let x, let y):
            expected = [.int(1): .int(2), .int(3): .int(algorithm.rawValue), .int(-1): .int(COSEEllipticCurve(curve).rawValue), .int(-2): .bytes(x), .int(-3): .bytes(y)]
        case .okp(let curve, let x):
            expected = [.int(1): .int(1), .int(3): .int(algorithm.rawValue), .int(-1): .int(COSEEllipticCurve(curve).rawValue), .int(-2): .bytes(x)]
        case .rsa(let n, let e):
            expected = [.int(1): .int(3), .int(3): .int(algorithm.rawValue), .int(-1): .bytes(n), .int(-2): .bytes(e)]
        }
        #expect(CBORValue(coseKey: key) == .map(expected))
        // Canonical bytes: the members in the order written above (1, 3, -1, -2, -3).
        #expect(CBOREncoder.encode(CBORValue(coseKey: key)) == CBOREncoder.encode(.map(expected)))
    }

    @Test("the registries' numbers: crv of each curve (IANA COSE Elliptic Curves), kty of each kind of key (RFC 9052, RFC 8230)")
    func registryNumbers() {
        let curves: [(EllipticCurve, Int)] = [(.p256, 1), (.p384, 2), (.p521, 3), (.ed25519, 6), (.secp256k1, 8)]
        #expect(curves.count == EllipticCurve.allCases.count)
        for (curve, number) in curves {
            #expect(COSEEllipticCurve(curve).rawValue == number)
            #expect(COSEEllipticCurve(rawValue: number)?.curve == curve)
            #expect(COSEEllipticCurve(curve).description == curve.description)
        }
        let types: [(PublicKeyType, Int)] = [(.okp, 1), (.ec2, 2), (.rsa, 3)]
        #expect(types.count == PublicKeyType.allCases.count)
        for (type, number) in types {
            #expect(COSEKeyType(type).rawValue == number)
            #expect(COSEKeyType(rawValue: number)?.publicKeyType == type)
        }
    }
}
