import CBOR
import Testing

@testable import CTAP2

/// The assertion answer is written member by member (no CBOR tree); it must be byte for byte
/// what the canonical encoder makes of the same members as a tree, for every member a response
/// can carry.
@Suite("getAssertion responses written directly")
struct ResponseEncodingTests {
    static let users: [CredentialUser?] = [
        nil, CredentialUser(id: [0x75]), CredentialUser(id: Array(repeating: 0xAB, count: 64), name: "alice@example.com",
                                                      displayName: "Alice Ä"),
    ]

    /// The members as a tree, built here from the specification's key numbers and names.
    static func tree(_ descriptor: CredentialDescriptor) -> CBORValue {
        var map: CBORMap = ["id": .bytes(descriptor.id), "type": .text(descriptor.type)]
        if let transports = descriptor.transports { map["transports"] = .array(transports) }
        return .map(map)
    }

    static func tree(_ user: CredentialUser) -> CBORValue {
        var map: CBORMap = ["id": .bytes(user.id)]
        if let name = user.name { map["name"] = .text(name) }
        if let displayName = user.displayName { map["displayName"] = .text(displayName) }
        return .map(map)
    }

    static func tree(_ response: GetAssertionResponse) -> CBORValue {
        var map: CBORMap = [1: tree(response.credential), 2: .bytes(response.authData), 3: .bytes(response.signature)]
        if let user = response.user { map[4] = tree(user) }
        if let count = response.numberOfCredentials { map[5] = .int(count) }
        if let key = response.largeBlobKey { map[7] = .bytes(key) }
        return .map(map)
    }

    @Test("the written answer is CBOREncoder.encode of its tree", arguments: 0..<24)
    func sameBytes(combination: Int) {
        let user = Self.users[combination % 3]
        let numberOfCredentials = [nil, 2, 1_000][(combination / 3) % 3]
        let largeBlobKey: [UInt8]? = combination / 9 == 1 ? Array(repeating: 0x42, count: 32) : nil
        let idLength = [16, 23, 24, 255, 256][combination % 5]
        let response = GetAssertionResponse(
            credential: CredentialDescriptor(id: (0..<idLength).map { UInt8(truncatingIfNeeded: $0) }),
            authData: Array(repeating: 0x11, count: 37 + combination), signature: Array(repeating: 0x30, count: 70 + combination % 3),
            user: user, numberOfCredentials: numberOfCredentials, largeBlobKey: largeBlobKey)
        #expect(response.encoded() == CBOREncoder.encode(Self.tree(response)))
        var viaBody = CBORWriter()
        ResponseBody.assertion(response).write(to: &viaBody)
        #expect(viaBody.bytes == CBOREncoder.encode(Self.tree(response)))
    }

    @Test("a descriptor of any type, with or without transports, is its tree",
          arguments: ["", "a", "ab", "id", "ia", "abc", "public-key"], [false, true])
    func descriptor(type: String, transports: Bool) {
        let descriptor = CredentialDescriptor(type: type, id: [1, 2, 3], transports: transports ? [.text("nfc")] : nil)
        #expect(descriptor.encoded() == CBOREncoder.encode(Self.tree(descriptor)))
    }

    @Test("the empty body is no bytes; a message is its own bytes")
    func otherBodies() {
        var empty = CBORWriter()
        ResponseBody.empty.write(to: &empty)
        #expect(empty.bytes.isEmpty)
        var message = CBORWriter()
        ResponseBody.message(LargeBlobsResponse(config: [7])).write(to: &message)
        #expect(message.bytes == [0xA1, 0x01, 0x41, 0x07])
        var none = CBORWriter()
        ResponseBody.message(nil as LargeBlobsResponse?).write(to: &none)
        #expect(none.bytes.isEmpty)
    }
}
