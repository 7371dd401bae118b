import ArculusCard
import CardCrypto
import Foundation
import Testing
import VirtualReader
import FIDOWire
import JSONSupport
import TestSupport

@Suite("Control channel: requests and the Unix socket")
struct ControlChannelTests {
    /// A handler over a fresh card (no reader).
    static func handler() throws -> (ControlChannelHandler, VirtualCard) {
        let card = try VirtualCard()
        return (ControlChannelHandler(card: card, bridge: nil), card)
    }

    static func ok(_ answer: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        guard answer["ok"] == true else {
            throw TestFailure("expected ok, got \(answer.text)")
        }
        return answer
    }

    @Test("status, pin, counter and timing requests read and set the card")
    func stateRequests() throws {
        let (handler, card) = try Self.handler()
        let status = try Self.ok(handler.handle(["op": "status"]))
        #expect(status["profile"] == "arculus-fido21")
        #expect(status["inField"] == true)
        #expect(status["onReader"] == nil)
        let pin = try Self.ok(handler.handle(["op": "pin", "set": "123456", "retries": 3]))
        #expect(pin["pin"] == ["isSet": true, "retries": 3, "length": 6, "minLength": 4, "blocked": false,
                               "blockedUntilPowerCycle": false])
        #expect(card.pinState.retries == 3)
        #expect(try Self.ok(handler.handle(["op": "counter", "set": 77]))["counter"] == 77)
        #expect(card.pinState.signatureCounter == 77)
        let timing = try Self.ok(handler.handle(["op": "timing", "profile": "realistic"]))
        #expect(timing["timing"]?["signatureMs"] == 110)
        #expect(card.timing == .realistic)
    }

    @Test("details shows what the card holds and no key: identity, PIN policy, credentials, faults")
    func details() throws {
        let (handler, card) = try Self.handler()
        _ = try Self.ok(handler.handle(["op": "pin", "set": "123456"]))
        let added = try Self.ok(handler.handle(["op": "credentials.add", "credential": [
            "rpId": "example.com", "rpName": "Example", "userIdHex": "0102", "userName": "ada", "credProtect": 2]]))
        _ = try Self.ok(handler.handle(["op": "fault.add", "fault": ["effect": "bogus-signature"]]))
        let details = try Self.ok(handler.handle(["op": "details"]))
        #expect(details["status"]?["pin"]?["isSet"] == true)
        #expect(details["info"]?["aaguid"]?.stringValue?.split(separator: "-").map(\.count) == [8, 4, 4, 4, 12])
        #expect(details["info"]?["versions"]?.arrayValue?.contains("FIDO_2_1") == true)
        #expect(details["info"]?["options"]?.arrayValue?.contains(["name": "clientPin", "value": true]) == true)
        #expect(details["info"]?["forcePINChange"] == false)
        #expect(details["info"]?["minPINLength"] == 4)
        #expect(details["token"] == .null)
        #expect(details["image"] == .null)
        let credential = try #require(details["credentials"]?.arrayValue?.first)
        #expect(credential["id"] == added["credential"]?["id"])
        #expect(credential["rpName"] == "Example")
        #expect(credential["userName"] == "ada")
        #expect(credential["algorithmName"] == "ES256")
        #expect(credential["credProtect"] == 2)
        #expect(credential["largeBlob"] == false)
        #expect(details["faults"]?.arrayValue?.count == 1)
        let key = try #require(card.credentials.first?.privateKey)
        #expect(!details.text.contains("privateKey") && !details.text.contains(key.hexString) && !details.text.contains(Base64URL.encode(key)))
    }

    @Test("presence: the mode read and set, the pending prompt shown (in status too) and answered by its ID; a wrong ID refused")
    func presence() throws {
        let clock = ManualCardClock()
        let card = try VirtualCard(clock: clock.read)
        card.use(clock)
        let handler = ControlChannelHandler(card: card, bridge: nil)
        #expect(try Self.ok(handler.handle(["op": "presence"])) == ["ok": true, "presence": ["mode": "approve", "pending": nil]])
        #expect(try Self.ok(handler.handle(["op": "status"]))["presence"] == ["mode": "approve", "pending": nil])
        #expect(try Self.ok(handler.handle(["op": "presence", "mode": "ask"]))["presence"] == ["mode": "ask", "pending": nil])
        #expect(card.presenceMode == .ask)

        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        let request = ControlAPDU.request(.makeCredential, makeCredentialParameters(userId: [1], rk: true))
        #expect(card.exchangeWhole(ControlAPDU.ctap(request, p1: 0x80)).sw == 0x9100)
        clock.advance(by: .milliseconds(1500))
        let pending: JSONValue = ["id": 1, "command": "makeCredential", "rpId": "example.com", "waitingSeconds": 1.5]
        #expect(try Self.ok(handler.handle(["op": "presence"])) == ["ok": true, "presence": ["mode": "ask", "pending": pending]])
        #expect(try Self.ok(handler.handle(["op": "status"]))["presence"] == ["mode": "ask", "pending": pending])
        #expect(handler.handle(["op": "presence.answer", "id": 2, "approve": true])
                == ["ok": false, "error": "no presence prompt 2 is pending"])
        #expect(try Self.ok(handler.handle(["op": "presence.answer", "id": 1, "approve": false]))["presence"]
                == ["mode": "ask", "pending": nil])
        #expect(card.exchangeWhole(ControlAPDU.pollResult).data == [CTAPStatus.operationDenied.rawValue])
        #expect(handler.handle(["op": "presence.answer", "id": 1, "approve": true])
                == ["ok": false, "error": "no presence prompt 1 is pending"], "a stale ID")
    }

    @Test("pin clear: the PIN removed and the retries back to 8 (then the retries asked for); refused with set")
    func pinClear() throws {
        let (handler, card) = try Self.handler()
        _ = try Self.ok(handler.handle(["op": "pin", "set": "123456", "retries": 2]))
        let cleared = try Self.ok(handler.handle(["op": "pin", "clear": true]))
        #expect(cleared["pin"] == ["isSet": false, "retries": 8, "length": 0, "minLength": 4, "blocked": false,
                                   "blockedUntilPowerCycle": false])
        #expect(!card.pinState.isSet && card.pinState.retries == 8)
        #expect(card.send(.clientPIN, [.int(1): 1, .int(2): 1]).status == .pinNotSet, "the card answers as one without a PIN")
        _ = try Self.ok(handler.handle(["op": "pin", "set": "123456"]))
        #expect(try Self.ok(handler.handle(["op": "pin", "clear": true, "retries": 5]))["pin"]?["retries"] == 5)
        #expect(!card.pinState.isSet)
    }

    @Test("credentials.add returns the ID and public key; list and remove use them")
    func credentials() throws {
        let (handler, card) = try Self.handler()
        let key = try P256PrivateKey()
        let answer = try Self.ok(handler.handle(["op": "credentials.add", "credential": [
            "rpId": "example.com", "userIdHex": .string(Array("alice".utf8).hexString), "userName": "alice",
            "privateKeyPEM": .string(key.pemPKCS8),
        ]]))
        let credential = try #require(answer["credential"])
        #expect(credential["publicKeyHex"] == .string(key.publicKey.x962.hexString))
        #expect(credential["discoverable"] == true)
        #expect(credential["userId"] == "YWxpY2U")
        let idHex = try #require(credential["idHex"]?.stringValue)
        #expect(card.credentials.map(\.id) == [try #require([UInt8](hex: idHex))])
        let pem = try #require(credential["publicKeyPEM"]?.stringValue)
        #expect(pem.contains("BEGIN PUBLIC KEY"))

        let listed = try Self.ok(handler.handle(["op": "credentials.list"]))
        #expect(listed["credentials"] == [credential])
        _ = try Self.ok(handler.handle(["op": "credentials.remove", "id": credential["id"] ?? nil]))
        #expect(card.credentials.isEmpty)
        let again = handler.handle(["op": "credentials.remove", "idHex": .string(idHex)])
        #expect(again["ok"] == false)
        #expect(again["error"] == .string("no discoverable credential on the card has the ID '\(idHex)' (read as hex: \(idHex.count / 2) bytes); "
                                          + "non-discoverable credentials are not stored on the card, so they cannot be removed"))
        let typed = handler.handle(["op": "credentials.remove", "id": "nope"])
        #expect(typed["error"] == .string("no discoverable credential on the card has the ID 'nope' (read as base64url: 3 bytes, hex 9e8a5e); "
                                          + "non-discoverable credentials are not stored on the card, so they cannot be removed"))
        #expect(throws: ControlChannelError.refused("no discoverable credential on the card has the ID noo (hex 9e8a); "
                                                    + "non-discoverable credentials are not stored on the card, so they cannot be removed")) {
            try handler.handle(.removeCredential(id: [0x9E, 0x8A]))
        }
    }

    @Test("fault.add, list, remove and clear; the log shows what acted")
    func faults() throws {
        let (handler, card) = try Self.handler()
        let added = try Self.ok(handler.handle(["op": "fault.add", "fault": [
            "command": "getAssertion", "effect": "ctap-error", "ctapError": "0x2E", "once": true,
        ]]))
        #expect(added["fault"]?["id"] == 1)
        #expect(added["fault"]?["ctapError"] == 46)
        #expect(added["fault"]?["once"] == true)
        _ = try Self.ok(handler.handle(["op": "fault.add", "fault": ["effect": "status-word", "statusWord": "6A82"]]))
        _ = try Self.ok(handler.handle(["op": "fault.add", "fault": ["effect": "flags", "up": false, "command": "0x02"]]))
        _ = try Self.ok(handler.handle(["op": "fault.add", "fault": ["effect": "leave-field", "away": 0.5]]))
        _ = try Self.ok(handler.handle(["op": "fault.add", "fault": ["effect": "ctap-error", "ctapError": "NO_CREDENTIALS",
                                                                    "command": "reset"]]))
        #expect(card.control.faults.map(\.fault) == [
            Fault(.ctapError(0x2E), on: .ctap(.getAssertion), once: true),
            Fault(.statusWord(StatusWord(rawValue: 0x6A82))),
            Fault(.flags(userPresent: false, userVerified: nil), on: .ctap(.getAssertion)),
            Fault(.leaveField(away: .milliseconds(500))),
            Fault(.ctapError(0x2E), on: .ctap(.reset)),
        ])
        #expect(card.send(.getAssertion, ControlAPDU.getAssertion()).bytes == [0x2E])
        let listed = try Self.ok(handler.handle(["op": "fault.list"]))
        #expect(listed["faults"]?.arrayValue?.count == 4)
        #expect(listed["log"]?.arrayValue?.first?["effect"] == "ctap-error")
        _ = try Self.ok(handler.handle(["op": "fault.remove", "id": 2]))
        #expect(try Self.ok(handler.handle(["op": "fault.clear"]))["removed"] == 3)
        #expect(card.control.faults.isEmpty)
    }

    static let badRequestTable: [(JSONValue, String)] = [
        (["op": "dance"], "bad request: unknown op 'dance'"),
        (["op": "pin", "sett": "1234"], "bad request: pin has no member sett (it takes clear, retries, set)"),
        (["op": "pin", "clear": true, "set": "1234"], "bad request: pin: clear and set go separately"),
        (["op": "presence", "mode": "maybe"], "bad request: unknown presence mode 'maybe' (known: approve, decline, ask)"),
        (["op": "presence.answer", "id": 1], "bad request: presence.answer needs id (the prompt's number) and approve (true or false)"),
        (["op": "presence.answer", "id": 1, "approve": true], "no presence prompt 1 is pending"),
        (["op": "pin", "retries": "3"], "bad request: pin: retries must be a whole number"),
        (["op": "fault.add"], "bad request: fault.add needs fault (an object)"),
        (["op": "fault.add", "fault": ["effect": "explode"]], "bad request: unknown effect 'explode'"),
        (["op": "fault.add", "fault": ["effect": "ctap-error"]], "bad request: ctap-error needs ctapError"),
        (["op": "fault.add", "fault": ["effect": "status-word", "statusWord": "6A8"]], "bad request: status-word needs statusWord"),
        (["op": "fault.add", "fault": ["effect": "bogus-signature", "command": "frobnicate"]],
         "bad request: unknown command 'frobnicate'"),
        (["op": "fault.add", "fault": ["effect": "bogus-signature", "ctapError": 1]], "bad request: fault has no member ctapError"),
        (["op": "fault.add", "fault": ["effect": "ctap-error", "ctapError": 46, "command": "u2f-register"]],
         "the fault cannot act: U2F_REGISTER is not a CTAP2 command"),
        (["op": "fault.remove", "id": 9], "no injected fault has ID 9"),
        (["op": "credentials.add", "credential": ["userName": "x"]], "bad request: credential needs rpId"),
        (["op": "credentials.add", "credential": ["rpId": "example.com", "userId": "!!"]],
         "bad request: credential: userId is not base64url"),
        (["op": "pin", "set": "12"], "the PIN is refused: it has 2 code points"),
        (["op": "counter", "set": -1], "bad request: the counter must be 0 to 4294967295"),
        (["op": "timing", "profile": "fast"], "bad request: unknown timing profile 'fast'"),
        (["op": "tap"], "this card is not on a reader"),
        ("just a string", "bad request: a request is a JSON object"),
    ]

    @Test("bad requests are answered with an error naming what is wrong", arguments: badRequestTable)
    func badRequests(request: JSONValue, error: String) throws {
        let (handler, card) = try Self.handler()
        let answer = handler.handle(request)
        #expect(answer["ok"] == false)
        let message = try #require(answer["error"]?.stringValue)
        #expect(message.hasPrefix(error), "\(message)")
        #expect(card.control.faults.isEmpty)
        #expect(card.pinState.isSet == false)
    }

    @Test("a request's tag is echoed; a line that is not JSON is an error answer")
    func lines() throws {
        let (handler, _) = try Self.handler()
        let answer = try JSONValue(parsing: handler.respond(to: #"{"op":"counter","tag":"step-3"}"#))
        #expect(answer == ["ok": true, "counter": 0, "tag": "step-3"])
        let broken = try JSONValue(parsing: handler.respond(to: "{op: counter"))
        #expect(broken["ok"] == false)
        #expect(broken["error"]?.stringValue?.hasPrefix("bad request: not JSON") == true)
    }

    @Test("JSON: whole numbers are written without a fraction, keys sorted, strings escaped")
    func json() throws {
        let value: JSONValue = ["b": 1, "a": [.number(0.5), true, nil, "x\"y\n"]]
        #expect(value.text == #"{"a":[0.5,true,null,"x\"y\n"],"b":1}"#)
        #expect(try JSONValue(parsing: value.text) == value)
    }

    // MARK: - The socket

    @Test("over the socket: owner-only, several requests per connection, removed when stopped")
    func overTheSocket() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("ctl.sock")
        let (handler, card) = try Self.handler()
        let channel = try ControlChannel(path: path, handler: handler) { $0() }
        channel.start()
        defer { channel.stop() }

        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(attributes[.type] as? FileAttributeType == .typeSocket)

        let client = try ControlChannelClient(path: path)
        #expect(try client.send(["op": "pin", "set": "123456"])["ok"] == true)
        #expect(try client.send(["op": "counter", "set": 5])["counter"] == 5)
        let other = try ControlChannelClient(path: path)
        #expect(try other.send(["op": "status"])["counter"] == 5)
        #expect(try client.send(["op": "nothing"])["ok"] == false)
        #expect(card.pinState.values == (true, 8, 5))

        channel.stop()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(throws: ControlChannelError.socket("cannot reach the control socket \(path): No such file or directory "
                                                  + "(is 'arculus-card serve' running with this control socket? see --control)")) {
            try ControlChannelClient(path: path)
        }
    }

    @Test("a live socket is not taken over; a stale one is replaced; a plain file is refused")
    func existingPaths() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("ctl.sock")
        let (handler, _) = try Self.handler()
        let live = try ControlChannel(path: path, handler: handler) { $0() }
        live.start()
        #expect(throws: ControlChannelError.socket("another card already serves the control socket \(path) (use --control to choose another)")) {
            try ControlChannel(path: path, handler: handler) { $0() }
        }
        live.stop()
        #expect(!FileManager.default.fileExists(atPath: path))

        _ = FileManager.default.createFile(atPath: path, contents: Data("not a socket".utf8))
        #expect(throws: ControlChannelError.socket("\(path) exists and is not a socket; refusing to replace it")) {
            try ControlChannel(path: path, handler: handler) { $0() }
        }
        #expect(FileManager.default.contents(atPath: path) == Data("not a socket".utf8))
    }

    @Test("a stale socket left by a server that died is replaced")
    func staleSocket() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("ctl.sock")
        // Bind a socket and close it without removing the file: what a SIGKILLed server leaves.
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        close(fd)
        #expect(FileManager.default.fileExists(atPath: path))

        let (handler, _) = try Self.handler()
        let channel = try ControlChannel(path: path, handler: handler) { $0() }
        channel.start()
        defer { channel.stop() }
        #expect(try ControlChannelClient(path: path).send(["op": "status"])["ok"] == true)
    }

    @Test("a request the card does not take in time is withdrawn: a 'not taken' answer, and it never runs")
    func noExecutor() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("ctl.sock")
        let (handler, card) = try Self.handler()
        // An executor that never runs the work: a bridge that has stopped.
        let channel = try ControlChannel(path: path, handler: handler, requestTimeout: .milliseconds(300)) { _ in }
        channel.start()
        defer { channel.stop() }
        let start = ContinuousClock.now
        let answer = try ControlChannelClient(path: path).send(["op": "pin", "set": "123456"])
        #expect(answer["ok"] == false)
        #expect(answer["errorKind"] == "not-taken")
        #expect(answer["error"] == .string(ControlChannelError.notTaken(within: .milliseconds(300)).description))
        #expect(ContinuousClock.now - start >= .milliseconds(300))
        #expect(card.pinState.isSet == false)
    }
}
