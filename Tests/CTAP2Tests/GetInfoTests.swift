import CBOR
import CTAP2
import Testing
import TestSupport

/// What each built-in profile must report, written from the card models' published facts
/// (CTAP 2.1 §6.4 member numbers).
struct ExpectedInfo: Sendable, CustomTestStringConvertible {
    let profile: CardProfile
    let versions: [String]
    let aaguid: String
    let pinUvAuthProtocols: [Int]
    let isCTAP21: Bool
    let extensions: Set<String>

    var testDescription: String { profile.name }

    static let all = [
        ExpectedInfo(profile: .arculusFIDO21, versions: ["U2F_V2", "FIDO_2_0", "FIDO_2_1"],
                     aaguid: "3f59672f-20aa-4afe-b6f4-7e5e916b6d98", pinUvAuthProtocols: [2, 1], isCTAP21: true,
                     extensions: ["credProtect", "hmac-secret", "largeBlobKey"]),
        ExpectedInfo(profile: .arculusFIDO2, versions: ["U2F_V2", "FIDO_2_0"],
                     aaguid: "9d3df6ba-282f-11ed-a261-0242ac120002", pinUvAuthProtocols: [1], isCTAP21: false,
                     extensions: ["credProtect", "hmac-secret"]),
    ]
}

@Suite("authenticatorGetInfo")
struct GetInfoTests {
    @Test("members 0x01-0x08 for each profile", arguments: ExpectedInfo.all)
    func coreMembers(expected: ExpectedInfo) throws {
        let client = try TestClient(profile: expected.profile)
        let info = try client.getInfo()
        #expect(info[int: 1] == .array(expected.versions.map { .text($0) }))
        let extensions = try #require(info[int: 2]?.arrayValue)
        #expect(Set(extensions.compactMap(\.textValue)) == expected.extensions)
        #expect(extensions.count == expected.extensions.count)
        #expect(info[int: 3] == .bytes(try aaguidBytes(expected.aaguid)))
        #expect(info[int: 5]?.intValue.map { $0 >= 1024 } == true, "maxMsgSize is at least 1024 (CTAP 2.1 §6.4)")
        #expect(info[int: 6] == .array(expected.pinUvAuthProtocols.map { .int($0) }))
        #expect(info[int: 7]?.intValue.map { $0 >= 1 } == true)
        #expect(info[int: 8]?.intValue.map { $0 >= 1 } == true)
    }

    @Test("options: plat false, rk and up true, no built-in uv, 2.1-only options only on FIDO_2_1", arguments: ExpectedInfo.all)
    func options(expected: ExpectedInfo) throws {
        let client = try TestClient(profile: expected.profile)
        let options = try #require(try client.getInfo()[int: 4]?.mapValue)
        #expect(options[text: "plat"] == false)
        #expect(options[text: "rk"] == true)
        #expect(options[text: "up"] == true)
        #expect(options[text: "uv"] == nil, "the card has no built-in user verification")
        #expect(options[text: "clientPin"] == false)
        if expected.isCTAP21 {
            #expect(options[text: "credMgmt"] == true)
            #expect(options[text: "pinUvAuthToken"] == true)
            #expect(options[text: "makeCredUvNotRqd"] == true)
        } else {
            #expect(options[text: "credMgmt"] == nil)
            #expect(options[text: "pinUvAuthToken"] == nil)
            #expect(options[text: "makeCredUvNotRqd"] == nil)
        }
    }

    @Test("clientPin turns from false to true once a PIN is set", arguments: ExpectedInfo.all)
    func clientPinOption(expected: ExpectedInfo) throws {
        let client = try TestClient(profile: expected.profile)
        #expect(try client.getInfo()[int: 4]?.mapValue?[text: "clientPin"] == false)
        #expect(try client.setPIN().status == .ok)
        #expect(try client.getInfo()[int: 4]?.mapValue?[text: "clientPin"] == true)
    }

    @Test("members 0x09 and up exist only on FIDO_2_1", arguments: ExpectedInfo.all)
    func ctap21Members(expected: ExpectedInfo) throws {
        let client = try TestClient(profile: expected.profile)
        let info = try client.getInfo()
        let highKeys = info.keys.compactMap(\.intValue).filter { $0 >= 0x09 }
        if expected.isCTAP21 {
            #expect(info[int: 0x09] == .array(["nfc"]))
            #expect(info[int: 0x0A] == .array([.map(["alg": .int(-7), "type": "public-key"])]))
            #expect(info[int: 0x0C] == false, "forcePINChange")
            #expect(info[int: 0x0D] == .int(4), "minPINLength")
            #expect(info[int: 0x0E]?.intValue != nil, "firmwareVersion")
            #expect(info[int: 0x14] == .int(expected.profile.residentKeyCapacity),
                    "remainingDiscoverableCredentials of a blank card")
        } else {
            #expect(highKeys.isEmpty, "a CTAP 2.0 card answers only members 0x01-0x08, got \(highKeys)")
        }
    }

    @Test("remainingDiscoverableCredentials goes down with each discoverable credential")
    func remainingDiscoverableCredentials() throws {
        let client = try TestClient()
        let before = try #require(try client.getInfo()[int: 0x14]?.intValue)
        _ = try client.makeCredential(userId: [1], rk: true)
        _ = try client.makeCredential(userId: [2], rk: false)
        #expect(try client.getInfo()[int: 0x14]?.intValue == before - 1)
    }

    @Test("the response is canonical CBOR (keys in canonical order)")
    func canonical() throws {
        let client = try TestClient()
        let reply = client.send(CTAPByte.getInfo)
        let body = Array(reply.bytes.dropFirst())
        #expect(CBOREncoder.encode(try CBORDecoder.decode(body)) == body)
    }
}
