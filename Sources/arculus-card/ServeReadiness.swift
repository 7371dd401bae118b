import POSIXSupport
import Synchronization
import VirtualReader

/// `serve`'s word to a script: "card present on <reader>" is printed (and `--ready-file` written)
/// only once an application finds the card there through PC/SC, and a card that does not come
/// onto its reader within `--wait-for-reader` ends serve with one line saying why.
///
/// The bridge's connection alone proves little: vpcd takes a second connection to a port it
/// already serves into its listen queue and never polls it (another card is on that reader), and
/// a connected card is listed by pcscd only after its next presence poll. So a card counts as on
/// the reader when pcscd has powered it on this connection (the bridge's ``VPCDBridge/Event/powerOn``)
/// and ``ReaderCheck`` then finds it in the reader, on a thread of its own (the bridge must go on
/// answering pcscd meanwhile). Every insertion (a tap, a reconnect) is confirmed and said again;
/// only the first one is bounded by the wait.
///
/// Where no pcscd can be asked (the driver of another host or namespace), or the port's reader
/// has no name here, the line says the card is on the vpcd port and why it is not confirmed.
final class ServeReadiness: Sendable {
    /// One card's reader and how its insertions went.
    private struct Card {
        let endpoint: VPCDEndpoint
        /// The reader pcscd names for the port (from its configuration); nil when unknown.
        let reader: String?
        /// Counts the bridge's connections; a check reports only for the connection it began on.
        var connection = 0
        var connected = false
        /// The connection pcscd last powered the card on (a check started for it).
        var poweredConnection = -1
        /// Whether a check is under way.
        var checking = false
        /// The line said when the card last came onto the reader; nil before the first time.
        var announced: String?
        /// Why the last connection attempt failed, while the bridge waits for the driver.
        var waitReason: String?
        /// Why the last connection ended.
        var lastDisconnect: VPCDBridge.DisconnectReason?
        /// What the last check that found no card said.
        var checkFailure: String?
    }

    private struct State {
        var cards: [Card]
        /// Set once serve has given up (or stopped): nothing more is said or written.
        var finished = false
        /// Whether every card has come onto its reader once (the ready file is written then).
        var allReady = false
        var readyFile: PIDFile?
        var stopAll: (@Sendable () -> Void)?
        var exitStatus: Int32?
    }

    /// How long the first insertion of every card may take; nil waits for ever.
    let wait: Duration?
    private let readyFilePath: String?
    private let state: Mutex<State>
    /// How long a check waits for pcscd to list the card after it powered it.
    static let checkTimeout: Duration = .seconds(3)

    /// Readiness of the cards on `endpoints`, in card order.
    init(endpoints: [VPCDEndpoint], wait: Duration?, readyFile: String?,
         configuration: VPCDReaderConfiguration = .load()) {
        self.wait = wait
        readyFilePath = readyFile
        state = Mutex(State(cards: endpoints.map { endpoint in
            Card(endpoint: endpoint, reader: ServeTrace.isLocal(endpoint) ? configuration.readerName(forPort: endpoint.port) : nil)
        }))
    }

    /// The status serve exits with when it gave up (``ExitStatus/unavailable``, or
    /// ``ExitStatus/failure`` for a ready file it could not write); nil otherwise.
    var exitStatus: Int32? { state.withLock { $0.exitStatus } }

    /// Starts the bound on the first insertions; `stopAll` ends serve (stops every bridge) when
    /// a card did not come in time. Also asks pcscd for its readers once, which starts a pcscd
    /// that is started on demand (and its vpcd driver with it).
    func start(stopAll: @escaping @Sendable () -> Void) {
        state.withLock { $0.stopAll = stopAll }
        let started = ContinuousClock.now
        let thread = try? POSIXThread.start { [self] in
            ReaderCheck.wakePCSC()
            guard let wait else { return }
            POSIX.sleep(for: ContinuousClock.now.duration(to: started.advanced(by: wait)))
            // A card pcscd has just powered gets its check's time before it is judged.
            let grace = ContinuousClock.now.advanced(by: Self.checkTimeout + .milliseconds(500))
            while state.withLock({ $0.cards.contains { $0.announced == nil && $0.checking } }), ContinuousClock.now < grace {
                POSIX.sleep(for: .milliseconds(50))
            }
            giveUpOnMissingCards()
        }
        thread?.detach()
    }

