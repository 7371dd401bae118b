#if canImport(Glibc)
import Glibc
#endif
import Testing
import VirtualReader

@Suite("vpcd bridge against an in-test vpcd")
struct VPCDBridgeTests {
    static let fast = VPCDBridge.Options(silenceGuard: .milliseconds(400), guardRetapDelay: .milliseconds(200), retryInterval: .milliseconds(100), connectTimeout: .seconds(1))

    /// Starts a bridge to `vpcd` and hands it to `body`; stops it afterwards.
    func withBridge(_ vpcd: FakeVPCD, card: RecordingCard = RecordingCard(), trace: TraceLog = TraceLog(),
                    options: VPCDBridge.Options = fast, _ body: (VPCDBridge) throws -> Void) rethrows {
        let bridge = VPCDBridge(card: card, endpoint: vpcd.endpoint, options: options, trace: trace.hook)
        bridge.start()
        defer {
            bridge.stop()
            bridge.wait()
        }
        try body(bridge)
    }

    @Test func powerOnATRAPDUPowerOff() throws {
        let vpcd = try #require(FakeVPCD())
        let card = RecordingCard()
        let trace = TraceLog()
        withBridge(vpcd, card: card, trace: trace) { _ in
            #expect(vpcd.accept())
            #expect(vpcd.exchange([0x04]) == card.atr)
            vpcd.send([0x01])
            #expect(vpcd.exchange([0x00, 0xA4, 0x04, 0x00]) == [0xA4, 0x90, 0x00])
            // Like Debian's vpcd: length and payload in two writes.
            vpcd.send([0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00], split: true)
            #expect(vpcd.receive() == [0x10, 0x90, 0x00])
            vpcd.send([0x02])
            #expect(vpcd.exchange([0x04]) == card.atr)
            vpcd.send([0x00])
            #expect(vpcd.exchange([0x04]) == card.atr)
        }
        #expect(Array(card.events.prefix(5)) == ["on", "apdu 4", "apdu 7", "reset", "off"])
        #expect(trace.stopped)
        #expect(trace.disconnectReasons == [.stopped])
        let exchanges = trace.all.compactMap { event -> [UInt8]? in
            if case .exchange(let command, _, _) = event { command } else { nil }
        }
        #expect(exchanges == [[0x00, 0xA4, 0x04, 0x00], [0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00]])
    }

    @Test func byteByByteDelivery() throws {
        let vpcd = try #require(FakeVPCD())
        withBridge(vpcd) { _ in
            #expect(vpcd.accept())
            for byte: UInt8 in [0x00, 0x05, 0x00, 0xC0, 0x00, 0x00, 0x00] {
                vpcd.write([byte])
                usleep(1000)
            }
            #expect(vpcd.receive() == [0xC0, 0x90, 0x00])
        }
    }

    @Test(arguments: [UInt8(0x03), 0x05, 0x80, 0xFF])
    func oneByteAPDUAnswersWrongLength(byte: UInt8) throws {
        let vpcd = try #require(FakeVPCD())
        let card = RecordingCard()
        withBridge(vpcd, card: card) { _ in
            #expect(vpcd.accept())
            #expect(vpcd.exchange([byte]) == [0x67, 0x00])
            #expect(vpcd.exchange([0x00, 0xA4, 0x04, 0x00]) == [0xA4, 0x90, 0x00])
        }
        #expect(!card.events.contains("apdu 1"))
    }

    @Test func emptyMessageAnswersWrongLength() throws {
        let vpcd = try #require(FakeVPCD())
        withBridge(vpcd) { _ in
            #expect(vpcd.accept())
            #expect(vpcd.exchange([]) == [0x67, 0x00])
        }
    }

