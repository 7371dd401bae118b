import ArculusCard
import CardCrypto
import Foundation
import JSONSupport
import Testing
import VirtualReader
import FIDOWire
import TestSupport

/// The state control sees every credential, of every algorithm the profile has: one made over
/// CTAP with EdDSA on the reference card is listed (with its algorithm and key) and counted, and
/// a reset empties the list; preloading takes every algorithm the profile has, and only those.
@Suite("State control: credentials of every algorithm")
struct EveryAlgorithmCredentialTests {
    /// A discoverable makeCredential over CTAP for `algorithm`.
    static func makeCredential(on card: VirtualCard, algorithm: SignatureAlgorithm, userId: [UInt8]) throws -> [UInt8] {
        var parameters = makeCredentialParameters(userId: userId, rk: true)
        parameters[int: 4] = .array([.map(["alg": .int(algorithm.rawValue), "type": "public-key"])])
        return try credentialID(from: try card.send(.makeCredential, parameters).okBody())
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func credentialID(from body: CBORMap) throws -> [UInt8] {
        guard let authData = body[int: 2]?.bytesValue, authData.count > 55 else { throw TestFailure("no authData") }
        let length = Int(authData[53]) << 8 | Int(authData[54])
        return Array(authData[55..<55 + length])
    }

    @Test("an Ed25519 resident key made over CTAP on ctap-reference is listed with its algorithm and key, counted, and gone after a reset")
    func madeOverCTAP() throws {
        let card = try VirtualCard(profile: .reference)
        let es256 = try Self.makeCredential(on: card, algorithm: .es256, userId: [1])
        let edDSA = try Self.makeCredential(on: card, algorithm: .edDSA, userId: [2])
        #expect(card.credentialRecords.map(\.id) == [es256, edDSA])
        #expect(card.credentialRecords.map(\.algorithm) == [.es256, .edDSA])
        let listing = try #require(card.credentialListings.last)
        #expect(listing.json["algorithm"] == .int(-8))
        #expect(listing.json["algorithmName"] == .string("EdDSA"))
        #expect(listing.privateKey?.algorithm == .edDSA)
        #expect(listing.json["publicKeyHex"]?.stringValue?.count == 64, "an Ed25519 key's 32 bytes")
        let assertion = try Assertion(card.send(.getAssertion, ControlAPDU.getAssertion(allow: edDSA)))
        #expect(assertion.verifies(with: listing.record.publicKey))
        #expect(ControlResponse.Status(card: card, bridge: nil).credentials == 2)
        #expect(try card.send(.reset).status == .ok)
        #expect(card.credentialRecords.isEmpty && card.credentialListings.isEmpty)
        #expect(ControlResponse.Status(card: card, bridge: nil).credentials == 0)
    }

    @Test("preloading takes every algorithm the profile has: drawn or given, discoverable or not; the card signs with it",
          arguments: [SignatureAlgorithm.edDSA, .es384, .es512, .es256k, .rs256, .ps256])
    func preloaded(algorithm: SignatureAlgorithm) throws {
        let card = try VirtualCard(profile: .reference)
        let drawn = try card.addCredential(CredentialSeed(rpId: "example.com", user: CredentialUser("alice"), algorithm: algorithm))
        #expect(drawn.algorithm == algorithm)
        #expect(card.credentialRecords.map(\.algorithm) == [algorithm])
        let assertion = try Assertion(card.send(.getAssertion, ControlAPDU.getAssertion(allow: drawn.id)))
        #expect(assertion.verifies(with: drawn.publicKey))
        var stream = SystemRandomNumberGenerator()
        let given = try CredentialPrivateKey(algorithm: algorithm, randomBytes: { count in (0..<count).map { _ in UInt8.random(in: 0...255, using: &stream) } })
        // A given key rides in a non-discoverable credential's ID; an RSA key is too large for
        // one, so it must be discoverable.
        var seed = CredentialSeed(rpId: "example.com", user: CredentialUser("bob"), discoverable: false, privateKey: given)
        if algorithm.keyType == .rsa {
            #expect {
                try card.addCredential(seed)
            } throws: { error in
                "\(error)".contains("does not fit a non-discoverable credential ID")
            }
            seed.discoverable = true
        }
        let record = try card.addCredential(seed)
        #expect(record.publicKey == given.publicKey)
        let signed = try Assertion(card.send(.getAssertion, ControlAPDU.getAssertion(allow: record.id)))
        #expect(signed.verifies(with: given.publicKey))
    }

    @Test("the control protocol's JSON (and WebDriver's privateKey) names the algorithm: a drawn EdDSA key by name or number, a given key by its own")
    func json() throws {
        let card = try VirtualCard(profile: .reference)
        for algorithm: JSONValue in ["EdDSA", -8] {
            let parameters = try CredentialParameters(json: ["rpId": "example.com", "userName": "a", "userId": "YQ", "algorithm": algorithm])
            #expect(parameters.seed.keyAlgorithm == .edDSA)
            #expect(try card.add(parameters).json["algorithm"] == .int(-8))
        }
        let key = try CredentialPrivateKey(algorithm: .es384, randomBytes: { [UInt8](repeating: 7, count: $0) })
        let webDriver = try CredentialParameters(json: [
            "rpId": "example.com", "userHandle": "Yg", "isResidentCredential": true,
            "privateKey": .string(Self.base64URL(key.pkcs8DER)),
        ])
        #expect(try card.add(webDriver).json["algorithmName"] == .string("ES384"))
        #expect(throws: ControlChannelError.self) {
            try CredentialParameters(json: ["rpId": "example.com", "userId": "Yw", "algorithm": "ES999"])
        }
    }

    @Test("a profile without the algorithm refuses it, naming the algorithms it has (arculus-fido21: ES256 only)")
    func refusedWhereAbsent() throws {
        let card = try VirtualCard()
        #expect {
            try card.addCredential(CredentialSeed(rpId: "example.com", user: CredentialUser("alice"), algorithm: .edDSA))
        } throws: { error in
            "\(error)".contains("has no EdDSA credentials (it offers ES256)")
        }
        #expect(card.credentialRecords.isEmpty)
    }
}
