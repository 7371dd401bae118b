import CBOR
import Testing

@testable import CTAP2

/// The assertion answer is written member by member (no CBOR tree); it must be byte for byte
/// what the canonical encoder makes of the tree, for every member a response can carry.
@Suite("getAssertion responses written directly")
struct ResponseEncodingTests {
    static let users: [CredentialUser?] = [
        nil, CredentialUser(id: [0x75]), CredentialUser(id: Array(repeating: 0xAB, count: 64), name: "alice@example.com",
                                                      displayName: "Alice Ä"),
    ]

    @Test("encode(into:) is CBOREncoder.encode(encoded())", arguments: 0..<24)
    func sameBytes(combination: Int) {
        let user = Self.users[combination % 3]
        let numberOfCredentials = [nil, 2, 1_000][(combination / 3) % 3]
        let largeBlobKey: [UInt8]? = combination / 9 == 1 ? Array(repeating: 0x42, count: 32) : nil
        let idLength = [16, 23, 24, 255, 256][combination % 5]
        let response = GetAssertionResponse(
            credential: CredentialDescriptor(id: (0..<idLength).map { UInt8(truncatingIfNeeded: $0) }),
            authData: Array(repeating: 0x11, count: 37 + combination), signature: Array(repeating: 0x30, count: 70 + combination % 3),
            user: user, numberOfCredentials: numberOfCredentials, largeBlobKey: largeBlobKey)
        var direct: [UInt8] = [0x00]
        response.encode(into: &direct)
        #expect(direct == [0x00] + CBOREncoder.encode(response.encoded()))
        var viaBody: [UInt8] = []
        ResponseBody.assertion(response).encode(into: &viaBody)
        #expect(viaBody == CBOREncoder.encode(response.encoded()))
    }

    @Test("a descriptor of another type, or with transports, encodes as its tree",
          arguments: ["", "a", "ab", "id", "ia", "abc", "public-key"], [false, true])
    func descriptor(type: String, transports: Bool) {
        let descriptor = CredentialDescriptor(type: type, id: [1, 2, 3], transports: transports ? [.text("nfc")] : nil)
        var direct: [UInt8] = []
        descriptor.encode(into: &direct)
        #expect(direct == CBOREncoder.encode(descriptor.encoded))
    }

    @Test("the empty body is no bytes; a tree is its canonical encoding")
    func otherBodies() {
        var empty: [UInt8] = [0x00]
        ResponseBody.empty.encode(into: &empty)
        #expect(empty == [0x00])
        var tree: [UInt8] = []
        ResponseBody.value(.map([.int(2): .int(1), .int(1): .text("x")])).encode(into: &tree)
        #expect(tree == [0xA2, 0x01, 0x61, 0x78, 0x02, 0x01])
    }
}