    /// The one-byte hole: a control code the driver meant as an APDU, then silence. The
    /// bridge must drop the connection after the guard time and come back.
    @Test(arguments: [UInt8(0x00), 0x01, 0x02])
    func silenceAfterControlCodeReconnects(code: UInt8) throws {
        let vpcd = try #require(FakeVPCD())
        let card = RecordingCard()
        let trace = TraceLog()
        withBridge(vpcd, card: card, trace: trace) { _ in
            #expect(vpcd.accept())
            #expect(vpcd.exchange([0x04]) == card.atr)
            let clock = ContinuousClock()
            let start = clock.now
            vpcd.send([code])
            #expect(vpcd.waitForClose(timeout: .seconds(3)))
            let waited = start.duration(to: clock.now)
            #expect(waited >= .milliseconds(350))
            let closed = clock.now
            #expect(vpcd.accept(timeout: .seconds(3)))
            // Away long enough for pcscd's presence polling to notice.
            #expect(closed.duration(to: clock.now) >= .milliseconds(180))
            #expect(vpcd.exchange([0x04]) == card.atr)
        }
        #expect(trace.disconnectReasons.first == .silenceAfterControl(code))
        #expect(trace.connectedCount == 2)
        #expect(card.events.last == "off")
    }

    /// Genuine control codes are followed by get-ATR polls, which keep the guard quiet.
    @Test func pollingAfterControlCodeKeepsTheConnection() throws {
        let vpcd = try #require(FakeVPCD())
        let card = RecordingCard()
        let trace = TraceLog()
        withBridge(vpcd, card: card, trace: trace) { _ in
            #expect(vpcd.accept())
            vpcd.send([0x01])
            for _ in 0..<8 {
                usleep(150_000)
                #expect(vpcd.exchange([0x04]) == card.atr)
            }
            // After a get-ATR the guard is off: silence is fine.
            #expect(vpcd.staysQuiet(for: .milliseconds(800)))
            #expect(vpcd.exchange([0x04]) == card.atr)
        }
        #expect(trace.disconnectReasons == [.stopped])
    }

    /// A driver, a card and a trace around a running bridge whose first connection the driver
    /// has accepted; `body` plays the driver. Returns the trace, complete once the bridge stopped.
    func afterConnecting(options: VPCDBridge.Options = fast,
                         _ body: (FakeVPCD, RecordingCard, VPCDBridge) throws -> Void) throws -> TraceLog {
        let vpcd = try #require(FakeVPCD())
        let card = RecordingCard()
        let trace = TraceLog()
        try withBridge(vpcd, card: card, trace: trace, options: options) { bridge in
            try #require(vpcd.accept())
            try body(vpcd, card, bridge)
        }
        return trace
    }

    /// What `step` said, and how long it took.
    func timed(_ step: () -> Bool) -> (ok: Bool, took: Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let ok = step()
        return (ok, start.duration(to: clock.now))
    }

    /// A connection the driver never polls (it never accepted it) is dropped and made again at
    /// once: pcscd never saw that card, so there is nothing for it to see go.
    @Test func aConnectionNeverPolledIsMadeAgain() throws {
        var options = Self.fast
        options.firstMessageWait = .milliseconds(300)
        let trace = try afterConnecting(options: options) { vpcd, card, _ in
            let closing = timed { vpcd.waitForClose(timeout: .seconds(2)) }
            #expect(closing.ok && closing.took >= .milliseconds(280))
            let back = timed { vpcd.accept(timeout: .seconds(2)) }
            #expect(back.ok && back.took < .milliseconds(150))
            #expect(vpcd.exchange([0x04]) == card.atr)
        }
        #expect(trace.disconnectReasons.first == .notPolled(after: .milliseconds(300)))
        #expect(trace.connectedCount == 2)
    }

    /// pcscd polls the new card but never powers it on (seen after kill -9 of a card process in
    /// the middle of an exchange): the bridge leaves the next poll unanswered, so that pcscd sees
    /// the reader empty, and connects again at once; a real insertion then keeps the connection.
    @Test func pollsWithoutAPowerOnMakeTheConnectionAgain() throws {
        let trace = try afterConnecting { vpcd, card, _ in
            #expect(vpcd.exchange([0x04]) == card.atr)
            usleep(250_000)  // a poll later: insertionWait is 200 ms
            vpcd.send([0x04])
            #expect(vpcd.receive(timeout: .seconds(1)) == nil, "the poll is left unanswered")
            #expect(vpcd.accept(timeout: .seconds(2)))
            #expect(vpcd.exchange([0x04]) == card.atr)
            vpcd.send([0x01])
            #expect(vpcd.exchange([0x04]) == card.atr)
            usleep(250_000)
            #expect(vpcd.exchange([0x04]) == card.atr)
        }
        #expect(trace.disconnectReasons == [.notPoweredOn, .stopped])
        #expect(trace.connectedCount == 2)
    }

