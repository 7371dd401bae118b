@testable import CardPage
import JSONSupport
import Testing

@Suite("the card page's HTTP requests")
struct HTTPRequestTests {
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// The refusal `text` gets: its status and its error message.
    static func refusal(_ text: String) -> (status: Int, error: String?)? {
        guard case .refused(let response) = HTTPRequest.parse(bytes(text)) else { return nil }
        return (response.status, (try? JSONValue(parsing: String(decoding: response.body, as: UTF8.self)))?["error"]?.stringValue)
    }

    @Test func aGetIsReadWithItsDecodedQuery() throws {
        let text = "GET /card/2/events?t=ab%20c&x=1+2&t=second HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nX-A:  spaced \t\r\n\r\n"
        guard case .request(let request, let length) = HTTPRequest.parse(Self.bytes(text)) else {
            Issue.record("not read")
            return
        }
        #expect(length == text.utf8.count)
        #expect(request.method == "GET")
        #expect(request.path == "/card/2/events")
        #expect(request.query == ["t": "ab c", "x": "1 2"])
        #expect(request.header("host") == "127.0.0.1:8080")
        #expect(request.header("x-a") == "spaced")
        #expect(request.body.isEmpty)
    }

    @Test func aPostWaitsForItsWholeBody() {
        let head = "POST /op?t=s HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 12\r\n\r\n"
        #expect(HTTPRequest.parse(Self.bytes(head + "{\"op\":")) == .incomplete)
        #expect(HTTPRequest.parse(Self.bytes("GET / HTTP/1.1\r\nHost: h\r\n")) == .incomplete)
        guard case .request(let request, let length) = HTTPRequest.parse(Self.bytes(head + "{\"op\":\"tap\"}extra")) else {
            Issue.record("not read")
            return
        }
        #expect(request.body == Self.bytes("{\"op\":\"tap\"}"))
        #expect(length == head.utf8.count + 12)
    }

    @Test func requestsBeyondTheLimitsAreRefusedBeforeTheirBodyIsRead() {
        let huge = "POST /op?t=s HTTP/1.1\r\nHost: h\r\nContent-Length: \(HTTPRequest.maximumBodyLength + 1)\r\n\r\n"
        #expect(Self.refusal(huge)?.status == 413)
        #expect(Self.refusal(huge)?.error == "the body is longer than 16384 bytes")
        let longHead = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: HTTPRequest.maximumHeadLength) + "\r\n\r\n"
        #expect(Self.refusal(longHead)?.status == 431)
        // A head that never ends is refused once it is too long, not waited for.
        #expect(Self.refusal("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: HTTPRequest.maximumHeadLength))?.status == 431)
    }

    @Test func malformedRequestsAreRefusedSayingWhy() {
        #expect(Self.refusal("GET /\r\n\r\n")?.error == "malformed request line")
        #expect(Self.refusal("get / HTTP/1.1\r\n\r\n")?.error == "malformed request line")
        #expect(Self.refusal("GET / HTTP/2\r\n\r\n")?.error == "only HTTP/1.1 is spoken here, not HTTP/2")
        #expect(Self.refusal("GET http://x/ HTTP/1.1\r\n\r\n")?.error == "the request target must be a path")
        #expect(Self.refusal("GET / HTTP/1.1\r\nno colon\r\n\r\n")?.error == "malformed header line")
        #expect(Self.refusal("GET / HTTP/1.1\r\nBad Name: x\r\n\r\n")?.error == "malformed header name")
        #expect(Self.refusal("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n")?.error == "the host header is given more than once")
        #expect(Self.refusal("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")?.error
            == "Transfer-Encoding is not accepted: send the body with a Content-Length")
        #expect(Self.refusal("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n")?.error == "Content-Length is not a number")
        #expect(Self.refusal("POST / HTTP/1.1\r\nContent-Length: 1e3\r\n\r\n")?.error == "Content-Length is not a number")
        #expect(Self.refusal("GET /%FF HTTP/1.1\r\n\r\n")?.error == "the path is not percent-encoded UTF-8")
        for text in ["GET /\r\n\r\n", "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n"] { #expect(Self.refusal(text)?.status == 400) }
    }

    @Test func answersCarryTheirLengthAndTheHeadersThatKeepThemPrivate() {
        let text = String(decoding: HTTPResponse.error(404, "no").bytes(), as: UTF8.self)
        #expect(text.hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        for header in ["Cache-Control: no-store", "Referrer-Policy: no-referrer", "X-Content-Type-Options: nosniff",
                       "Content-Type: application/json", "Content-Length: 25", "Connection: close"] {
            #expect(text.contains(header + "\r\n"), "\(header)")
        }
        #expect(text.hasSuffix("\r\n\r\n{\"error\":\"no\",\"ok\":false}"))
    }
}

