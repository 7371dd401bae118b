#if canImport(Glibc)
import Glibc
#endif
import Foundation
import JSONSupport
import Synchronization
import Testing
import TestSupport
@testable import VirtualReader

/// The control channel's socket: where it lives (a private directory, a discovery record), what
/// the client checks before it sends a byte, and the limits that keep one client from holding up
/// the others or a stop. The requests are answered by a stand-in that records what it ran, so a
/// refusal can be shown to have run nothing.
@Suite("control channel: socket placement, client checks, limits")
struct ControlChannelSocketTests {
    /// Answers every request line with `{"ok":true,"line":…}` (`size` bytes of padding), after
    /// `pause`; records the lines it ran.
    final class Responder: Sendable {
        let ran = Mutex<[String]>([])
        let pause: Duration
        let slowOp: String?
        let size: Int

        /// `pause` applies to requests whose line contains `slowOp` (all of them when nil).
        init(pause: Duration = .zero, slowOp: String? = nil, size: Int = 0) {
            self.pause = pause
            self.slowOp = slowOp
            self.size = size
        }

        func respond(_ line: String) -> String {
            ran.withLock { $0.append(line) }
            if pause > .zero, slowOp.map({ line.contains($0) }) ?? true { Thread.sleep(forTimeInterval: Double(pause.components.seconds) + Double(pause.components.attoseconds) / 1e18) }
            let value: JSONValue = ["ok": true, "line": .string(line), "padding": .string(String(repeating: "x", count: size))]
            return value.text
        }

        var lines: [String] { ran.withLock { $0 } }
    }

    /// Work handed to the card, kept to run later (or never): a card that is busy.
    final class HeldWork: Sendable {
        let work = Mutex<[@Sendable () -> Void]>([])
        var executor: ControlChannel.Executor { { work in self.work.withLock { $0.append(work) } } }
        func runAll() { for item in work.withLock({ $0 }) { item() } }
    }

    /// Runs each request on a thread of its own, as a bridge runs it on its thread.
    static let threaded: ControlChannel.Executor = { work in Thread.detachNewThread(work) }

    static func channel(in directory: TemporaryDirectory, _ responder: Responder, timeout: Duration = .seconds(10),
                        executor: @escaping ControlChannel.Executor = threaded) throws -> ControlChannel {
        let channel = try ControlChannel(path: directory.file("ctl.sock"), requestTimeout: timeout, executor: executor,
                                         respond: responder.respond)
        channel.start()
        return channel
    }

    /// A raw, non-blocking connection to `path`.
    static func connectRaw(_ path: String) throws -> Int32 {
        let fd = ControlChannelSocket.makeSocket()
        guard ControlChannelSocket.connect(fd, to: path) == nil else { throw TestFailure("cannot connect to \(path)") }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    /// Everything `fd` still receives, blocking, until the channel closes it.
    static func readToEnd(_ fd: Int32) -> [UInt8] {
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        var buffer = [UInt8](repeating: 0, count: 65536)
        var received: [UInt8] = []
        while case let count = read(fd, &buffer, buffer.count), count > 0 { received += buffer[..<count] }
        return received
    }

    static func elapsed(_ body: () throws -> Void) rethrows -> Duration {
        let start = ContinuousClock.now
        try body()
        return ContinuousClock.now - start
    }

    // MARK: - Where the socket lives

    @Test("the default socket: a new 0700 directory, its path in a 0700 per-user record; all removed at stop")
    func defaultPlacement() throws {
        let directory = try TemporaryDirectory()
        let location = ControlChannelLocation(runtimeDirectory: nil, temporaryDirectory: directory.path)
        let endpoint = try #require(VPCDEndpoint.default.slot(1))
        let handler = ControlChannelHandler(card: nil, bridge: nil)
        let channel = try ControlChannel(defaultFor: endpoint, location: location, handler: handler) { $0() }
        channel.start()

        let socketDirectory = ControlChannelDirectory.parent(of: channel.path)
        #expect(socketDirectory.hasPrefix(directory.path + "/arculus-card."))
        #expect(channel.path == socketDirectory + "/port-35964.sock")
        #expect(try Self.mode(socketDirectory) == 0o700)
        #expect(location.recordDirectory == directory.path + "/arculus-card-\(geteuid())")
        #expect(try Self.mode(location.recordDirectory) == 0o700)
        #expect(try Self.mode(location.record(for: endpoint)) == 0o600)
        #expect(try String(contentsOfFile: location.record(for: endpoint), encoding: .utf8) == channel.path + "\n")
        #expect(try location.socketPath(for: endpoint) == channel.path)
        let answer = try ControlChannelClient(servingFor: endpoint, location: location).send(["op": "status"])
        #expect(answer["ok"] == false, "a stand-in card has no status: the request reached the handler")

        // A newer serve for the port takes the record; the older one leaves it alone on stopping.
        let newer = try ControlChannel(defaultFor: endpoint, location: location, handler: handler) { $0() }
        newer.start()
        #expect(try location.socketPath(for: endpoint) == newer.path)
        channel.stop()
        #expect(!FileManager.default.fileExists(atPath: socketDirectory), "the socket and its directory are removed")
        #expect(try location.socketPath(for: endpoint) == newer.path)
        newer.stop()
        #expect(throws: ControlChannelError.socket(
            "no served card has a control socket for port 35964 (no record \(location.record(for: endpoint))): is 'arculus-card serve' "
                + "running for it, with the same XDG_RUNTIME_DIR and TMPDIR? (a serve given --control PATH is reached with ctl --control PATH)")) {
            try location.socketPath(for: endpoint)
        }