    /// Serve is ending: nothing more is said, and the ready file is removed.
    func finish() {
        let file = state.withLock { state -> PIDFile? in
            state.finished = true
            defer { state.readyFile = nil }
            return state.readyFile
        }
        file?.remove()
    }

    /// What the bridge of card `index` reports, on the bridge thread: kept, and a check started
    /// when pcscd powers the card on a new connection. Never blocks.
    func observe(_ event: VPCDBridge.Event, card index: Int) {
        enum Next { case nothing, check(Int), allReady }
        let next: Next = state.withLock { state in
            switch event {
            case .waitingForDriver(_, let reason):
                state.cards[index].waitReason = reason
            case .connected:
                state.cards[index].connection += 1
                state.cards[index].connected = true
                state.cards[index].waitReason = nil
            case .disconnected(let reason):
                state.cards[index].connected = false
                state.cards[index].lastDisconnect = reason
            case .atr where state.cards[index].reader == nil, .powerOn:
                // pcscd's power-on of this connection starts a check; with no reader name to ask
                // PC/SC about, the driver's first poll of it (it is not one the driver leaves
                // waiting) is all there is to go by.
                let card = state.cards[index]
                guard card.connected, card.poweredConnection != card.connection, !state.finished else { return .nothing }
                state.cards[index].poweredConnection = card.connection
                guard card.reader != nil else {
                    let line = "card on vpcd port \(card.endpoint.port) (\(card.endpoint)); "
                        + (ServeTrace.isLocal(card.endpoint) ? "no reader is configured for the port here to confirm it through PC/SC"
                                                             : "the driver is on another host: no pcscd here to confirm it")
                    return Self.announce(line, card: index, in: &state) ? .allReady : .nothing
                }
                state.cards[index].checking = true
                return .check(card.connection)
            default:
                break
            }
            return .nothing
        }
        switch next {
        case .nothing:
            break
        case .allReady:
            writeReadyFile()
        case .check(let connection):
            if let thread = try? POSIXThread.start({ [self] in check(card: index, connection: connection) }) {
                thread.detach()
            } else {
                state.withLock { $0.cards[index].checking = false }
            }
        }
    }

    /// Asks PC/SC whether card `index` is on its reader, and says so if its connection is still
    /// the one pcscd powered.
    private func check(card index: Int, connection: Int) {
        let (endpoint, reader) = state.withLock { ($0.cards[index].endpoint, $0.cards[index].reader ?? "") }
        let port = "vpcd port \(endpoint.port) (\(endpoint))"
        let outcome = ReaderCheck.confirm(reader: reader, timeout: Self.checkTimeout) {
            state.withLock { $0.cards[index].connection == connection && $0.cards[index].connected }
        }
        let allReady = state.withLock { state -> Bool in
            state.cards[index].checking = false
            guard !state.finished, state.cards[index].connection == connection, state.cards[index].connected else { return false }
            switch outcome {
            case .present:
                return Self.announce("card present on \(reader) (\(endpoint))", card: index, in: &state)
            case .noPCSC:
                return Self.announce("card on \(port); no pcscd reachable to confirm it", card: index, in: &state)
            case .unknownReader:
                return Self.announce("card on \(port); pcscd lists no reader '\(reader)' to confirm it", card: index, in: &state)
            case .notShown(let why):
                state.cards[index].checkFailure = why
                Console.error("arculus-card serve: pcscd powered the card on \(port) but does not show it on \(reader): \(why)")
                return false
            }
        }
        if allReady { writeReadyFile() }
    }

