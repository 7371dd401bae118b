#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import POSIXSupport
import Synchronization

/// The card side of PC/SC through vsmartcard's vpcd driver: connects to the driver as a TCP
/// client and serves its messages from a ``ReaderCard``.
///
/// A connected socket is a card on the reader; closing it is taking the card away, and
/// connecting again is tapping it (applications see exactly that). The bridge:
/// - answers control messages `00` power off, `01` power on, `02` reset and `04` get ATR,
///   and every longer message (a command APDU) with the card's response;
/// - reconnects by itself when the connection drops or the driver is not (yet) there,
///   retrying every ``Options/retryInterval``;
/// - calls ``ReaderCard/powerOff()`` whenever the connection ends (the card left the field).
///
/// **The one-byte hole.** vpcd sends a one-byte APDU as a one-byte message, which is how
/// its control codes travel. A byte other than `00`/`01`/`02`/`04` can only be an APDU,
/// and the bridge answers it `6700` (wrong length). But `00`, `01` and `02` are taken for
/// power off/on/reset, which get no answer, while the driver may be waiting for one: then
/// that reader (and pcscd's reader list with it) hangs until pcscd restarts. Its signature is
/// silence: normally vpcd polls get-ATR about every 0.4 s, but while it waits for an answer
/// it sends nothing. So when a `00`/`01`/`02` is followed by no message at all for
/// ``Options/silenceGuard`` (2 s), the bridge assumes it was such an APDU and drops the
/// connection, then re-opens it after ``Options/guardRetapDelay`` (1 s, so pcscd's presence
/// polling sees the card gone). vpcd's wait then fails, the application sees the card removed
/// and tapped again, and the reader works again. A genuine control code costs nothing: the
/// next get-ATR poll arrives well within the guard time.
///
/// **A driver that stops talking.** The bridge also reconnects, saying why on its trace, when the
/// driver does not poll a new connection within ``Options/firstMessageWait``, when it polls a new
/// connection without pcscd ever powering the card on (pcscd missed the insertion: seen after a
/// card process was killed mid-exchange and restarted at once; the poll that shows it is left
/// unanswered, so pcscd sees the reader empty and then the new card), and when nothing at all
/// comes for ``Options/silenceLimit`` (see ``VPCDDriverWatchdog``).
///
/// **Latency.** Between the driver's command and the card's answer there is only the card: one
/// `poll` and one `recv` into a buffer the bridge keeps, no allocation but the APDU's, no lock,
/// no atomic (other threads' requests come through the wake pipe, and are looked at only when it
/// wakes the bridge), and one `sendmsg` (see `VPCDConnection`).
///
/// Threading: ``run()`` blocks the calling thread (or ``start()`` runs it on a thread of its
/// own); the card and the trace hook are called only from that thread. ``stop()`` and
/// ``removeAndTap(after:)`` may be called from any thread, even a signal handler: they store
/// into atomics and write one byte to a pipe. Other threads reach the card through
/// ``perform(_:)``, which runs their work on the bridge thread between two APDUs (the control
/// channel does); ``takeOffReader()`` and ``putOnReader()`` may be called from any thread.
///
/// A card whose `transmit` answers nothing (an empty response: it left the field mid-command,
/// see ArculusCard's `FaultEffect.leaveField`) gets no answer sent: the bridge drops the
/// connection and taps the card again after the delay it asked for with
/// ``removeAndTap(after:)`` (1 s if it asked for none).
public final class VPCDBridge: @unchecked Sendable {
    // Sendability: `card` and `trace` are used only on the bridge thread; the state other
    // threads touch is atomic (`stopRequested`, `tapDelayMilliseconds`) or the wake pipe.

    /// The driver endpoint this bridge connects to.
    public let endpoint: VPCDEndpoint
    /// The bridge's timings.
    public let options: Options

    private let card: any ReaderCard
    private let trace: (@Sendable (Event) -> Void)?
    private let wake = WakePipe()
    private let stopRequested = Atomic<Bool>(false)
    /// A pending removeAndTap: the delay in milliseconds, or -1 for none.
    private let tapDelayMilliseconds = Atomic<Int64>(-1)
    private let isRunning = Atomic<Bool>(false)
    private var thread: POSIXThread?
    /// Work handed in by ``perform(_:)``, run on the bridge thread between two APDUs.
    private let pendingWork = Mutex<[@Sendable () -> Void]>([])
    /// ``takeOffReader()`` holds the card off the reader until ``putOnReader()``.
    private let heldOffReader = Atomic<Bool>(false)
    /// ``putOnReader()`` cuts short a removeAndTap delay.
    private let putBackRequested = Atomic<Bool>(false)

