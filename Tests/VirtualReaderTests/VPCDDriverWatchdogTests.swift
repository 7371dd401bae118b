import Testing
@testable import VirtualReader

@Suite("vpcd driver watchdog")
struct VPCDDriverWatchdogTests {
    static let options = VPCDBridge.Options(silenceGuard: .seconds(2), firstMessageWait: .seconds(1),
                                            insertionWait: .milliseconds(200), silenceLimit: .seconds(3))
    static let start = ContinuousClock.Instant.now

    static func at(_ milliseconds: Int) -> ContinuousClock.Instant { start.advanced(by: .milliseconds(milliseconds)) }

    @Test func aConnectionNeverPolledIsGivenUpAfterTheFirstMessageWait() {
        let watchdog = VPCDDriverWatchdog(connectedAt: Self.start, options: Self.options)
        #expect(watchdog.deadline == Self.at(1000))
        #expect(watchdog.expired(at: Self.at(999)) == nil)
        #expect(watchdog.expired(at: Self.at(1000)) == .notPolled(after: .seconds(1)))
    }

    /// pcscd's insertion: get-ATR, get-ATR and power-on within a millisecond; then polls.
    @Test func anInsertionKeepsTheConnection() {
        var watchdog = VPCDDriverWatchdog(connectedAt: Self.start, options: Self.options)
        #expect(watchdog.getATR(at: Self.at(300)) == nil)
        #expect(watchdog.getATR(at: Self.at(300)) == nil)
        watchdog.control(0x01, at: Self.at(301))
        for poll in 1...10 { #expect(watchdog.getATR(at: Self.at(301 + 400 * poll)) == nil) }
        #expect(watchdog.deadline == Self.at(4301 + 3000))
    }

    /// The kill -9 case: pcscd polls the new card but never powers it on.
    @Test func pollsWithoutAPowerOnAreAMissedInsertion() {
        var watchdog = VPCDDriverWatchdog(connectedAt: Self.start, options: Self.options)
        #expect(watchdog.getATR(at: Self.at(300)) == nil)
        #expect(watchdog.getATR(at: Self.at(499)) == nil, "within the insertion wait")
        #expect(watchdog.getATR(at: Self.at(700)) == .notPoweredOn)
    }

    @Test func aPowerOffIsNoInsertion() {
        var watchdog = VPCDDriverWatchdog(connectedAt: Self.start, options: Self.options)
        #expect(watchdog.getATR(at: Self.at(100)) == nil)
        watchdog.control(0x00, at: Self.at(101))
        #expect(watchdog.getATR(at: Self.at(500)) == .notPoweredOn)
    }

    @Test(arguments: [UInt8(0x01), 0x02])
    func aPowerOnOrResetIsAnInsertion(code: UInt8) {
        var watchdog = VPCDDriverWatchdog(connectedAt: Self.start, options: Self.options)
        #expect(watchdog.getATR(at: Self.at(100)) == nil)
        watchdog.control(code, at: Self.at(101))
        #expect(watchdog.getATR(at: Self.at(500)) == nil)
    }

    @Test func anAPDUIsAnInsertion() {
        var watchdog = VPCDDriverWatchdog(connectedAt: Self.start, options: Self.options)
        #expect(watchdog.getATR(at: Self.at(100)) == nil)
        watchdog.command(at: Self.at(150))
        #expect(watchdog.getATR(at: Self.at(500)) == nil)
    }

    /// The one-byte hole keeps its own limit and reason.
    @Test(arguments: [UInt8(0x00), 0x01, 0x02])
    func silenceAfterAControlCode(code: UInt8) {
        var watchdog = VPCDDriverWatchdog(connectedAt: Self.start, options: Self.options)
        watchdog.control(code, at: Self.at(100))
        #expect(watchdog.deadline == Self.at(2100))
        #expect(watchdog.expired(at: Self.at(2099)) == nil)
        #expect(watchdog.expired(at: Self.at(2100)) == .silenceAfterControl(code))
    }

    @Test func silenceAfterAPollOrAnAPDU() {
        var watchdog = VPCDDriverWatchdog(connectedAt: Self.start, options: Self.options)
        #expect(watchdog.getATR(at: Self.at(100)) == nil)
        watchdog.control(0x01, at: Self.at(100))
        #expect(watchdog.getATR(at: Self.at(100)) == nil)
        #expect(watchdog.expired(at: Self.at(3099)) == nil)
        #expect(watchdog.expired(at: Self.at(3100)) == .driverSilent(after: .seconds(3)))
        watchdog.command(at: Self.at(3000))
        #expect(watchdog.expired(at: Self.at(3100)) == nil)
        #expect(watchdog.expired(at: Self.at(6000)) == .driverSilent(after: .seconds(3)))
    }
}
