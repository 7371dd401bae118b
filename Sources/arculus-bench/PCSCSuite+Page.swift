#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import PCSC

/// The card page's cost (`serve --ui`): getAssertion round trips through pcscd to a card served
/// without the page, with the page and none open, and with one page open (an event-stream client
/// reading every trace row and state push, as the page's EventSource does). In each round the
/// three serve processes take turns on the reader, in an order that rotates from round to round,
/// so that drifting machine load falls on all three alike.
extension PCSCSuite {
    struct PageResults {
        /// getAssertion round trips per second, per round.
        var plain: [Double] = []
        var idle: [Double] = []
        var watched: [Double] = []
        /// Event-stream bytes the open page received, per round.
        var streamBytes: [Int] = []
    }

    enum PageMode: CaseIterable {
        case plain, idle, watched
    }

    /// The three rates in each round.
    func runPage(_ context: PCSCContext) -> Result<PageResults, BenchError> {
        var results = PageResults()
        var session = Session()
        var ignored = Results()
        do {
            for round in 0..<plan.rounds {
                progress("  round \(round + 1)/\(plan.rounds): serve, serve --ui (no page), serve --ui (one page open)")
                let modes = PageMode.allCases
                for offset in modes.indices {
                    let mode = modes[(offset + round) % modes.count]
                    let (rate, bytes) = try pageRound(mode, context, &ignored, &session)
                    switch mode {
                    case .plain: results.plain.append(rate)
                    case .idle: results.idle.append(rate)
                    case .watched:
                        results.watched.append(rate)
                        results.streamBytes.append(bytes)
                    }
                }
            }
            return .success(results)
        } catch let error as BenchError {
            return .failure(error)
        } catch {
            return .failure(BenchError("\(error)"))
        }
    }

    /// One serve process in `mode`: its getAssertion round trips per second (1 / the median round
    /// trip), and what its page's event stream carried.
    private func pageRound(_ mode: PageMode, _ context: PCSCContext, _ results: inout Results,
                           _ session: inout Session) throws -> (Double, Int) {
        let port = try Self.freePort()
        var arguments = ["serve", "--profile", profilePath, "--vpcd", "127.0.0.1:\(reader.port)", "--no-control"]
        if mode != .plain { arguments += ["--ui", "127.0.0.1:\(port)"] }
        let serve = try start(serveBinary, arguments, on: reader, atr: serveATR, context) { _ in } contended: {}
        defer { serve.stop() }
        var stream: EventStreamReader?
        if mode == .watched {
            stream = try EventStreamReader(port: port, secret: try pageSecret(port: port))
        }
        let card = try reader.connect(context)
        try prepare(card, &results, &session)
        let seconds = try Self.roundTrips(card, session.getAssertion, plan: plan)
        let bytes = stream?.stop() ?? 0
        if mode == .watched, bytes == 0 { throw BenchError("the page's event stream carried nothing") }
        try finish(card, serve, on: reader, atr: serveATR, context)
        return (1 / seconds, bytes)
    }

    /// The secret of the page on `port`, from the line serve printed (`ui on http://…/?t=…`).
    private func pageSecret(port: UInt16) throws -> String {
        let prefix = "ui on http://127.0.0.1:\(port)/?t="
        let deadline = monotonicNanoseconds() + 5_000_000_000
        while monotonicNanoseconds() < deadline {
            if let log = try? String(contentsOfFile: logPath, encoding: .utf8),
               let line = log.split(separator: "\n").last(where: { $0.hasPrefix(prefix) }) {
                return String(line.dropFirst(prefix.count))
            }
            usleep(20_000)
        }
        throw BenchError("serve --ui printed no 'ui on' line for port \(port) (see \(logPath))")
    }

    /// A loopback port free now.
    static func freePort() throws -> UInt16 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BenchError("no free loopback port: \(String(cString: strerror(errno)))") }
        return UInt16(bigEndian: address.sin_port)
    }
}

/// One open card page, as far as serve can tell: an event-stream client on a thread of its own
/// that reads everything sent until stopped.
final class EventStreamReader: @unchecked Sendable {
    // Sendability: `fd` is set once; `received` and `done` are behind `lock`.
    private let fd: Int32
    private let lock = NSLock()
    private var received = 0
    private var done = false
    private var thread: Thread?

    init(port: UInt16, secret: String) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else {
            close(fd)
            throw BenchError("cannot connect to the card page on port \(port): \(String(cString: strerror(errno)))")
        }
        let request = Array("GET /events?t=\(secret) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        let thread = Thread { [self] in self.read() }
        self.thread = thread
        thread.start()
    }

    private func read() {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(fd, &buffer, buffer.count, 0)
            lock.lock()
            if count > 0 { received += count }
            let stop = done || count <= 0
            lock.unlock()
            if stop { return }
        }
    }

    /// Stops reading; the bytes received.
    func stop() -> Int {
        lock.lock()
        done = true
        let total = received
        lock.unlock()
        shutdown(fd, Int32(SHUT_RDWR))
        while thread?.isFinished == false { usleep(1_000) }
        close(fd)
        return total
    }
}