    /// A bridge serving `card` to the driver at `endpoint`.
    ///
    /// - Parameter trace: called on the bridge thread for every ``Event``.
    public init(card: any ReaderCard, endpoint: VPCDEndpoint = .default, options: Options = .init(),
                trace: (@Sendable (Event) -> Void)? = nil) {
        self.card = card
        self.endpoint = endpoint
        self.options = options
        self.trace = trace
    }

    // MARK: - Control from other threads

    /// Ends the bridge: the connection is closed (the card leaves the reader) and ``run()``
    /// returns. Async-signal-safe and idempotent.
    public func stop() {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        wake.signal()
    }

    /// Takes the card off the reader and taps it again after `delay`: the connection is closed
    /// (applications see the card removed; it is powered off) and re-opened. Async-signal-safe.
    ///
    /// Keep `delay` at 0.5 s or more with pcscd: it polls presence every 0.4 s, and a card that
    /// is back before pcscd saw the reader empty is not taken as a new insertion.
    public func removeAndTap(after delay: Duration = .seconds(1)) {
        tapDelayMilliseconds.store(max(0, VPCDConnection.milliseconds(delay)), ordering: .sequentiallyConsistent)
        wake.signal()
    }

    /// Runs `work` on the bridge thread at the next pause between two APDUs (or at once if the
    /// bridge is waiting, off the reader or for the driver): the way other threads reach the card,
    /// which is not thread-safe. Nothing runs it if the bridge is not running.
    public func perform(_ work: @escaping @Sendable () -> Void) {
        pendingWork.withLock { $0.append(work) }
        wake.signal()
    }

    /// Takes the card off the reader and keeps it off until ``putOnReader()``.
    public func takeOffReader() {
        heldOffReader.store(true, ordering: .sequentiallyConsistent)
        tapDelayMilliseconds.store(0, ordering: .sequentiallyConsistent)
        wake.signal()
    }

    /// Puts a card held off the reader back (and ends a pending removeAndTap delay early).
    public func putOnReader() {
        heldOffReader.store(false, ordering: .sequentiallyConsistent)
        putBackRequested.store(true, ordering: .sequentiallyConsistent)
        wake.signal()
    }

    /// Whether ``takeOffReader()`` holds the card off the reader.
    public var isHeldOffReader: Bool { heldOffReader.load(ordering: .sequentiallyConsistent) }

    // MARK: - While the card waits (VPCDBridge+CardWaiter)

    /// Other threads' work, run while the card waits for a deadline.
    func runPendingWorkWhileCardWaits() { runPendingWork() }

    /// Whether a wait of the card must end now: a stop, a tap or a hold off the reader was asked.
    var interruptsCardWaits: Bool {
        stopRequested.load(ordering: .sequentiallyConsistent) || heldOffReader.load(ordering: .sequentiallyConsistent)
            || tapDelayMilliseconds.load(ordering: .sequentiallyConsistent) >= 0
    }

    /// Wakes the bridge thread's next wait.
    func wakeUp() { wake.signal() }

    /// Blocks the bridge thread until it is woken or `timeout` has passed.
    func waitForWake(upTo timeout: Duration) { wake.wait(upTo: timeout) }

    private func runPendingWork() {
        let work = pendingWork.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
        for item in work { item() }
    }

    /// Runs ``run()`` on a new thread. Use ``stop()`` then ``wait()`` to end it.
    public func start() {
        guard thread == nil else { return }
        thread = try? POSIXThread.start { self.run() }
    }

    /// Waits for the thread ``start()`` made to end (after ``stop()``).
    public func wait() {
        guard let thread else { return }
        self.thread = nil
        thread.join()
    }

    // MARK: - The bridge loop

    /// Connects and serves until ``stop()``. Blocks the calling thread.
    public func run() {
        guard !isRunning.exchange(true, ordering: .sequentiallyConsistent) else { return }
        defer { isRunning.store(false, ordering: .sequentiallyConsistent) }
        var waitingSince: String?
        while !stopRequested.load(ordering: .sequentiallyConsistent) {
            runPendingWork()
            if heldOffReader.load(ordering: .sequentiallyConsistent) {
                sleep(.seconds(3600))
                continue
            }
            // A removeAndTap while off the reader has nothing to remove.
            tapDelayMilliseconds.store(-1, ordering: .sequentiallyConsistent)
            putBackRequested.store(false, ordering: .sequentiallyConsistent)
            let connection: VPCDConnection
            do {
                connection = try VPCDConnection.open(to: endpoint, timeout: options.connectTimeout, wake: wake)
            } catch {
                if case .woken = error { continue }
                let reason = error.description
                if waitingSince != reason {
                    waitingSince = reason
                    trace?(.waitingForDriver(endpoint, reason: reason))
                }
                sleep(options.retryInterval)
                continue
            }
            waitingSince = nil
            trace?(.connected(endpoint))
            let reason = serve(connection)
            connection.close()
            card.powerOff()
            trace?(.disconnected(reason))
            switch reason {
            case .removeAndTap(let delay): sleep(delay)
            case .silenceAfterControl, .driverSilent: sleep(options.guardRetapDelay)
            default: break
            }
        }
        trace?(.stopped)
    }

