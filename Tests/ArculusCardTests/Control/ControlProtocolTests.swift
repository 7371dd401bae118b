import ArculusCard
import CardCrypto
import Foundation
import Testing
import VirtualReader
import FIDOWire
import JSONSupport
import TestSupport

@Suite("Control protocol: typed requests and responses, WebDriver credentials")
struct ControlProtocolTests {
    static func seed(_ rpId: String = "example.com", user: String = "alice", discoverable: Bool = true,
                     key: P256PrivateKey? = nil) -> CredentialSeed {
        CredentialSeed(rpId: rpId, user: CredentialUser(user), discoverable: discoverable, privateKey: key.map(CredentialPrivateKey.init))
    }

    static func requests() throws -> [ControlRequest] {
        let key = try P256PrivateKey()
        return [
            .status, .details, .tap(delay: 0.5), .tap(delay: 1), .remove, .insert,
            .addFault(Fault(.ctapError(0x2E), on: .ctap(.getAssertion), once: true)),
            .addFault(Fault(.statusWord(StatusWord(rawValue: 0x6A82)), on: .select)),
            .addFault(Fault(.flags(userPresent: false, userVerified: nil))),
            .addFault(Fault(.leaveField(away: .milliseconds(1500)), on: .u2fAuthenticate)),
            .addFault(Fault(.bogusSignature)), .addFault(Fault(.failNextWrite, once: false)), .addFault(Fault(.declinePresence)),
            .addFault(Fault(.delay(.milliseconds(250)), on: .ctap(.getAssertion))),
            .addFault(Fault(.statusWord(StatusWord(rawValue: 0x6A80)), on: .apdu([0x00, 0x99, 0x00, 0x00]))),
            .listFaults, .removeFault(id: 3), .clearFaults, .listCredentials,
            .addCredential(CredentialParameters(seed())),
            .addCredential(CredentialParameters(seed("example.org", user: "bob", discoverable: false, key: key),
                                                signCount: 7, credentialId: [1, 2, 3])),
            .removeCredential(id: [0xDE, 0xAD]),
            .pin(set: nil, retries: nil), .pin(set: "123456", retries: 3), .counter(set: nil), .counter(set: .max),
            .timing(nil), .timing(.realistic), .timing(.off),
            .clearPIN(retries: nil), .clearPIN(retries: 2), .presence(mode: nil), .presence(mode: .ask), .presence(mode: .decline),
            .answerPresence(id: 3, approve: false), .answerPresence(id: 1, approve: true),
        ]
    }

    @Test("every request survives its JSON: init(json:) reads back what json wrote")
    func roundTrip() throws {
        for request in try Self.requests() {
            let text = request.json.text
            #expect(try ControlRequest(json: try JSONValue(parsing: text)) == request, "\(text)")
            #expect(request.json["op"]?.stringValue == request.op)
        }
        #expect(Set(try Self.requests().map(\.op)) == Set(ControlRequest.operations))
    }