    /// A driver that stops sending anything, get-ATR polls included, has stopped serving the
    /// card: the bridge re-taps it, away long enough for pcscd to see the reader empty.
    @Test func silenceAfterAPollMakesTheConnectionAgain() throws {
        var options = Self.fast
        options.silenceLimit = .milliseconds(500)
        let trace = try afterConnecting(options: options) { vpcd, card, _ in
            vpcd.send([0x01])
            #expect(vpcd.exchange([0x04]) == card.atr)
            let closing = timed { vpcd.waitForClose(timeout: .seconds(2)) }
            #expect(closing.ok && closing.took >= .milliseconds(450))
            let back = timed { vpcd.accept(timeout: .seconds(3)) }
            #expect(back.ok && back.took >= .milliseconds(180))
            #expect(vpcd.exchange([0x04]) == card.atr)
        }
        #expect(trace.disconnectReasons.first == .driverSilent(after: .milliseconds(500)))
    }

    /// `ctl remove`: the card stays off until put back, and the trace says so (it used to say
    /// "tapping again in 0.0 seconds").
    @Test func takeOffReaderUntilPutBack() throws {
        let trace = try afterConnecting { vpcd, card, bridge in
            vpcd.send([0x01])
            #expect(vpcd.exchange([0x04]) == card.atr)
            bridge.takeOffReader()
            #expect(vpcd.waitForClose(timeout: .seconds(1)))
            #expect(!vpcd.accept(timeout: .milliseconds(600)))
            bridge.putOnReader()
            #expect(vpcd.accept(timeout: .seconds(2)))
            #expect(vpcd.exchange([0x04]) == card.atr)
        }
        #expect(trace.disconnectReasons == [.heldOffReader, .stopped])
        #expect(VPCDBridge.DisconnectReason.heldOffReader.description == "card taken off the reader until it is put back ('insert')")
    }

    @Test(arguments: [(Duration.seconds(1), "1 s"), (.milliseconds(1500), "1.5 s"), (.milliseconds(250), "0.25 s"),
                      (.zero, "0 s")])
    func tapDelaysInSeconds(delay: Duration, text: String) {
        #expect(VPCDBridge.DisconnectReason.removeAndTap(after: delay).description == "card taken off the reader, tapping again in \(text)")
    }

    @Test func reconnectsAfterTheDriverGoesAway() throws {
        let vpcd = try #require(FakeVPCD())
        let port = vpcd.port
        let card = RecordingCard()
        let trace = TraceLog()
        withBridge(vpcd, card: card, trace: trace) { _ in
            #expect(vpcd.accept())
            vpcd.send([0x01])
            #expect(vpcd.exchange([0x04]) == card.atr)
            // pcscd stops: listener and connection go (the listener first, so that the bridge's
            // immediate reconnect cannot slip into it before it closes).
            vpcd.closeListener()
            vpcd.closeConnection()
            usleep(700_000)  // several retries at 100 ms
            #expect(vpcd.listen(on: port))
            #expect(vpcd.accept(timeout: .seconds(3)))
            #expect(vpcd.exchange([0x04]) == card.atr)
        }
        #expect(trace.disconnectReasons.first == .driverClosed)
        #expect(trace.waitingCount == 1)
        #expect(trace.connectedCount == 2)
        #expect(card.events.contains("off"))
    }

