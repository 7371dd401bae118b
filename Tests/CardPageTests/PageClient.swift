#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArculusCard
import CardPage
import Dispatch
import JSONSupport
import VirtualReader

/// A card page server over an in-memory card, for tests: the card's thread is a serial queue,
/// and requests go over a real loopback socket.
final class PageFixture: @unchecked Sendable {
    let card: VirtualCard
    let queue = DispatchQueue(label: "card")
    let server: CardPageServer
    let feed = CardPageFeed()
    static let secret = "0123456789abcdef0123456789abcdef"

    init(transcript: (@Sendable () -> String)? = nil) throws {
        card = try VirtualCard()
        let handler = ControlChannelHandler(card: card, bridge: nil)
        let queue = queue
        let page = CardPageCard(name: "Virtual PCD 00 00", executor: { queue.async(execute: $0) }, handler: handler, transcript: transcript)
        server = try CardPageServer(port: 0, cards: [page], feeds: [feed], workTimeout: .seconds(2), secret: Self.secret)
        server.start()
    }

    deinit { server.stop() }

    var port: UInt16 { UInt16(server.authority.split(separator: ":").last!)! }

    /// Reads the card on its thread.
    func onCard<T>(_ read: (VirtualCard) -> T) -> T { queue.sync { read(card) } }

    /// A fingerprint of everything a refused request must leave alone.
    var cardState: String {
        onCard { card in
            "\(card.pinState) \(card.credentials.count) \(card.control.faults.count) \(card.isInField)"
        }
    }

    /// One request, as raw text, and the whole answer (the server closes after it).
    func exchange(_ text: String) throws -> (status: Int, headers: String, body: String) {
        let raw = try send(Array(text.utf8), readUntilClosed: true)
        let answer = String(decoding: raw, as: UTF8.self)
        guard let split = answer.range(of: "\r\n\r\n") else { throw PageTestError("no answer head in \(answer.prefix(200))") }
        let head = String(answer[..<split.lowerBound])
        let status = Int(head.split(separator: " ")[1]) ?? 0
        return (status, head, String(answer[split.upperBound...]))
    }

    /// A request with the right Host (unless `host` says otherwise) and the secret (unless `secret` does).
    func request(_ method: String = "GET", _ path: String, secret: String? = PageFixture.secret, host: String? = nil,
                 headers: [String] = [], body: String? = nil) throws -> (status: Int, headers: String, body: String) {
        var text = "\(method) \(path)\(secret.map { (path.contains("?") ? "&" : "?") + "t=" + $0 } ?? "") HTTP/1.1\r\n"
        text += "Host: \(host ?? server.authority)\r\n"
        for header in headers { text += header + "\r\n" }
        if let body { text += "Content-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        return try exchange(text)
    }

    /// POSTs an op as the page does.
    func op(_ json: String, headers: [String] = ["Content-Type: application/json"], secret: String? = PageFixture.secret,
            host: String? = nil) throws -> (status: Int, answer: JSONValue) {
        let answer = try request("POST", "/op", secret: secret, host: host, headers: headers, body: json)
        return (answer.status, try JSONValue(parsing: answer.body))
    }

    /// Connects, sends `bytes`, and reads until the server closes (or, for a stream, until `until`
    /// is in what came, or 5 s pass).
    func send(_ bytes: [UInt8], readUntilClosed: Bool, until: ((String) -> Bool)? = nil) throws -> [UInt8] {
        let fd = try connected()
        defer { close(fd) }
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { break }  // the server may answer (and close) before reading it all
            offset += count
        }
        return read(fd, until: until)
    }

    /// Reads from `fd` until it closes, `until` holds, or 5 s pass.
    func read(_ fd: Int32, until: ((String) -> Bool)? = nil) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) >= 0 else { break }
            if poller.revents == 0 { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[..<count]
            if let until, until(String(decoding: received, as: UTF8.self)) { break }
        }
        return received
    }

    /// A connection that has asked for the event stream.
    func openStream() throws -> Int32 {
        let fd = try connected()
        let request = Array("GET /events?t=\(Self.secret) HTTP/1.1\r\nHost: \(server.authority)\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        return fd
    }

    func hangUp(_ fd: Int32) { close(fd) }

    func connected() throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(fd)
            throw PageTestError("cannot connect to \(server.authority)")
        }
        return fd
    }
}

struct PageTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A page's event stream, read event by event.
final class PageStream {
    let page: PageFixture
    let fd: Int32
    private var buffer = ""

    init(_ page: PageFixture) throws {
        self.page = page
        fd = try page.openStream()
    }

    func close() { page.hangUp(fd) }

    /// The next `state` event (its data) for which `matches` holds, skipping the others; nil when
    /// none comes within `within`.
    func nextState(within: Duration = .seconds(5), _ matches: (JSONValue) -> Bool) -> JSONValue? {
        let deadline = ContinuousClock.now + within
        while true {
            while let end = buffer.range(of: "\n\n") {
                let event = String(buffer[..<end.lowerBound])
                buffer.removeSubrange(..<end.upperBound)
                let lines = event.split(separator: "\n")
                guard lines.contains("event: state"), let data = lines.first(where: { $0.hasPrefix("data: ") }),
                      let state = try? JSONValue(parsing: String(data.dropFirst("data: ".count))) else { continue }
                if matches(state) { return state }
            }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000))
            guard poll(&poller, 1, milliseconds) >= 0 else { return nil }
            if poller.revents == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer += String(decoding: chunk[..<count], as: UTF8.self)
        }
    }
}