@Suite("the card page's access rules")
struct CardPageAccessTests {
    static let access = CardPageAccess(authority: "127.0.0.1:4711", secret: "00112233445566778899aabbccddeeff")

    static func request(query: [String: String] = ["t": "00112233445566778899aabbccddeeff"],
                        headers: [(String, String)] = [("host", "127.0.0.1:4711")]) -> HTTPRequest {
        HTTPRequest(method: "GET", path: "/", query: query, headers: headers.map { (name: $0.0, value: $0.1) }, body: [])
    }

    static func error(_ response: HTTPResponse?) -> String? {
        response.flatMap { try? JSONValue(parsing: String(decoding: $0.body, as: UTF8.self)) }?["error"]?.stringValue
    }

    @Test func theSecretIsNewEachRunAndLongEnough() {
        let one = CardPageAccess(authority: "127.0.0.1:1").secret
        #expect(one.count == 32 && one.allSatisfy(\.isHexDigit))
        #expect(one != CardPageAccess(authority: "127.0.0.1:1").secret)
    }

    @Test func theRightHostOriginAndSecretPass() {
        #expect(Self.access.refusal(of: Self.request()) == nil)
        #expect(Self.access.refusal(of: Self.request(headers: [("host", "127.0.0.1:4711"), ("origin", "http://127.0.0.1:4711")])) == nil)
    }

    @Test func aMissingOrWrongSecretIsRefused() {
        for query in [[:], ["t": ""], ["t": "00112233445566778899aabbccddeefe"], ["t": "00112233"], ["secret": "00112233445566778899aabbccddeeff"]] {
            let refusal = Self.access.refusal(of: Self.request(query: query))
            #expect(refusal?.status == 403, "\(query)")
        }
        #expect(Self.error(Self.access.refusal(of: Self.request(query: [:])))
            == "refused: the request does not carry the page's secret (t=… in the address serve printed)")
        #expect(Self.error(Self.access.refusal(of: Self.request(query: ["t": "0"]))) == "refused: wrong secret (use the address serve printed)")
    }

    @Test func anotherHostIsRefusedAgainstDNSRebinding() {
        for host in ["localhost:4711", "127.0.0.1:4712", "evil.example:4711", "127.0.0.1"] {
            let refusal = Self.access.refusal(of: Self.request(headers: [("host", host)]))
            #expect(refusal?.status == 403, "\(host)")
            #expect(Self.error(refusal) == "refused: Host must be 127.0.0.1:4711, the address the card page listens on")
        }
        #expect(Self.error(Self.access.refusal(of: Self.request(headers: []))) == "refused: the request names no Host")
    }

    @Test func anotherOriginIsRefusedAgainstCrossSiteRequests() {
        for origin in ["http://evil.example", "http://localhost:4711", "https://127.0.0.1:4711", "null"] {
            let refusal = Self.access.refusal(of: Self.request(headers: [("host", "127.0.0.1:4711"), ("origin", origin)]))
            #expect(refusal?.status == 403, "\(origin)")
            #expect(Self.error(refusal) == "refused: requests from another origin cannot use the card page")
        }
    }

    @Test func aPostMustSayItsBodyIsJSON() {
        func post(_ type: String?) -> HTTPRequest {
            HTTPRequest(method: "POST", path: "/op", query: [:], headers: type.map { [(name: "content-type", value: $0)] } ?? [], body: [])
        }
        #expect(CardPageAccess.bodyRefusal(of: post("application/json")) == nil)
        #expect(CardPageAccess.bodyRefusal(of: post("application/json; charset=utf-8")) == nil)
        for type in [nil, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data"] {
            #expect(CardPageAccess.bodyRefusal(of: post(type))?.status == 415, "\(type ?? "none")")
        }
    }
}
