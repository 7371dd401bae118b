#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization
import VirtualReader

/// Plays vpcd's side in tests: a TCP listener on 127.0.0.1 with an ephemeral port that the
/// bridge connects to. Everything waits with a timeout so a failing test cannot hang.
final class FakeVPCD {
    private(set) var listener: Int32 = -1
    private(set) var connection: Int32 = -1
    private(set) var port: UInt16 = 0

    init?(port requested: UInt16 = 0) {
        guard listen(on: requested) else { return nil }
    }

    deinit {
        closeConnection()
        closeListener()
    }

    var endpoint: VPCDEndpoint { VPCDEndpoint(host: "127.0.0.1", port: port) }

    @discardableResult
    func listen(on requested: UInt16) -> Bool {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return false }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = requested.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, Glibc.listen(fd, 4) == 0 else {
            Glibc.close(fd)
            return false
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
        return true
    }

    /// Waits for the bridge to connect.
    func accept(timeout: Duration = .seconds(5)) -> Bool {
        guard wait(listener, timeout: timeout) else { return false }
        let fd = Glibc.accept(listener, nil, nil)
        guard fd >= 0 else { return false }
        closeConnection()
        connection = fd
        return true
    }

    func closeConnection() {
        if connection >= 0 { Glibc.close(connection) }
        connection = -1
    }

    func closeListener() {
        if listener >= 0 { Glibc.close(listener) }
        listener = -1
    }

    /// Sends a framed message, in one write or, like Debian's vpcd, length then payload.
    func send(_ payload: [UInt8], split: Bool = false) {
        let framed = [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
        if split {
            write(Array(framed.prefix(2)))
            usleep(2000)
            write(Array(framed.dropFirst(2)))
        } else {
            write(framed)
        }
    }

    func write(_ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count <= 0 { return }
            sent += count
        }
    }

    /// Reads one framed message; nil on timeout or close.
    func receive(timeout: Duration = .seconds(5)) -> [UInt8]? {
        guard let header = read(2, timeout: timeout), header.count == 2 else { return nil }
        let length = Int(header[0]) << 8 | Int(header[1])
        if length == 0 { return [] }
        return read(length, timeout: timeout)
    }

    /// Sends a message and returns the framed answer.
    func exchange(_ payload: [UInt8]) -> [UInt8]? {
        send(payload)
        return receive()
    }

    /// True when the bridge closed the connection within `timeout`.
    func waitForClose(timeout: Duration) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while clock.now < deadline {
            guard wait(connection, timeout: clock.now.duration(to: deadline)) else { return false }
            var byte: UInt8 = 0
            let count = recv(connection, &byte, 1, 0)
            if count <= 0 { return true }
        }
        return false
    }

    /// True when nothing arrives (and the connection stays open) for `duration`.
    func staysQuiet(for duration: Duration) -> Bool {
        !wait(connection, timeout: duration)
    }

    private func read(_ count: Int, timeout: Duration) -> [UInt8]? {
        var bytes: [UInt8] = []
        while bytes.count < count {
            guard wait(connection, timeout: timeout) else { return nil }
            var buffer = [UInt8](repeating: 0, count: count - bytes.count)
            let received = recv(connection, &buffer, buffer.count, 0)
            if received <= 0 { return nil }
            bytes += buffer.prefix(received)
        }
        return bytes
    }

    private func wait(_ fd: Int32, timeout: Duration) -> Bool {
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
        let (seconds, attoseconds) = timeout.components
        let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        return poll(&fds, 1, milliseconds) > 0
    }
}

/// A card that records what the bridge does to it; answers every APDU with the APDU's INS
/// and `9000`.
final class RecordingCard: ReaderCard, @unchecked Sendable {
    // Called on the bridge thread, read on the test thread: all through the mutex.
    private let log = Mutex<[String]>([])
    let atr: [UInt8] = [0x3B, 0x8A, 0x80, 0x01, 0x80, 0x73, 0xC8, 0x21, 0x13, 0x66, 0x02, 0x06, 0x11]

    var events: [String] { log.withLock { $0 } }

    func powerOn() { log.withLock { $0.append("on") } }
    func powerOff() { log.withLock { $0.append("off") } }
    func reset() { log.withLock { $0.append("reset") } }
    func transmit(_ apdu: [UInt8]) -> [UInt8] {
        log.withLock { $0.append("apdu \(apdu.count)") }
        return apdu.count >= 2 ? [apdu[1], 0x90, 0x00] : [0x67, 0x00]
    }
}

/// Collects the bridge's trace events for the test thread.
final class TraceLog: @unchecked Sendable {
    private let events = Mutex<[VPCDBridge.Event]>([])

    var hook: @Sendable (VPCDBridge.Event) -> Void {
        { [self] event in events.withLock { $0.append(event) } }
    }

    var all: [VPCDBridge.Event] { events.withLock { $0 } }

    var disconnectReasons: [VPCDBridge.DisconnectReason] {
        all.compactMap { if case .disconnected(let reason) = $0 { reason } else { nil } }
    }

    var waitingCount: Int {
        all.filter { if case .waitingForDriver = $0 { true } else { false } }.count
    }

    var connectedCount: Int {
        all.filter { if case .connected = $0 { true } else { false } }.count
    }

    var stopped: Bool {
        all.contains { if case .stopped = $0 { true } else { false } }
    }
}
