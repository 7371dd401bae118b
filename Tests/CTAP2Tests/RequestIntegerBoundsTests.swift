import CBOR
import CTAP2
import Testing
import FIDOWire
import TestSupport

/// Lengths, offsets and counts that come from a request reach the card's arithmetic as CBOR
/// integers of up to 64 bits: each is compared before it is converted or added, so the largest
/// ones get the status the specification names and never a trap (which would take every card
/// of the process down).
@Suite("Request integers at their bounds: the spec's error, never a trap")
struct RequestIntegerBoundsTests {
    /// Integers no field of any request can hold: 2^64 − 1, 2^63, 2^63 − 1, −2^64.
    static let extremes: [CBORValue] = [.unsigned(UInt64.max), .unsigned(1 << 63), .unsigned(UInt64(Int.max)), .negative(UInt64.max)]

    @Test("CTAP 2.1 §6.10.2 large-blob reads: a get beyond maxFragmentLength → INVALID_LENGTH (step 4.b), an offset beyond the array → INVALID_PARAMETER (step 4.c), whatever their size")
    func largeBlobReads() throws {
        let client = try TestClient(profile: .reference)
        let before = client.authenticator.state
        for count in [UInt64.max, 1 << 63, UInt64(Int.max) - 64, 1985] {
            #expect(client.send(CTAPByte.largeBlobs, [.int(1): .unsigned(count), .int(3): 0]).bytes == [CTAPStatus.invalidLength.rawValue])
            #expect(client.send(CTAPByte.largeBlobs, [.int(1): .unsigned(count), .int(3): .unsigned(UInt64.max)]).status
                    == .invalidLength, "the length is judged first")
        }
        for offset in [UInt64.max, 1 << 63, UInt64(Int.max), 18] {
            #expect(client.send(CTAPByte.largeBlobs, [.int(1): 1, .int(3): .unsigned(offset)]).bytes
                    == [CTAPStatus.invalidParameter.rawValue])
        }
        #expect(client.authenticator.state == before)
    }

    @Test("CTAP 2.1 §6.10.2 large-blob writes: a length beyond maxSerializedLargeBlobArray → LARGE_BLOB_STORAGE_FULL (5.b.i), an offset that is not the next → INVALID_SEQ (5.d), a fragment past the length → INVALID_PARAMETER (5.f); nothing stored")
    func largeBlobWrites() throws {
        let client = try TestClient(profile: .reference)
        let before = client.authenticator.state
        let fragment = [UInt8](repeating: 0x5A, count: 40)
        for length in [UInt64.max, 1 << 63, UInt64(Int.max), 4097] {
            #expect(client.send(CTAPByte.largeBlobs, [.int(2): .bytes(fragment), .int(3): 0, .int(4): .unsigned(length)]).status
                    == .largeBlobStorageFull)
        }
        for offset in [UInt64.max, 1 << 63, UInt64(Int.max)] {
            #expect(client.send(CTAPByte.largeBlobs, [.int(2): .bytes(fragment), .int(3): .unsigned(offset)]).status == .invalidSequence,
                    "no write in progress")
        }
        #expect(client.largeBlobSet(fragment, offset: 0, length: 60, token: nil).status == .ok)
        for offset in [UInt64.max, 1 << 63, UInt64(Int.max), 41] {
            #expect(client.send(CTAPByte.largeBlobs, [.int(2): .bytes(fragment), .int(3): .unsigned(offset)]).status == .invalidSequence)
        }
        #expect(client.largeBlobSet(fragment, offset: 0, length: 60, token: nil).status == .ok, "an offset-0 fragment starts again")
        #expect(client.largeBlobSet(fragment, offset: 40, length: nil, token: nil).status == .invalidParameter, "40 + 40 > 60")
        #expect(client.authenticator.state == before)
    }

    @Test("CTAP 2.1 §6.5.5: pinUvAuthProtocol 2^64 − 1 → INVALID_PARAMETER; subCommand 2^64 − 1 → INVALID_SUBCOMMAND")
    func clientPIN() throws {
        let client = try TestClient(profile: .reference)
        for value in [UInt64.max, 1 << 63, UInt64(Int.max), 3] {
            #expect(client.clientPIN([.int(1): .unsigned(value), .int(2): 2]).status == .invalidParameter)
        }
        for value in [UInt64.max, 1 << 63, UInt64(Int.max), 0xFF] {
            #expect(client.clientPIN([.int(1): 2, .int(2): .unsigned(value)]).status == .invalidSubcommand)
        }
    }

    @Test("CTAP 2.1 §6.11.4: newMinPINLength 2^64 − 1 → PIN_POLICY_VIOLATION, the minimum unchanged")
    func setMinPINLength() throws {
        let client = try TestClient(profile: .reference)
        for value in [UInt64.max, 1 << 63, UInt64(Int.max), 64] {
            #expect(client.config(0x03, parameters: [.int(1): .unsigned(value)], token: nil).status == .pinPolicyViolation)
        }
        #expect(try client.getInfo()[int: 0x0D] == .int(4))
    }

    @Test("CTAP 2.1 §6.8: credentialManagement subCommand 2^64 − 1 → INVALID_SUBCOMMAND; §6.1.2 step 9: enterpriseAttestation 2^64 − 1 → INVALID_OPTION; step 2.1: pinUvAuthProtocol 2^64 − 1 → INVALID_PARAMETER")
    func otherCommands() throws {
        let client = try TestClient(profile: .reference)
        #expect(client.config(0x01, token: nil).status == .ok, "enterprise attestation enabled")
        let before = client.authenticator.state
        for value in [UInt64.max, 1 << 63, UInt64(Int.max)] {
            #expect(client.send(CTAPByte.credentialManagement, [.int(1): .unsigned(value)]).status == .invalidSubcommand)
            var request = TestClient.makeCredentialRequest()
            request[int: 0x0A] = .unsigned(value)
            #expect(client.makeCredential(request).status == .invalidOption)
            request = TestClient.makeCredentialRequest()
            request[int: 8] = .bytes([UInt8](repeating: 0, count: 32))
            request[int: 9] = .unsigned(value)
            #expect(client.makeCredential(request).status == .invalidParameter)
            var assertion = TestClient.getAssertionRequest()
            assertion[int: 6] = .bytes([UInt8](repeating: 0, count: 32))
            assertion[int: 7] = .unsigned(value)
            #expect(client.getAssertion(assertion).status == .invalidParameter)
        }
        #expect(client.authenticator.state == before)
    }

    /// Each command's well-formed request, to have its members replaced one at a time.
    static func requests() -> [(UInt8, CBORMap)] {
        [
            (CTAPByte.makeCredential, TestClient.makeCredentialRequest(extensions: ["credProtect": 2, "credBlob": .bytes([1])])),
            (CTAPByte.getAssertion, TestClient.getAssertionRequest(allowList: [[UInt8](repeating: 7, count: 81)])),
            (CTAPByte.clientPIN, [.int(1): 2, .int(2): 2]),
            (CTAPByte.credentialManagement, [.int(1): 1, .int(3): 2, .int(4): .bytes([UInt8](repeating: 0, count: 32))]),
            (0x41, [.int(1): 1, .int(3): 2, .int(4): .bytes([UInt8](repeating: 0, count: 32))]),
            (CTAPByte.largeBlobs, [.int(1): 16, .int(3): 0]),
            (CTAPByte.largeBlobs, [.int(2): .bytes([1, 2, 3]), .int(3): 0, .int(4): 20]),
            (CTAPByte.config, [.int(1): 3, .int(2): .map([.int(1): 6])]),
        ]
    }

    @Test("every extension input of makeCredential and getAssertion, and hmac-secret's members, as each extreme integer: the card answers a CTAP status")
    func extensionSweep() throws {
        let client = try TestClient(profile: .reference)
        let names = ["credProtect", "credBlob", "getCredBlob", "hmac-secret", "hmac-secret-mc", "largeBlobKey", "minPinLength",
                     "thirdPartyPayment", "uvm"]
        for value in Self.extremes {
            for name in names {
                let made = client.makeCredential(TestClient.makeCredentialRequest(extensions: [.text(name): value], options: ["rk": true]))
                #expect(made.status != nil, "makeCredential {\(name): \(value)}: \(made)")
                let asserted = client.getAssertion(TestClient.getAssertionRequest(extensions: [.text(name): value]))
                #expect(asserted.status != nil, "getAssertion {\(name): \(value)}: \(asserted)")
            }
            for key in 1...5 {
                var salts: CBORMap = [.int(2): .bytes([UInt8](repeating: 0, count: 32)), .int(3): .bytes([UInt8](repeating: 0, count: 16))]
                salts[int: key] = value
                let asserted = client.getAssertion(TestClient.getAssertionRequest(extensions: ["hmac-secret": .map(salts)]))
                #expect(asserted.status != nil, "hmac-secret {\(key): \(value)}: \(asserted)")
            }
        }
    }

    @Test("every member of every command that takes parameters, and members 1–16 it lacks, replaced by each extreme integer: the card answers a CTAP status")
    func sweep() throws {
        for profile in CardProfile.builtIn {
            let client = try TestClient(profile: profile)
            for (command, request) in Self.requests() {
                for key in 1...16 {
                    for value in Self.extremes {
                        var hostile = request
                        hostile[int: key] = value
                        let reply = client.send(command, hostile)
                        #expect(reply.status != nil, "\(profile.name) 0x\(String(command, radix: 16)) {\(key): \(value)}: \(reply)")
                    }
                }
            }
        }
    }
}