    /// Sleeps for `duration` unless ``stop()`` comes first.
    private func sleep(_ duration: Duration) {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: duration)
        while !stopRequested.load(ordering: .sequentiallyConsistent) {
            runPendingWork()
            if putBackRequested.exchange(false, ordering: .sequentiallyConsistent) { return }
            let left = clock.now.duration(to: deadline)
            if left <= .zero { return }
            wake.wait(upTo: left)
        }
    }

    /// Serves one connection until it ends; returns why.
    private func serve(_ connection: VPCDConnection) -> DisconnectReason {
        var watchdog = VPCDDriverWatchdog(connectedAt: .now, options: options)
        while true {
            switch connection.nextMessage(until: watchdog.deadline, wake: wake) {
            case .woken:
                if let reason = requestedDisconnect() { return reason }
            case .timedOut:
                if let reason = watchdog.expired(at: .now) { return reason }
            case .closed:
                return .driverClosed
            case .failed(let message):
                return .failed(message)
            case .message(.oneByte(let byte)):
                if let control = VPCDFraming.Control(rawValue: byte) {
                    if let reason = handle(control, on: connection, watchdog: &watchdog) { return reason }
                } else {
                    // A one-byte message that is no control code is a one-byte APDU: no APDU is
                    // that short (ISO 7816-4 needs a 4-byte header), so it gets "wrong length".
                    watchdog.command(at: .now)
                    if let reason = answer(Self.wrongLength, on: connection) { return reason }
                }
            case .message(.command(let apdu)):
                watchdog.command(at: .now)
                if let reason = exchange(apdu, on: connection) { return reason }
            }
        }
    }

    /// `6700`, wrong length: the answer to a message too short to be an APDU.
    private static let wrongLength: [UInt8] = [0x67, 0x00]

    /// What other threads asked for, looked at when they woke the bridge: work to run between
    /// two APDUs, a stop, a tap.
    private func requestedDisconnect() -> DisconnectReason? {
        runPendingWork()
        if stopRequested.load(ordering: .sequentiallyConsistent) { return .stopped }
        if heldOffReader.load(ordering: .sequentiallyConsistent) {
            tapDelayMilliseconds.store(-1, ordering: .sequentiallyConsistent)
            return .heldOffReader
        }
        let tap = tapDelayMilliseconds.exchange(-1, ordering: .sequentiallyConsistent)
        return tap >= 0 ? .removeAndTap(after: .milliseconds(tap)) : nil
    }

    private func handle(_ control: VPCDFraming.Control, on connection: VPCDConnection,
                        watchdog: inout VPCDDriverWatchdog) -> DisconnectReason? {
        switch control {
        case .getATR:
            // Unanswered, the poll fails and pcscd sees the reader empty (see VPCDDriverWatchdog).
            if let reason = watchdog.getATR(at: .now) { return reason }
            let atr = card.atr
            trace?(.atr(atr))
            return answer(atr, on: connection)
        case .powerOff:
            card.powerOff()
            trace?(.powerOff)
        case .powerOn:
            card.powerOn()
            trace?(.powerOn)
        case .reset:
            card.reset()
            trace?(.reset)
        }
        watchdog.control(control.rawValue, at: .now)
        connection.acknowledge()
        return nil
    }

    /// One command APDU through the card, and its answer back.
    private func exchange(_ apdu: [UInt8], on connection: VPCDConnection) -> DisconnectReason? {
        let start = trace == nil ? nil : ContinuousClock.now
        var response = card.transmit(apdu)
        if response.isEmpty {
            // The card left the field mid-command (an injected fault): no answer, the reader
            // sees it vanish; it comes back after the delay it asked for (or 1 s).
            let tap = tapDelayMilliseconds.exchange(-1, ordering: .sequentiallyConsistent)
            return .removeAndTap(after: .milliseconds(tap >= 0 ? tap : 1000))
        }
        if response.count > VPCDFraming.maximumPayload || response.count < 2 {
            response = [0x6F, 0x00]
        }
        if let start {
            trace?(.exchange(command: apdu, response: response, elapsed: start.duration(to: .now)))
        }
        return answer(response, on: connection)
    }

    private func answer(_ payload: [UInt8], on connection: VPCDConnection) -> DisconnectReason? {
        do {
            try connection.send(payload)
            return nil
        } catch {
            return .failed(String(describing: error))
        }
    }
}