    /// Says `line` for card `index`; true when this puts every card on its reader for the first time.
    private static func announce(_ line: String, card index: Int, in state: inout State) -> Bool {
        state.cards[index].announced = line
        state.cards[index].checkFailure = nil
        Console.output(line)
        guard !state.allReady, state.cards.allSatisfy({ $0.announced != nil }) else { return false }
        state.allReady = true
        return true
    }

    /// The ready file, once every card is on its reader: the lines said, one per card.
    private func writeReadyFile() {
        guard let path = readyFilePath else { return }
        let text = state.withLock { $0.cards.compactMap(\.announced).joined(separator: "\n") + "\n" }
        do {
            let file = try PIDFile(path: path, contents: text)
            let keep = state.withLock { state -> Bool in
                guard !state.finished else { return false }
                state.readyFile = file
                return true
            }
            if !keep { file.remove() }
        } catch {
            Console.error("arculus-card serve: cannot write the ready file \(path): \(error)")
            end(status: ExitStatus.failure)
        }
    }

    /// The wait is over: each card not yet on its reader is said with why, and serve ends.
    private func giveUpOnMissingCards() {
        let missing = state.withLock { state in state.finished ? [] : state.cards.filter { $0.announced == nil } }
        guard !missing.isEmpty else { return }
        let waited = wait?.secondsText ?? ""
        for card in missing {
            Console.error("arculus-card serve: \(Self.reason(card)); gave up after \(waited) (--wait-for-reader)")
        }
        end(status: ExitStatus.unavailable)
    }

    private func end(status: Int32) {
        let stopAll = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.finished else { return nil }
            state.finished = true
            state.exitStatus = status
            return state.stopAll
        }
        stopAll?()
    }

    /// Why `card` is not on its reader, from what its bridge and PC/SC say.
    private static func reason(_ card: Card, configuration: VPCDReaderConfiguration = .load()) -> String {
        let endpoint = card.endpoint
        let slot = endpoint.port >= VPCDEndpoint.basePort ? ", slot \(endpoint.port - VPCDEndpoint.basePort)" : ""
        if let failure = card.checkFailure, let reader = card.reader {
            return "pcscd powered the card on vpcd port \(endpoint.port) but never showed it on \(reader): \(failure)"
        }
        if card.poweredConnection < 0, card.connected || card.lastDisconnect != nil {
            if let reader = card.reader, ReaderCheck.holdsCard(reader) == true {
                return "\(reader) (vpcd port \(endpoint.port)\(slot)) is taken: another card is on it, and the driver never "
                    + "polled this one (is another arculus-card serve on that slot?)"
            }
            let why = card.lastDisconnect.map { ": \($0)" } ?? ""
            return "the vpcd driver at \(endpoint) took the connection but never put the card on its reader\(why)"
        }
        if ServeTrace.isLocal(endpoint), card.reader == nil {
            let readers = configuration.readers
            guard let first = readers.first, let last = readers.last else {
                return "no vpcd reader is configured here (\(VPCDReaderConfiguration.defaultDirectory)), so nothing listens on "
                    + "port \(endpoint.port)\(slot): install vsmartcard-vpcd, or run ./setup.sh"
            }
            return "no reader is configured on vpcd port \(endpoint.port)\(slot): pcscd's vpcd readers here are on ports "
                + "\(first.port)-\(last.port) (slots \(Int(first.port) - Int(VPCDEndpoint.basePort))-\(Int(last.port) - Int(VPCDEndpoint.basePort))); "
                + "'./setup.sh --readers N' configures more"
        }
        let why = card.waitReason.map { ": \($0)" } ?? ""
        return "no vpcd driver answers at \(endpoint)\(why) (is pcscd running with vsmartcard-vpcd?)"
    }

}