        let runtime = ControlChannelLocation(runtimeDirectory: "/run/user/1000", temporaryDirectory: "/tmp")
        #expect(runtime.record(for: endpoint) == "/run/user/1000/arculus-card/port-35964")
        #expect(runtime.socketParent == "/run/user/1000")
    }

    @Test("XDG_RUNTIME_DIR is used only when it is a private directory of the user's; TMPDIR only when absolute")
    func environment() throws {
        let runtime = try TemporaryDirectory()
        #expect(chmod(runtime.path, 0o700) == 0)
        #expect(ControlChannelLocation.from(runtimeDirectory: runtime.path + "/", temporaryDirectory: "/var/tmp/")
                == ControlChannelLocation(runtimeDirectory: runtime.path, temporaryDirectory: "/var/tmp"))
        #expect(chmod(runtime.path, 0o777) == 0)
        #expect(ControlChannelLocation.from(runtimeDirectory: runtime.path, temporaryDirectory: nil)
                == ControlChannelLocation(runtimeDirectory: nil, temporaryDirectory: "/tmp"))
        #expect(ControlChannelLocation.from(runtimeDirectory: "relative", temporaryDirectory: "relative").runtimeDirectory == nil)
        #expect(ControlChannelLocation.from(runtimeDirectory: "", temporaryDirectory: "relative").temporaryDirectory == "/tmp")
        #expect(ControlChannelLocation.from(runtimeDirectory: runtime.path + "/missing", temporaryDirectory: nil).runtimeDirectory == nil)
    }

    @Test("a records directory others can write, or a link, stops serve and is refused by the client")
    func hijackedRecordDirectory() throws {
        let directory = try TemporaryDirectory()
        let location = ControlChannelLocation(runtimeDirectory: nil, temporaryDirectory: directory.path)
        let endpoint = VPCDEndpoint.default
        let records = location.recordDirectory
        #expect(mkdir(records, 0o700) == 0)
        #expect(chmod(records, 0o777) == 0)
        let handler = ControlChannelHandler(card: nil, bridge: nil)
        #expect(throws: ControlChannelError.socket(
            "cannot record the control socket for 'arculus-card ctl' in \(records): it is writable by other users (mode 0777); "
                + "remove it, or give --control PATH (a socket in a directory only you can write) or --no-control")) {
            try ControlChannel(defaultFor: endpoint, location: location, handler: handler) { $0() }
        }
        #expect(try directory.contents() == ["arculus-card-\(geteuid())"], "the socket made for the channel is gone again")
        #expect(throws: ControlChannelError.untrusted(path: records, reason: "it is writable by other users (mode 0777)")) {
            try location.socketPath(for: endpoint)
        }
        #expect(rmdir(records) == 0)
        let elsewhere = try TemporaryDirectory()
        #expect(symlink(elsewhere.path, records) == 0)
        #expect(throws: ControlChannelError.untrusted(path: records, reason: "it is a symbolic link")) {
            try location.socketPath(for: endpoint)
        }
    }

    @Test("an explicit path must be in a directory only the user can write")
    func explicitPathInOpenDirectory() throws {
        let directory = try TemporaryDirectory()
        #expect(chmod(directory.path, 0o1777) == 0)
        let path = directory.file("ctl.sock")
        #expect(throws: ControlChannelError.socket(
            "cannot create the control socket \(path): its directory \(directory.path) is writable by other users (mode 1777); "
                + "choose a directory only you can write, or leave --control out")) {
            try ControlChannel(path: path, handler: ControlChannelHandler(card: nil, bridge: nil)) { $0() }
        }
        #expect(try directory.contents().isEmpty)
    }

    // MARK: - What the client checks before sending

    @Test("the client refuses a socket whose directory others can write, or that others can use; it sends nothing")
    func clientRefusesOpenSockets() throws {
        let directory = try TemporaryDirectory()
        let responder = Responder()
        let channel = try Self.channel(in: directory, responder)
        defer { channel.stop() }
        let path = channel.path

        #expect(chmod(directory.path, 0o777) == 0)
        #expect(throws: ControlChannelError.untrusted(path: path, reason: "its directory \(directory.path) is writable by other users (mode 0777)")) {
            try ControlChannelClient(path: path)
        }
        #expect(chmod(directory.path, 0o755) == 0)
        #expect(chmod(path, 0o666) == 0)
        #expect(throws: ControlChannelError.untrusted(path: path, reason: "it is writable by other users (mode 0666)")) {
            try ControlChannelClient(path: path)
        }
        #expect(chmod(path, 0o600) == 0)
        #expect(ControlChannelError.untrusted(path: path, reason: "it is writable by other users (mode 0666)").description
                == "refusing \(path): it is writable by other users (mode 0666); nothing was sent")
        let plain = directory.file("plain")
        #expect(FileManager.default.createFile(atPath: plain, contents: Data()))
        #expect(throws: ControlChannelError.untrusted(path: plain, reason: "it is not a socket")) {
            try ControlChannelClient(path: plain)
        }
        #expect(responder.lines.isEmpty, "nothing reached the card")
        #expect(try ControlChannelClient(path: path).send(["op": "status"])["ok"] == true)
        #expect(responder.lines == [#"{"op":"status"}"#])
    }

    @Test("the client refuses a socket that belongs to another user", .enabled(if: geteuid() == 0, "needs root to give a file away"))
    func clientRefusesAnotherUsersSocket() throws {
        let directory = try TemporaryDirectory()
        let responder = Responder()
        let channel = try Self.channel(in: directory, responder)
        defer { channel.stop() }
        let nobody = try #require(getpwnam("nobody")).pointee.pw_uid
        #expect(chown(channel.path, nobody, gid_t.max) == 0)
        #expect(throws: ControlChannelError.untrusted(path: channel.path, reason: "it belongs to user nobody (uid \(nobody)), not to you (uid 0)")) {
            try ControlChannelClient(path: channel.path)
        }
        #expect(chown(directory.path, nobody, gid_t.max) == 0)
        #expect(throws: ControlChannelError.untrusted(
            path: channel.path, reason: "its directory \(directory.path) belongs to user nobody (uid \(nobody)), not to you (uid 0)")) {
            try ControlChannelClient(path: channel.path)
        }
        #expect(responder.lines.isEmpty)
    }

    // MARK: - Time-outs

    @Test("a request the card never starts is withdrawn: 'not taken', and it never runs later")
    func notTaken() throws {
        let directory = try TemporaryDirectory()
        let responder = Responder()
        let held = HeldWork()
        let channel = try Self.channel(in: directory, responder, timeout: .milliseconds(300), executor: held.executor)
        defer { channel.stop() }
        var answer: JSONValue = nil
        let waited = try Self.elapsed { answer = try ControlChannelClient(path: channel.path).send(["op": "pin", "set": "1234", "tag": 7]) }
        #expect(answer == ["ok": false, "errorKind": "not-taken", "tag": 7,
                           "error": "the card did not take the request within 0.3 s (it is busy with a command, or stopping); nothing was changed"])
        #expect(waited >= .milliseconds(300) && waited < .seconds(3))
        held.runAll()  // the card is free again: the withdrawn request must not run now
        #expect(responder.lines.isEmpty)
    }

    @Test("a request the card started and did not finish in time: 'unanswered, may have been carried out'")
    func unanswered() throws {
        let directory = try TemporaryDirectory()
        let responder = Responder(pause: .milliseconds(900), slowOp: "pin")
        let channel = try Self.channel(in: directory, responder, timeout: .milliseconds(300))
        defer { channel.stop() }
        let client = try ControlChannelClient(path: channel.path)
        let answer = try client.send(["op": "pin", "set": "1234"])
        #expect(answer == ["ok": false, "errorKind": "unanswered",
                           "error": "the card took the request but did not answer within 0.3 s; it may still have been carried out"])
        #expect(responder.lines == [#"{"op":"pin","set":"1234"}"#], "it did run")
        // The late answer is dropped; the next request on the connection gets its own answer.
        Thread.sleep(forTimeInterval: 0.8)
        #expect(try client.send(["op": "status"])["line"] == #"{"op":"status"}"#)
    }

    // MARK: - Clients that misbehave

    @Test("a client that sends without reading holds up neither other clients nor stop(), and is dropped")
    func clientThatNeverReads() throws {
        let directory = try TemporaryDirectory()
        let responder = Responder(size: 8192)
        let channel = try Self.channel(in: directory, responder, timeout: .milliseconds(500))
        let hog = try Self.connectRaw(channel.path)
        defer { close(hog) }
        let request = Array(#"{"op":"credentials.list"}"#.utf8) + [0x0A]
        var sent = 0
        while sent < 20_000, send(hog, request, request.count, Int32(MSG_NOSIGNAL)) == request.count { sent += 1 }
        #expect(sent > 100)

        for _ in 0..<5 {
            var answer: JSONValue = nil
            let waited = try Self.elapsed { answer = try ControlChannelClient(path: channel.path).send(["op": "status"]) }
            #expect(answer["ok"] == true)
            #expect(waited < .seconds(1), "another client waits \(waited)")
        }
        let ranForHog = responder.lines.count - 5
        #expect(ranForHog < 100, "the hog got \(ranForHog) requests run: it is not read while its answers pile up")

        // Its answers do not move for the time-out: it is disconnected (read to the end).
        Thread.sleep(forTimeInterval: 1.5)
        let total = Self.readToEnd(hog).count
        #expect(total > 0 && total < 8 * 1024 * 1024)

        let hog2 = try Self.connectRaw(channel.path)
        defer { close(hog2) }
        while send(hog2, request, request.count, Int32(MSG_NOSIGNAL)) == request.count {}
        let stopping = Self.elapsed { channel.stop() }
        #expect(stopping < .seconds(1), "stop() took \(stopping)")
    }

    @Test("at most 32 connections: the next one is answered 'busy' and closed; a freed slot is taken again")
    func connectionCap() throws {
        let directory = try TemporaryDirectory()
        let responder = Responder()
        let channel = try Self.channel(in: directory, responder)
        defer { channel.stop() }
        var held: [ControlChannelClient] = []
        for _ in 0..<ControlChannel.maximumConnections {
            let client = try ControlChannelClient(path: channel.path)
            #expect(try client.send(["op": "status"])["ok"] == true)
            held.append(client)
        }
        let refused = try ControlChannelClient(path: channel.path).send(["op": "pin", "set": "1234"])
        #expect(refused == ["ok": false, "errorKind": "busy",
                            "error": "too many control connections (at most 32 at once): close one and try again; nothing was changed"])
        #expect(!responder.lines.contains(#"{"op":"pin","set":"1234"}"#))
        held.removeFirst()
        var answer: JSONValue = nil
        for _ in 0..<40 {
            answer = try ControlChannelClient(path: channel.path).send(["op": "status"])
            if answer["ok"] == true { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(answer["ok"] == true)
    }

    @Test("every line received in full runs, even when the client leaves without reading the answers")
    func clientThatLeaves() throws {
        let directory = try TemporaryDirectory()
        let responder = Responder()
        let channel = try Self.channel(in: directory, responder)
        defer { channel.stop() }
        let fd = try Self.connectRaw(channel.path)
        let lines = Array("{\"op\":\"a\"}\n\n{\"op\":\"b\"}\r\n{\"op\":\"c\"".utf8)
        #expect(send(fd, lines, lines.count, Int32(MSG_NOSIGNAL)) == lines.count)
        close(fd)
        for _ in 0..<100 where responder.lines.count < 2 { Thread.sleep(forTimeInterval: 0.02) }
        Thread.sleep(forTimeInterval: 0.1)
        #expect(responder.lines == [#"{"op":"a"}"#, #"{"op":"b"}"#], "the unfinished third line does not run")
    }

    @Test("a line over 64 KiB is refused and the connection closed")
    func longLine() throws {
        let directory = try TemporaryDirectory()
        let responder = Responder()
        let channel = try Self.channel(in: directory, responder)
        defer { channel.stop() }
        let fd = try Self.connectRaw(channel.path)
        defer { close(fd) }
        let long = [UInt8](repeating: 0x20, count: ControlChannel.maximumLineLength + 4096)
        var offset = 0
        while offset < long.count {
            let count = long[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count > 0 { offset += count } else { Thread.sleep(forTimeInterval: 0.01) }
        }
        #expect(String(decoding: Self.readToEnd(fd), as: UTF8.self) == #"{"error":"request line longer than 65536 bytes","ok":false}"# + "\n")
        #expect(responder.lines.isEmpty)
    }

    static func mode(_ path: String) throws -> UInt32 {
        var status = stat()
        guard lstat(path, &status) == 0 else { throw TestFailure("no \(path)") }
        return UInt32(status.st_mode) & 0o7777
    }
}
