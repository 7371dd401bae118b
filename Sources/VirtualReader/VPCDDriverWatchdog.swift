/// Notices, on one connection, that vpcd has stopped talking to the card, so that the bridge can
/// reconnect (see ``VPCDBridge``). A value: the bridge reports each message and asks it, whenever
/// a wait ends, whether the connection is still worth keeping.
///
/// What a healthy driver does, measured with Debian's pcscd 1.9.9 and vpcd 3.3: it polls get-ATR
/// about every 0.4 s in every state (idle, powered off, held by an application, inside a
/// transaction), and the poll that first finds a new card is followed at once, by pcscd's
/// insertion handling, by a power-on. So:
/// - a new connection that gets no message at all within ``VPCDBridge/Options/firstMessageWait``
///   was never accepted by the driver;
/// - a new connection that gets get-ATR polls but no power-on, i.e. a poll more than
///   ``VPCDBridge/Options/insertionWait`` after the first one with no power-on between, is one
///   pcscd polls without ever having seen it inserted. Seen after `kill -9` of a card process in
///   the middle of an exchange: pcscd marked the reader empty from the failing transmit while its
///   polling thread still took the card for present, so a card that came back within one poll
///   interval is polled for ever and never shown to applications. The fix is to answer that poll
///   with nothing and go: the poll fails, pcscd sees the reader empty, then the new connection;
/// - a connection on which nothing at all arrives for ``VPCDBridge/Options/silenceLimit`` is one
///   the driver stopped serving; after a power off/on/reset it is the one-byte hole, whose limit is
///   ``VPCDBridge/Options/silenceGuard`` (see ``VPCDBridge``).
struct VPCDDriverWatchdog {
    typealias Instant = ContinuousClock.Instant

    /// What the last message was, as far as the limits care.
    private enum Last {
        case nothing
        case control(UInt8)
        case other
    }

    let options: VPCDBridge.Options
    private let connectedAt: Instant
    private var lastMessageAt: Instant
    private var last = Last.nothing
    /// The first get-ATR on this connection while no power-on had come yet.
    private var firstUnpoweredPoll: Instant?
    /// Whether pcscd powered (or reset) the card on this connection: it took it as inserted.
    private var insertionSeen = false

    init(connectedAt: Instant, options: VPCDBridge.Options) {
        self.options = options
        self.connectedAt = connectedAt
        lastMessageAt = connectedAt
    }

    /// A get-ATR poll arrived at `now`: nil to answer it, or why to drop the connection instead.
    mutating func getATR(at now: Instant) -> VPCDBridge.DisconnectReason? {
        defer { received(.other, at: now) }
        guard !insertionSeen else { return nil }
        guard let first = firstUnpoweredPoll else {
            firstUnpoweredPoll = now
            return nil
        }
        return first.duration(to: now) >= options.insertionWait ? .notPoweredOn : nil
    }

    /// A power off (`00`), power on (`01`) or reset (`02`) arrived at `now`.
    mutating func control(_ code: UInt8, at now: Instant) {
        if code != VPCDFraming.Control.powerOff.rawValue { insertionSeen = true }
        received(.control(code), at: now)
    }

    /// A command APDU arrived at `now` (the driver only sends those to a card pcscd took in).
    mutating func command(at now: Instant) {
        insertionSeen = true
        received(.other, at: now)
    }

    private mutating func received(_ kind: Last, at now: Instant) {
        last = kind
        lastMessageAt = now
    }

    /// When the connection is to be given up if nothing arrives before.
    var deadline: Instant {
        switch last {
        case .nothing: connectedAt.advanced(by: options.firstMessageWait)
        case .control: lastMessageAt.advanced(by: options.silenceGuard)
        case .other: lastMessageAt.advanced(by: options.silenceLimit)
        }
    }

    /// Why the connection is to be given up at `now` (nothing arrived since the last message),
    /// or nil while the deadline has not passed.
    func expired(at now: Instant) -> VPCDBridge.DisconnectReason? {
        guard now >= deadline else { return nil }
        switch last {
        case .nothing: return .notPolled(after: options.firstMessageWait)
        case .control(let code): return .silenceAfterControl(code)
        case .other: return .driverSilent(after: options.silenceLimit)
        }
    }
}
