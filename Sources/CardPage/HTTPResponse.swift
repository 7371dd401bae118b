import JSONSupport

/// One HTTP response of the card page: status, headers, body. Every answer carries the headers
/// that keep a browser from caching it, sniffing it, framing it or sending its address (and so
/// the secret in it) anywhere.
public struct HTTPResponse: Sendable, Equatable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.body == rhs.body && lhs.headers.map(\.name) == rhs.headers.map(\.name)
            && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    /// A JSON answer.
    public static func json(_ status: Int, _ value: JSONValue) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json")], body: Array(value.text.utf8))
    }

    /// A refusal: `{"ok": false, "error": message}`.
    public static func error(_ status: Int, _ message: String) -> HTTPResponse {
        json(status, ["ok": false, "error": .string(message)])
    }

    /// The header's value, if set (names compared without case).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The status line's reason phrase.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 408: "Request Timeout"
        case 409: "Conflict"
        case 413: "Content Too Large"
        case 415: "Unsupported Media Type"
        case 431: "Request Header Fields Too Large"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }

    /// The headers every answer carries.
    static let commonHeaders: [(name: String, value: String)] = [
        ("Cache-Control", "no-store"), ("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"),
        ("X-Frame-Options", "DENY"), ("Cross-Origin-Resource-Policy", "same-origin"),
    ]

    /// The response as sent: a whole one with `Content-Length` and `Connection: close`, or, for
    /// a stream (server-sent events), the head alone with the connection kept open.
    public func bytes(streaming: Bool = false) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for (name, value) in Self.commonHeaders + headers { text += "\(name): \(value)\r\n" }
        text += streaming ? "Connection: keep-alive\r\n\r\n" : "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(text.utf8) + (streaming ? [] : body)
    }
}
