import CardCrypto
import Foundation
import Testing

/// Loads the JSON vector files in Vectors/ beside this file (found through `#filePath`, like the
/// other test targets find `Fixtures/`).
enum VectorFile {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Vectors")

    static func load<T: Decodable>(_ name: String, as type: T.Type = T.self) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(contentsOf: directory.appendingPathComponent(name)))
    }
}

/// A deterministic byte stream standing in for a seeded card's entropy: SHA-256(seed ‖ counter)
/// blocks, handed out in order.
final class SeededStream {
    private let seed: [UInt8]
    private var counter: UInt64 = 0
    private var buffer: [UInt8] = []
    /// How many bytes have been handed out.
    private(set) var consumed = 0

    init(_ seed: String) {
        self.seed = Array(seed.utf8)
    }

    func bytes(_ count: Int) -> [UInt8] {
        while buffer.count < count {
            let counterBytes = (0..<8).map { UInt8(truncatingIfNeeded: counter >> (56 - 8 * $0)) }
            buffer += SHA256.hash(seed + counterBytes)
            counter += 1
        }
        let out = Array(buffer.prefix(count))
        buffer.removeFirst(count)
        consumed += count
        return out
    }
}

/// One generated key per algorithm, shared by the suites (RSA generation costs tens of milliseconds).
enum TestKeys {
    private static let keys = Result<[SignatureAlgorithm: CredentialPrivateKey], any Error> {
        var keys: [SignatureAlgorithm: CredentialPrivateKey] = [:]
        for algorithm in SignatureAlgorithm.allCases {
            let stream = SeededStream("test key \(algorithm.name)")
            keys[algorithm] = try CredentialPrivateKey(algorithm: algorithm, randomBytes: stream.bytes)
        }
        return keys
    }

    static func key(_ algorithm: SignatureAlgorithm) throws -> CredentialPrivateKey {
        guard let key = try keys.get()[algorithm] else {
            throw CryptoError(function: "TestKeys", reason: "no key for \(algorithm)")
        }
        return key
    }
}

/// The base64 body of a PEM block, decoded.
func pemBody(_ pem: String) -> [UInt8] {
    let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
    return Data(base64Encoded: body).map { Array($0) } ?? []
}

/// Expects `body` to fail in the OpenSSL call `function` with OpenSSL's error `code` (packed as
/// `ERR_get_error` returns it: library and reason). The reason text is OpenSSL's own, not
/// CardCrypto's, so the code stands for it.
func expectOpenSSLFailure(_ function: String, code: UInt, sourceLocation: SourceLocation = #_sourceLocation,
                          _ body: () throws -> Void) {
    let error = #expect(throws: CryptoError.self, sourceLocation: sourceLocation) { try body() }
    #expect(error?.function == function, "\(String(describing: error))", sourceLocation: sourceLocation)
    #expect(error?.openSSLCode == code, "\(String(describing: error))", sourceLocation: sourceLocation)
}

/// OpenSSL 3 error codes the tests expect (library and reason, as `ERR_get_error` packs them).
enum OpenSSLCode {
    static let pointNotOnCurve: UInt = 0x0800_006B       // EC: point is not on curve
    static let invalidEncoding: UInt = 0x0800_0066       // EC: invalid encoding (a coordinate not below p)
    static let asn1TooLong: UInt = 0x0680_009B           // ASN.1: too long (DER cut short)
    static let asn1FirstNumTooLarge: UInt = 0x0680_007A  // ASN.1: first num too large (a malformed OID)
    static let pemNoStartLine: UInt = 0x0480_006C        // PEM: no start line
    static let decoderUnsupported: UInt = 0x1E08_010C    // DECODER: unsupported
    static let unknownObjectName: UInt = 0x0400_0067     // OBJ: unknown object name
}
