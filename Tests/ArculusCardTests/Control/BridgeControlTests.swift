#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArculusCard
import Synchronization
import Testing
import VirtualReader
import TestSupport

/// The driver side of vpcd, reduced to what these tests need: listen, accept the card's
/// connection, send framed messages, read framed answers or see the connection end.
final class DriverStub {
    let port: UInt16
    private let listener: Int32

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 4) == 0 else {
            close(fd)
            throw TestFailure("cannot listen")
        }
        var size = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &size) }
        }
        port = UInt16(bigEndian: address.sin_port)
        listener = fd
    }

    deinit { close(listener) }

    /// The card's next connection, or nil within `timeout`.
    func accept(within timeout: Duration) -> Int32? {
        var fds = [pollfd(fd: listener, events: Int16(POLLIN), revents: 0)]
        guard poll(&fds, 1, Int32(timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)) == 1 else {
            return nil
        }
        let fd = Glibc.accept(listener, nil, nil)
        return fd >= 0 ? fd : nil
    }

    func send(_ fd: Int32, _ message: [UInt8]) {
        let framed = [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
        _ = framed.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// The next framed answer, or nil when the connection ended first.
    func receive(_ fd: Int32) -> [UInt8]? {
        func read(_ count: Int) -> [UInt8]? {
            var bytes: [UInt8] = []
            while bytes.count < count {
                var chunk = [UInt8](repeating: 0, count: count - bytes.count)
                let got = recv(fd, &chunk, chunk.count, 0)
                if got <= 0 { return nil }
                bytes += chunk[0..<got]
            }
            return bytes
        }
        guard let header = read(2) else { return nil }
        return read(Int(header[0]) << 8 | Int(header[1]))
    }
}

/// A card and a bridge to a driver stub, wired the way `arculus-card serve` wires them.
final class BridgedCard {
    let driver: DriverStub
    let card: VirtualCard
    let bridge: VPCDBridge

    init() throws {
        driver = try DriverStub()
        card = try VirtualCard()
        bridge = VPCDBridge(card: card, endpoint: VPCDEndpoint(host: "127.0.0.1", port: driver.port),
                            options: .init(retryInterval: .milliseconds(50)))
        let bridge = bridge
        card.control.onLeaveField = { bridge.removeAndTap(after: $0) }
        card.waiter = bridge.cardWaiter
        bridge.start()
    }

    deinit {
        bridge.stop()
        bridge.wait()
    }

    /// Runs `work` on the bridge thread and waits for it.
    func onBridge<Value: Sendable>(_ work: @escaping @Sendable () -> Value) throws -> Value {
        let result = Mutex<Value?>(nil)
        bridge.perform { result.withLock { $0 = work() } }
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while ContinuousClock.now < deadline {
            if let value = result.withLock({ $0 }) { return value }
            usleep(2000)
        }
        throw TestFailure("the bridge never ran the work")
    }
}

/// `VirtualCard` is used only from the bridge thread inside `onBridge`.
struct CardHandle: @unchecked Sendable {
    let card: VirtualCard
}

@Suite("Control through the reader bridge")
struct BridgeControlTests {
    @Test("work handed to the bridge runs on its thread, also while it waits for the driver")
    func perform() throws {
        let bridged = try BridgedCard()
        let handle = CardHandle(card: bridged.card)
        let counter = try bridged.onBridge { () -> UInt32 in
            try? handle.card.setSignatureCounter(9)
            return handle.card.pinState.signatureCounter
        }
        #expect(counter == 9)
        let connection = try #require(bridged.driver.accept(within: .seconds(5)))
        defer { close(connection) }
        #expect(try bridged.onBridge { handle.card.isInField })
    }

    @Test("a stop ends the card's hour-long delay at once; the answer the card had goes out")
    func stopDuringDelay() throws {
        let bridged = try BridgedCard()
        try bridged.card.injectFault(.delay(.seconds(3600)), on: .select)
        let connection = try #require(bridged.driver.accept(within: .seconds(5)))
        defer { close(connection) }
        bridged.driver.send(connection, [0x01])
        bridged.driver.send(connection, ControlAPDU.select)
        usleep(100_000)
        let clock = ContinuousClock()
        let stopTime = clock.measure {
            bridged.bridge.stop()
            bridged.bridge.wait()
        }
        #expect(stopTime < .seconds(1))
        #expect(bridged.driver.receive(connection) == Array("FIDO_2_0".utf8) + [0x90, 0x00],
                "the answer the card had, sent at once")
    }

    @Test("while the card waits for the person (ask mode), control work runs on the bridge thread and answers it")
    func controlDuringPresenceWait() throws {
        let bridged = try BridgedCard()
        let handle = CardHandle(card: bridged.card)
        bridged.card.presenceMode = .ask
        let connection = try #require(bridged.driver.accept(within: .seconds(5)))
        defer { close(connection) }
        bridged.driver.send(connection, [0x01])
        bridged.driver.send(connection, ControlAPDU.select)
        #expect(bridged.driver.receive(connection)?.suffix(2) == [0x90, 0x00])
        // P1 00: the card holds the APDU until the answer.
        bridged.driver.send(connection, ControlAPDU.ctap(ControlAPDU.request(.reset)))
        var id: Int?
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while id == nil && ContinuousClock.now < deadline {
            id = try bridged.onBridge { handle.card.pendingPresence?.id }
        }
        let prompt = try #require(id)
        try bridged.onBridge { try? handle.card.answerPresence(id: prompt, approve: true) }
        #expect(bridged.driver.receive(connection) == [CTAPStatus.ok.rawValue, 0x90, 0x00])
    }

    @Test("a tap while the card waits out a delay: the wait ends, the card leaves the reader and comes back")
    func tapDuringDelay() throws {
        let bridged = try BridgedCard()
        try bridged.card.injectFault(.delay(.seconds(3600)), on: .select, once: true)
        let first = try #require(bridged.driver.accept(within: .seconds(5)))
        defer { close(first) }
        bridged.driver.send(first, [0x01])
        bridged.driver.send(first, ControlAPDU.select)
        usleep(100_000)
        bridged.bridge.removeAndTap(after: .milliseconds(100))
        #expect(bridged.driver.receive(first) == Array("FIDO_2_0".utf8) + [0x90, 0x00])
        #expect(bridged.driver.receive(first) == nil, "then the connection ended")
        let second = try #require(bridged.driver.accept(within: .seconds(5)))
        defer { close(second) }
        bridged.driver.send(second, [0x01])
        bridged.driver.send(second, ControlAPDU.select)
        #expect(bridged.driver.receive(second) == Array("FIDO_2_0".utf8) + [0x90, 0x00])
    }

    @Test("leaving the field: the bridge drops the connection without answering, then taps again")
    func leaveField() throws {
        let bridged = try BridgedCard()
        try bridged.card.injectFault(.leaveField(away: .milliseconds(300)), on: .select)
        let first = try #require(bridged.driver.accept(within: .seconds(5)))
        defer { close(first) }
        bridged.driver.send(first, [0x01])
        bridged.driver.send(first, ControlAPDU.select)
        #expect(bridged.driver.receive(first) == nil, "no answer: the connection ended")
        let gone = ContinuousClock.now
        let second = try #require(bridged.driver.accept(within: .seconds(5)))
        defer { close(second) }
        #expect(ContinuousClock.now - gone >= .milliseconds(250))
        bridged.driver.send(second, [0x01])
        bridged.driver.send(second, ControlAPDU.select)
        #expect(bridged.driver.receive(second) == Array("FIDO_2_0".utf8) + [0x90, 0x00])
        #expect(bridged.card.faultLog.count == 1)
    }

    @Test("takeOffReader keeps the card away until putOnReader")
    func removeAndInsert() throws {
        let bridged = try BridgedCard()
        let first = try #require(bridged.driver.accept(within: .seconds(5)))
        defer { close(first) }
        bridged.bridge.takeOffReader()
        #expect(bridged.driver.receive(first) == nil)
        #expect(bridged.bridge.isHeldOffReader)
        #expect(bridged.driver.accept(within: .milliseconds(400)) == nil, "held off the reader")
        bridged.bridge.putOnReader()
        let second = try #require(bridged.driver.accept(within: .seconds(5)))
        close(second)
        #expect(!bridged.bridge.isHeldOffReader)
    }
}