    @Test("the typed handler answers typed responses; the JSON handler writes them with ok and tag")
    func typedHandler() throws {
        let card = try VirtualCard()
        let handler = ControlChannelHandler(card: card, bridge: nil)
        guard case .counter(9) = try handler.handle(.counter(set: 9)) else { throw TestFailure("counter") }
        guard case .pin(let pin) = try handler.handle(.pin(set: "1234", retries: nil)) else { throw TestFailure("pin") }
        #expect(pin == ControlResponse.PINStatus(card: card))
        #expect(pin.isSet && pin.length == 4 && pin.retries == 8)
        #expect(throws: ControlChannelError.refused("this card is not on a reader (only a served card can be tapped, removed or inserted)")) {
            try handler.handle(.remove)
        }
        #expect(handler.handle(ControlRequest.counter(set: nil).json) == ["ok": true, "counter": 9])
    }

    // MARK: - WebDriver credentials

    /// A credential in WebDriver's virtual-authenticator shape (WebDriver §11.7).
    static func webDriver(_ key: P256PrivateKey, credentialId: String? = nil, signCount: Int = 0) throws -> JSONValue {
        let der = try #require(Data(base64Encoded: key.pemPKCS8.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()))
        func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        var object: [String: JSONValue] = [
            "isResidentCredential": true, "rpId": "example.com", "privateKey": .string(base64URL(der)),
            "userHandle": .string(base64URL(Data("alice".utf8))), "signCount": .integer(signCount),
        ]
        if let credentialId { object["credentialId"] = .string(credentialId) }
        return .object(object)
    }

    @Test("a WebDriver credential is accepted and printed back in WebDriver's names, key and all")
    func webDriverShape() throws {
        let card = try VirtualCard()
        try card.setSignatureCounter(5)
        let handler = ControlChannelHandler(card: card, bridge: nil)
        let key = try P256PrivateKey()
        let fixture = try Self.webDriver(key, signCount: 40)
        let answer = handler.handle(["op": "credentials.add", "credential": fixture])
        #expect(answer["ok"] == true, "\(answer)")
        let credential = try #require(answer["credential"])
        #expect(credential["isResidentCredential"] == true)
        #expect(credential["rpId"] == "example.com")
        #expect(credential["userHandle"] == fixture["userHandle"])
        #expect(credential["privateKey"] == fixture["privateKey"])
        #expect(credential["credentialId"] == credential["id"])
        #expect(credential["publicKeyHex"] == .string(key.publicKey.x962.hexString))
        // signCount raises the card's one counter, and every credential reports it.
        #expect(credential["signCount"] == 40)
        #expect(card.pinState.signatureCounter == 40)
        _ = try handler.handle(.addCredential(CredentialParameters(Self.seed(user: "bob"), signCount: 10)))
        #expect(card.pinState.signatureCounter == 40, "a lower signCount never lowers the counter")
        let listed = try #require(handler.handle(["op": "credentials.list"])["credentials"]?.arrayValue)
        #expect(listed.map { $0["signCount"] } == [40, 40])
        #expect(listed.first == credential)
    }

    @Test("credentialId: refused unless it names a discoverable credential the card holds as given")
    func credentialIdRule() throws {
        let card = try VirtualCard()
        let handler = ControlChannelHandler(card: card, bridge: nil)
        let key = try P256PrivateKey()
        let made = try Self.webDriver(key)
        let id = try #require(handler.handle(["op": "credentials.add", "credential": made])["credential"]?["credentialId"])

        // The same credential again, by its ID: nothing new, the counter raised.
        let again = try Self.webDriver(key, credentialId: id.stringValue, signCount: 3)
        let answer = handler.handle(["op": "credentials.add", "credential": again])
        #expect(answer["credential"]?["credentialId"] == id)
        #expect(card.credentials.count == 1)
        #expect(card.pinState.signatureCounter == 3)

        // Any other ID, or this one with other details, is refused naming the member; nothing changes.
        let foreign = try Self.webDriver(key, credentialId: "AAECAwQF")
        let otherKey = try Self.webDriver(try P256PrivateKey(), credentialId: id.stringValue)
        for refused in [foreign, otherKey] {
            let error = handler.handle(["op": "credentials.add", "credential": refused])
            #expect(error["ok"] == false)
            #expect(error["error"]?.stringValue?.hasPrefix("credential: credentialId ") == true, "\(error)")
            #expect(card.credentials.count == 1)
        }
        var nonDiscoverable = Self.seed(discoverable: false, key: key)
        nonDiscoverable.user = CredentialUser(id: Array("alice".utf8))
        let held = Data(card.credentials[0].id).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        #expect(throws: ControlChannelError.refused(
            "credential: credentialId \(held) is not a discoverable credential this card holds with these details, and the card "
                + "cannot take a chosen ID: it mints each ID by wrapping the key under its own secret. Leave credentialId out "
                + "and use the ID in the answer.")) {
            try card.add(CredentialParameters(nonDiscoverable, credentialId: card.credentials[0].id))
        }
    }

    static let badCredentials: [(JSONValue, String)] = [
        (["rpId": "a.example", "discoverable": true, "isResidentCredential": false],
         "bad request: credential: discoverable and isResidentCredential disagree"),
        (["rpId": "a.example", "userId": "YWxpY2U", "userHandle": "Ym9i"], "bad request: credential: userId and userHandle disagree"),
        (["rpId": "a.example", "privateKey": "AAAA"], "bad request: credential: privateKey is not base64url of an unencrypted PKCS#8"),
        (["rpId": "a.example", "privateKeyPEM": "x", "privateKey": "AAAA"], "bad request: credential: privateKeyPEM and privateKey"),
        (["rpId": "a.example", "signCount": -1], "bad request: credential: signCount must be 0 to 4294967295"),
        (["rpId": "a.example", "signCount": 1.5], "bad request: credential: signCount must be a whole number"),
        (["rpId": "a.example", "credentialId": "!"], "bad request: credential: credentialId is not base64url"),
        (["rpId": "a.example", "largeBlob": "AA"], "bad request: credential has no member largeBlob"),
    ]

    @Test("bad credential members are errors naming the member", arguments: badCredentials)
    func badCredential(credential: JSONValue, error: String) throws {
        let card = try VirtualCard()
        let answer = ControlChannelHandler(card: card, bridge: nil).handle(["op": "credentials.add", "credential": credential])
        let message = try #require(answer["error"]?.stringValue)
        #expect(message.hasPrefix(error), "\(message)")
        #expect(card.credentials.isEmpty)
    }
}
