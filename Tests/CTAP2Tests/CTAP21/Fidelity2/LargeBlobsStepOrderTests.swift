import CardTestSupport
import CBOR
import CTAP2
import Testing
import FIDOWire
import TestSupport

/// authenticatorLargeBlobs' steps as CTAP 2.1 §6.10.2 numbers them: the offset first (step 1), a
/// read carries no PIN/UV auth (step 4.b), and the first fragment sets the write's state before
/// the sequence check and the authentication (steps 5.b.iv–v, then 5.d and 5.e).
@Suite("Fidelity 2: authenticatorLargeBlobs step order (CTAP 2.1 §6.10.2)")
struct LargeBlobsStepOrderTests {
    static let array = TestClient.serializedLargeBlobArray([.bytes([UInt8](repeating: 0xAB, count: 40))])

    @Test("CTAP 2.1 §6.10.2 step 1: \"If offset is not present in the input map, return CTAP1_ERR_INVALID_PARAMETER\" — for a read and a write")
    func offsetAbsent() throws {
        let client = try TestClient()
        #expect(client.send(CTAPByte.largeBlobs, [.int(1): .int(16)]).status == .invalidParameter)
        #expect(client.send(CTAPByte.largeBlobs, [.int(2): .bytes(Self.array), .int(4): .int(Self.array.count)]).status
                == .invalidParameter)
        #expect(client.send(CTAPByte.largeBlobs, [:]).status == .invalidParameter)
    }

    @Test("CTAP 2.1 §6.10.2 step 4.b: a read with pinUvAuthParam or pinUvAuthProtocol → INVALID_PARAMETER (with or without a PIN)",
          arguments: [false, true])
    func readWithPINUVAuth(pinSet: Bool) throws {
        let client = try TestClient()
        if pinSet { try client.setPIN() }
        let param: CBORValue = .bytes([UInt8](repeating: 1, count: 32))
        #expect(client.send(CTAPByte.largeBlobs, [.int(1): .int(16), .int(3): 0, .int(5): param, .int(6): 2]).status
                == .invalidParameter)
        #expect(client.send(CTAPByte.largeBlobs, [.int(1): .int(16), .int(3): 0, .int(5): param]).status == .invalidParameter)
        #expect(client.send(CTAPByte.largeBlobs, [.int(1): .int(16), .int(3): 0, .int(6): 2]).status == .invalidParameter)
        #expect(client.largeBlobGet(offset: 0, count: 16).status == .ok, "the same read without them is answered")
    }

    @Test("CTAP 2.1 §6.10.2 steps 5.b.iv–v before 5.e: a first fragment whose pinUvAuthParam fails still resets expectedNextOffset, so the write in progress ends (next fragment → INVALID_SEQ)",
          arguments: PlatformPIN.allCases)
    func firstFragmentSetsStateBeforeAuthentication(pinProtocol: PlatformPIN) throws {
        let client = try TestClient()
        try client.setPIN()
        let token = try client.token(Fixture.shortPIN, pinProtocol, permissions: PermissionBit.largeBlobWrite)
        let first = Array(Self.array[..<20])
        let rest = Array(Self.array[20...])
        #expect(client.largeBlobSet(first, offset: 0, length: Self.array.count, token: token).status == .ok)
        var forged = TestClient.largeBlobSetRequest(first, offset: 0, length: Self.array.count, token: token)
        forged[int: 5] = .bytes([UInt8](repeating: 0, count: pinProtocol == .one ? 16 : 32))
        #expect(client.send(CTAPByte.largeBlobs, forged).status == .pinAuthInvalid)
        #expect(client.largeBlobSet(rest, offset: 20, length: nil, token: token).status == .invalidSequence)
        // The array on the card is still the empty one.
        #expect(try client.readLargeBlobArray() == TestClient.serializedLargeBlobArray([]))
    }
}
