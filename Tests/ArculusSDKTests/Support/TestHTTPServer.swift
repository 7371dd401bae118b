import Foundation
import JSONSupport
import Synchronization

/// A plain HTTP/1.1 server on the loopback, written for these tests: it reads each request
/// (request line, headers, a `Content-Length` body), keeps it, and answers as the test's handler
/// says — JSON, any status and headers, or the ways a hostile server behaves (a body trickled a
/// byte at a time, one far longer than any FIDO2 answer, a length it never sends).
///
/// `@unchecked Sendable`: its state is under `lock`; each connection runs on a thread of its own.
final class TestHTTPServer: @unchecked Sendable {
    struct Request: Sendable {
        let method: String
        let path: String
        let headers: [String: String]
        let body: JSONValue

        /// The header `name` (case-insensitive).
        func header(_ name: String) -> String? { headers[name.lowercased()] }
    }

    /// What the server does with one request.
    enum Reply: Sendable {
        /// `status` with `body` as JSON (or `text` when it is not JSON) and `headers`.
        case json(Int, JSONValue, headers: [String: String] = [:])
        case text(Int, String, headers: [String: String] = [:])
        /// Headers for a body of `bytes` bytes, then a byte every `interval`.
        case trickle(bytes: Int, interval: Duration)
        /// A body of `bytes` bytes, declared (`Content-Length`) or sent until the connection closes.
        case huge(bytes: Int, declared: Bool)
        /// Headers declaring `bytes` bytes and nothing after them until the client goes.
        case declareOnly(bytes: Int)
        /// No answer at all, until the client goes.
        case silence
    }

    let port: Int
    /// `http://localhost:PORT`.
    var url: String { "http://localhost:\(port)" }

    private let listener: Int32
    private let lock = NSLock()
    private var handler: @Sendable (Request) -> Reply
    private var log: [Request] = []
    private var stopped = false

    init(_ handler: @escaping @Sendable (Request) -> Reply) throws {
        self.handler = handler
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, length) == 0 && listen(socket, 16) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else {
            close(socket)
            throw POSIXError(.EADDRINUSE)
        }
        listener = socket
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    deinit {
        stop()
    }

    /// The requests so far, in order.
    var requests: [Request] { lock.withLock { log } }

    /// Until a request has come (polled, for a test that acts while the SDK waits for the answer).
    func waitForRequest() async throws {
        while requests.isEmpty { try await Task.sleep(for: .milliseconds(10)) }
    }

    /// Answers from now on as `handler` says.
    func answer(_ handler: @escaping @Sendable (Request) -> Reply) {
        lock.withLock { self.handler = handler }
    }

    func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        if first {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    private func acceptLoop() {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { return }
            let thread = Thread { [self] in serve(connection) }
            thread.start()
        }
    }

    private func serve(_ connection: Int32) {
        defer { close(connection) }
        var one: Int32 = 1
        setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        while let request = read(connection) {
            let reply = lock.withLock { () -> Reply in
                log.append(request)
                return handler(request)
            }
            guard respond(reply, on: connection) else { return }
        }
    }

    /// One request from the connection, or nil when it closed.
    private func read(_ connection: Int32) -> Request? {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        let separator: [UInt8] = [13, 10, 13, 10]
        var headerEnd: Int?
        while headerEnd == nil {
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer += chunk[0..<count]
            // A TLS ClientHello (record type 0x16): answered as plain HTTP servers answer it.
            if buffer.first == 0x16 {
                _ = Array("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n".utf8).withUnsafeBytes {
                    Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                return nil
            }
            if buffer.count >= 4 {
                headerEnd = (0...(buffer.count - 4)).first { Array(buffer[$0..<$0 + 4]) == separator }
            }
        }
        guard let headerEnd else { return nil }
        let head = String(decoding: buffer[0..<headerEnd], as: UTF8.self).components(separatedBy: "\r\n")
        let requestLine = head[0].split(separator: " ").map(String.init)
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        var body = Array(buffer[(headerEnd + 4)...])
        while body.count < length {
            let count = recv(connection, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            body += chunk[0..<count]
        }
        return Request(method: requestLine.first ?? "", path: requestLine.count > 1 ? requestLine[1] : "", headers: headers,
                       body: (try? JSONValue(parsing: Data(body))) ?? .null)
    }

    /// Sends `reply`; whether the connection may take another request.
    private func respond(_ reply: Reply, on connection: Int32) -> Bool {
        func send(_ bytes: [UInt8]) -> Bool {
            var sent = 0
            while sent < bytes.count {
                let count = bytes[sent...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard count > 0 else { return false }
                sent += count
            }
            return true
        }
        func head(_ status: Int, _ headers: [String: String]) -> [UInt8] {
            var text = "HTTP/1.1 \(status) Test\r\n"
            for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
            return Array((text + "\r\n").utf8)
        }
        switch reply {
        case .json(let status, let body, let headers):
            return respond(.text(status, body.text, headers: headers.merging(["Content-Type": "application/json"]) { given, _ in given }),
                           on: connection)
        case .text(let status, let body, let headers):
            let bytes = Array(body.utf8)
            return send(head(status, headers.merging(["Content-Length": "\(bytes.count)"]) { given, _ in given }) + bytes)
        case .trickle(let bytes, let interval):
            guard send(head(200, ["Content-Length": "\(bytes)", "Content-Type": "application/json"])) else { return false }
            for _ in 0..<bytes {
                Thread.sleep(forTimeInterval: Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18)
                guard send([0x20]) else { return false }
            }
            return true
        case .huge(let bytes, let declared):
            let headers = declared ? ["Content-Length": "\(bytes)"] : ["Connection": "close"]
            guard send(head(200, headers)) else { return false }
            let block = [UInt8](repeating: UInt8(ascii: "x"), count: 65536)
            var left = bytes
            while left > 0 {
                guard send(Array(block.prefix(left))) else { return false }
                left -= min(left, block.count)
            }
            return declared
        case .declareOnly(let bytes):
            guard send(head(200, ["Content-Length": "\(bytes)"])) else { return false }
            return respond(.silence, on: connection)
        case .silence:
            var byte: UInt8 = 0
            while recv(connection, &byte, 1, 0) > 0 {}
            return false
        }
    }
}