    @Test func waitsForADriverThatIsNotThereYet() throws {
        let vpcd = try #require(FakeVPCD())
        let port = vpcd.port
        vpcd.closeListener()
        let trace = TraceLog()
        let card = RecordingCard()
        withBridge(vpcd, card: card, trace: trace) { _ in
            usleep(500_000)
            #expect(vpcd.listen(on: port))
            #expect(vpcd.accept(timeout: .seconds(3)))
            #expect(vpcd.exchange([0x04]) == card.atr)
        }
        #expect(trace.waitingCount == 1)
    }

    @Test func removeAndTap() throws {
        let vpcd = try #require(FakeVPCD())
        let card = RecordingCard()
        let trace = TraceLog()
        withBridge(vpcd, card: card, trace: trace) { bridge in
            #expect(vpcd.accept())
            vpcd.send([0x01])
            #expect(vpcd.exchange([0x04]) == card.atr)
            let clock = ContinuousClock()
            let start = clock.now
            bridge.removeAndTap(after: .milliseconds(300))
            #expect(vpcd.waitForClose(timeout: .seconds(2)))
            #expect(vpcd.accept(timeout: .seconds(3)))
            #expect(start.duration(to: clock.now) >= .milliseconds(290))
            #expect(vpcd.exchange([0x04]) == card.atr)
        }
        #expect(trace.disconnectReasons.first == .removeAndTap(after: .milliseconds(300)))
        #expect(Array(card.events.prefix(2)) == ["on", "off"])
    }

    /// The rest of a begun message is read blocking for at most 50 ms, then through poll again:
    /// a payload that comes later is still answered, and a stop mid-message still ends at once.
    @Test func restOfAMessageAfterALongPause() throws {
        let vpcd = try #require(FakeVPCD())
        withBridge(vpcd) { _ in
            #expect(vpcd.accept())
            vpcd.write([0x00, 0x05, 0x00])
            usleep(200_000)
            vpcd.write([0xC0, 0x00, 0x00, 0x00])
            #expect(vpcd.receive() == [0xC0, 0x90, 0x00])
        }
    }

    /// How long `stop()` then `wait()` take.
    static func timeToStop(_ bridge: VPCDBridge) -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        bridge.stop()
        bridge.wait()
        return start.duration(to: clock.now)
    }

    @Test func stopEndsPromptlyMidMessage() throws {
        let vpcd = try #require(FakeVPCD())
        let bridge = VPCDBridge(card: RecordingCard(), endpoint: vpcd.endpoint, options: Self.fast)
        bridge.start()
        #expect(vpcd.accept())
        vpcd.write([0x00, 0x05, 0x00])
        usleep(100_000)
        #expect(Self.timeToStop(bridge) < .milliseconds(400))
        #expect(vpcd.waitForClose(timeout: .seconds(1)))
    }

    @Test func stopEndsPromptlyEvenWhileDisconnected() throws {
        let vpcd = try #require(FakeVPCD())
        vpcd.closeListener()
        let trace = TraceLog()
        let bridge = VPCDBridge(card: RecordingCard(), endpoint: vpcd.endpoint, options: .init(), trace: trace.hook)
        bridge.start()
        usleep(200_000)
        #expect(Self.timeToStop(bridge) < .milliseconds(400))
        #expect(trace.stopped)
    }

    @Test func stopClosesTheConnection() throws {
        let vpcd = try #require(FakeVPCD())
        let card = RecordingCard()
        let bridge = VPCDBridge(card: card, endpoint: vpcd.endpoint, options: Self.fast)
        bridge.start()
        #expect(vpcd.accept())
        vpcd.send([0x01])
        #expect(vpcd.exchange([0x04]) == card.atr)
        bridge.stop()
        #expect(vpcd.waitForClose(timeout: .seconds(1)))
        bridge.wait()
        #expect(card.events.last == "off")
    }

    @Test func runOnTheCallingThreadReturnsAfterStop() throws {
        let vpcd = try #require(FakeVPCD())
        let bridge = VPCDBridge(card: RecordingCard(), endpoint: vpcd.endpoint, options: Self.fast)
        // Stop before run: run returns at once.
        bridge.stop()
        bridge.run()
    }
}
