/// One HTTP/1.1 request as the card page reads it: method, path, query, headers, body.
///
/// ``parse(_:)`` reads it from the bytes a client sent so far, within fixed bounds (a head of at
/// most ``maximumHeadLength`` bytes, a body of at most ``maximumBodyLength``), and says what is
/// wrong with one it refuses, as the answer to send (``HTTPResponse``).
public struct HTTPRequest: Sendable, Equatable {
    /// `GET`, `POST`, … as sent (methods are case-sensitive).
    public var method: String
    /// The path, percent-decoded, without the query.
    public var path: String
    /// The query's parameters, percent-decoded; a name given twice keeps its first value.
    public var query: [String: String]
    /// Header names lower-cased, in the order sent.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    /// The longest request head (request line and headers) read.
    public static let maximumHeadLength = 8 * 1024
    /// The longest body read (an op's JSON is small).
    public static let maximumBodyLength = 16 * 1024

    public static func == (lhs: HTTPRequest, rhs: HTTPRequest) -> Bool {
        lhs.method == rhs.method && lhs.path == rhs.path && lhs.query == rhs.query && lhs.body == rhs.body
            && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
    }

    /// The value of header `name` (lower case), if sent.
    public func header(_ name: String) -> String? {
        headers.first { $0.name == name }?.value
    }

    /// What the bytes received so far hold.
    public enum Parsed: Sendable, Equatable {
        /// Not a whole request yet.
        case incomplete
        /// A request, and how many bytes it took.
        case request(HTTPRequest, length: Int)
        /// A request refused as it stands; the answer says why.
        case refused(HTTPResponse)
    }

    /// Reads one request from the start of `bytes`.
    public static func parse(_ bytes: [UInt8]) -> Parsed {
        guard let headEnd = headEnd(in: bytes) else {
            if bytes.count > maximumHeadLength {
                return .refused(.error(431, "the request head is longer than \(maximumHeadLength) bytes"))
            }
            return .incomplete
        }
        guard headEnd <= maximumHeadLength else {
            return .refused(.error(431, "the request head is longer than \(maximumHeadLength) bytes"))
        }
        guard let head = String(validating: bytes[..<headEnd], as: UTF8.self) else {
            return .refused(.error(400, "the request head is not UTF-8"))
        }
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let requestLine = lines.removeFirst()
        let parts = requestLine.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy({ $0.isLetter && $0.isUppercase }) else {
            return .refused(.error(400, "malformed request line"))
        }
        guard parts[2] == "HTTP/1.1" || parts[2] == "HTTP/1.0" else {
            return .refused(.error(400, "only HTTP/1.1 is spoken here, not \(parts[2].prefix(16))"))
        }
        let target = String(parts[1])
        guard target.hasPrefix("/") else { return .refused(.error(400, "the request target must be a path")) }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { return .refused(.error(400, "malformed header line")) }
            let name = line[..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else { return .refused(.error(400, "malformed header name")) }
            let value = line[line.index(after: colon)...].trimmingHTTPWhitespace
            guard !value.contains(where: { $0.isASCII && $0.asciiValue! < 0x20 && $0 != "\t" }) else {
                return .refused(.error(400, "a header value holds a control character"))
            }
            headers.append((name.lowercased(), String(value)))
        }
        for unique in ["host", "origin", "content-length", "content-type"] where headers.filter({ $0.name == unique }).count > 1 {
            return .refused(.error(400, "the \(unique) header is given more than once"))
        }
        if headers.contains(where: { $0.name == "transfer-encoding" }) {
            return .refused(.error(400, "Transfer-Encoding is not accepted: send the body with a Content-Length"))
        }
        var bodyLength = 0
        if let text = headers.first(where: { $0.name == "content-length" })?.value {
            guard !text.isEmpty, text.count <= 12, text.allSatisfy(\.isASCII), let length = Int(text), length >= 0 else {
                return .refused(.error(400, "Content-Length is not a number"))
            }
            guard length <= maximumBodyLength else {
                return .refused(.error(413, "the body is longer than \(maximumBodyLength) bytes"))
            }
            bodyLength = length
        }
        let bodyStart = headEnd + 4
        guard bytes.count >= bodyStart + bodyLength else { return .incomplete }
        let (path, query) = splitTarget(target)
        guard let path else { return .refused(.error(400, "the path is not percent-encoded UTF-8")) }
        let request = HTTPRequest(method: String(parts[0]), path: path, query: query, headers: headers,
                                  body: Array(bytes[bodyStart..<(bodyStart + bodyLength)]))
        return .request(request, length: bodyStart + bodyLength)
    }

    /// Where the blank line ending the head starts (the index of its `\r\n\r\n`).
    private static func headEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 0...(bytes.count - 4) where bytes[index] == 0x0D && bytes[index + 1] == 0x0A
            && bytes[index + 2] == 0x0D && bytes[index + 3] == 0x0A {
            return index
        }
        return nil
    }

    private static func isTokenCharacter(_ character: Character) -> Bool {
        guard let ascii = character.asciiValue else { return false }
        return (0x21...0x7E).contains(ascii) && !"\"(),/:;<=>?@[\\]{}".contains(character)
    }

    /// The path and the query's parameters of a request target.
    static func splitTarget(_ target: String) -> (path: String?, query: [String: String]) {
        let pieces = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query: [String: String] = [:]
        if pieces.count > 1 {
            for pair in pieces[1].split(separator: "&") {
                let nameValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard let name = percentDecoded(nameValue[0]), query[name] == nil else { continue }
                query[name] = nameValue.count > 1 ? percentDecoded(nameValue[1]) ?? "" : ""
            }
        }
        return (percentDecoded(pieces[0], plusIsSpace: false), query)
    }

    /// `text` with `%XX` escapes (and, in a query, `+`) decoded; nil when it is not UTF-8.
    static func percentDecoded(_ text: Substring, plusIsSpace: Bool = true) -> String? {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%"), let high = utf8.index(index, offsetBy: 1, limitedBy: utf8.endIndex),
               let low = utf8.index(index, offsetBy: 2, limitedBy: utf8.endIndex), low < utf8.endIndex,
               let value = UInt8(String(decoding: [utf8[high], utf8[low]], as: UTF8.self), radix: 16) {
                bytes.append(value)
                index = utf8.index(after: low)
                continue
            }
            bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index = utf8.index(after: index)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs (HTTP's optional whitespace).
    var trimmingHTTPWhitespace: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}
