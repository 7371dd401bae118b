import ArculusCard
import CardPage
import FIDOWire
import JSONSupport
import Testing
import VirtualReader

@Suite("the card page's server")
struct CardPageServerTests {
    @Test func thePageIsServedFromTheBinaryUnderAPolicyThatAllowsNothingElse() throws {
        let page = try PageFixture()
        let answer = try page.request("GET", "/")
        #expect(answer.status == 200)
        #expect(answer.headers.contains("Content-Type: text/html; charset=utf-8"))
        let policy = try #require(answer.headers.split(separator: "\r\n").first { $0.hasPrefix("Content-Security-Policy: ") })
        #expect(policy.contains("default-src 'none'") && policy.contains("connect-src 'self'") && policy.contains("frame-ancestors 'none'"))
        #expect(answer.body.contains("<title>Arculus card</title>"))
        #expect(!answer.body.contains("http://") && !answer.body.contains("https://"), "the page loads nothing from elsewhere")
        #expect(try page.request("GET", "/card/1/").status == 200)
    }

    @Test func anOpRunsOnTheCardAndAnswersAsTheControlChannelDoes() throws {
        let page = try PageFixture()
        let set = try page.op(#"{"op":"pin","set":"271828"}"#)
        #expect(set.status == 200)
        #expect(set.answer["ok"] == true)
        #expect(set.answer["pin"]?["isSet"] == true)
        #expect(page.onCard { $0.pinState.isSet })
        #expect(!set.answer.text.contains("271828"), "the answer does not echo the PIN")
        let details = try page.op(#"{"op":"details"}"#)
        #expect(details.answer["status"]?["pin"]?["isSet"] == true)
        #expect(details.answer["info"]?["aaguid"]?.stringValue?.count == 36)
    }

    @Test func answersNeverCarryAPrivateKey() throws {
        let page = try PageFixture()
        let added = try page.op(#"{"op":"credentials.add","credential":{"rpId":"example.com","userName":"ada","userIdHex":"0102"}}"#)
        #expect(added.status == 200, "\(added.answer)")
        #expect(added.answer["credential"]?["rpId"] == "example.com")
        #expect(added.answer["credential"]?["privateKey"] == nil)
        let listed = try page.op(#"{"op":"credentials.list"}"#)
        #expect(listed.answer["credentials"]?.arrayValue?.count == 1)
        #expect(!listed.answer.text.contains("privateKey"))
        let key = try #require(page.onCard { $0.credentials.first?.privateKey })
        #expect(!listed.answer.text.contains(key.hexString) && !listed.answer.text.contains(Base64URL.encode(key)))
    }

    /// Each refusal: its exact status and message, and the card as it was.
    @Test func refusedRequestsChangeNothing() throws {
        let page = try PageFixture()
        let before = page.cardState
        let pin = #"{"op":"pin","set":"271828"}"#
        let cases: [(String, () throws -> (status: Int, answer: JSONValue), Int, String)] = [
            ("no secret", { try page.op(pin, secret: nil) }, 403,
             "refused: the request does not carry the page's secret (t=… in the address serve printed)"),
            ("wrong secret", { try page.op(pin, secret: "0123456789abcdef0123456789abcdee") }, 403,
             "refused: wrong secret (use the address serve printed)"),
            ("wrong Host", { try page.op(pin, host: "evil.example:\(page.port)") }, 403,
             "refused: Host must be \(page.server.authority), the address the card page listens on"),
            ("foreign Origin", { try page.op(pin, headers: ["Content-Type: application/json", "Origin: http://evil.example"]) }, 403,
             "refused: requests from another origin cannot use the card page"),
            ("form post", { try page.op(pin, headers: ["Content-Type: application/x-www-form-urlencoded"]) }, 415,
             "an op is sent as Content-Type: application/json"),
            ("malformed JSON", { try page.op(#"{"op":"pin","set":"#) }, 400, ""),
            ("not an object", { try page.op(#"["pin"]"#) }, 400, "an op is a JSON object with an \"op\" member"),
            ("unknown op", { try page.op(#"{"op":"self-destruct"}"#) }, 400, ""),
            ("unknown member", { try page.op(#"{"op":"pin","set":"271828","retries":"x"}"#) }, 400,
             "bad request: pin: retries must be a whole number"),
        ]
        for (name, send, status, message) in cases {
            let answer = try send()
            #expect(answer.status == status, "\(name)")
            #expect(answer.answer["ok"] == false, "\(name)")
            if !message.isEmpty { #expect(answer.answer["error"]?.stringValue == message, "\(name)") }
            #expect(page.cardState == before, "\(name) changed the card")
        }
        let malformed = try page.op(#"{"op":"pin","set":"#)
        #expect(malformed.answer["error"]?.stringValue?.hasPrefix("malformed JSON: not JSON") == true)
        let unknown = try page.op(#"{"op":"self-destruct"}"#)
        #expect(unknown.answer["error"]?.stringValue?.hasPrefix("bad request: unknown op 'self-destruct' (known: status, details,") == true)
    }

    @Test func aHugeBodyIsRefusedUnread() throws {
        let page = try PageFixture()
        let before = page.cardState
        let body = #"{"op":"pin","set":"271828","x":""# + String(repeating: "a", count: 100_000) + #""}"#
        let answer = try page.request("POST", "/op", headers: ["Content-Type: application/json"], body: body)
        #expect(answer.status == 413)
        #expect(try JSONValue(parsing: answer.body)["error"] == "the body is longer than 16384 bytes")
        #expect(page.cardState == before)
    }

    @Test func wrongMethodsAndPathsAreRefused() throws {
        let page = try PageFixture()
        let before = page.cardState
        let get = try page.request("GET", "/op")
        #expect(get.status == 405)
        #expect(get.headers.contains("Allow: POST"))
        #expect(try JSONValue(parsing: get.body)["error"] == "/op takes POST, not GET")
        #expect(try page.request("POST", "/", headers: ["Content-Type: application/json"], body: "{}").status == 405)
        #expect(try page.request("DELETE", "/events").status == 405)
        for path in ["/nothing", "/card/2/", "/card/0/events", "/card/x/op", "/../etc/passwd"] {
            let answer = try page.request("GET", path)
            #expect(answer.status == 404, "\(path)")
        }
        // Refused before anything else: no secret, no page, whatever the path.
        #expect(try page.request("GET", "/nothing", secret: nil).status == 403)
        #expect(page.cardState == before)
    }

    @Test func theEventStreamSendsTheCardsStateAndItsTraceRows() throws {
        let page = try PageFixture()
        let fd = try page.openStream()
        defer { page.hangUp(fd) }
        let first = String(decoding: page.read(fd) { $0.contains("event: state") && $0.hasSuffix("\n\n") }, as: UTF8.self)
        #expect(first.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(first.contains("Content-Type: text/event-stream"))
        #expect(first.contains("event: hello\ndata: {\"card\":1,\"cards\":[{\"index\":1,\"name\":\"Virtual PCD 00 00\"}]}\n\n"))
        #expect(first.contains("\"credentials\":[]"))
        // One CTAP message to the card, as the reader reports it: one row, decoded.
        let getInfo: [UInt8] = [0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x00]
        let response = page.onCard { card in
            _ = card.transmit(NFCBinding.selectFIDOApplet)
            return card.transmit(getInfo)
        }
        page.feed.observe(.exchange(command: getInfo, response: response, elapsed: .microseconds(300)))
        let next = String(decoding: page.read(fd) { $0.contains("event: trace") && $0.hasSuffix("\n\n") }, as: UTF8.self)
        let line = try #require(next.split(separator: "\n").first { $0.hasPrefix("data: {\"apdus\"") })
        let row = try JSONValue(parsing: String(line.dropFirst("data: ".count)))
        #expect(row["command"] == "authenticatorGetInfo")
        #expect(row["status"] == "CTAP2_OK")
        #expect(row["kind"] == "CTAP")
        #expect(row["response"]?.stringValue?.hasPrefix("{1: [") == true)
    }

    @Test func withNoPageOpenTheFeedBuildsNothing() throws {
        let page = try PageFixture()
        let getInfo: [UInt8] = [0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x00]
        page.feed.observe(.exchange(command: getInfo, response: [0x00, 0x90, 0x00], elapsed: .zero))
        let fd = try page.openStream()
        defer { page.hangUp(fd) }
        let first = String(decoding: page.read(fd) { $0.contains("event: state") && $0.hasSuffix("\n\n") }, as: UTF8.self)
        #expect(first.contains("event: state"))
        #expect(!first.contains("event: trace"), "a row was built while no page watched")
    }

    @Test func theTranscriptIsADownload() throws {
        let page = try PageFixture(transcript: { "@format 1\n> 00A4040008A0000006472F0001\n" })
        let answer = try page.request("GET", "/transcript")
        #expect(answer.status == 200)
        #expect(answer.headers.contains("Content-Disposition: attachment; filename=\"card-1.transcript\""))
        #expect(answer.body == "@format 1\n> 00A4040008A0000006472F0001\n")
        #expect(try PageFixture().request("GET", "/transcript").status == 404)
    }
}
