import CTAPClient
import FIDOWire
import JSONSupport

/// Runs the probe's fixed, versioned battery against any card behind a ``CardTransport`` (a PC/SC
/// reader, the in-process emulator) and keeps the answers as a ``Fingerprint``.
///
/// Safe by default: without ``includeWrites`` nothing is sent that changes a card — no reset, no
/// PIN set or changed, no credential made, no wrong PIN, no configuration, no large-blob write;
/// every makeCredential carries a pinUvAuthParam no token made (zeros, or empty for the PIN probe),
/// so that no card can make one. With it
/// (a test card) the writing part runs and the card ends reset (see the README). The writing
/// part begins with authenticatorReset and stops there, before any PIN entry, when the card
/// refuses it or still has a PIN after it (``ProbeError/writesStopped(entry:of:reason:)``): what
/// follows would spend the retries of a PIN the probe does not know. Its PINs are drawn at random
/// for each run (``pins``).
///
/// ```swift
/// let fingerprint = try CardProber().run(on: transport, atr: card.atr, source: "PC/SC reader \(reader)")
/// try fingerprint.text.write(toFile: "card.fingerprint.json", atomically: true, encoding: .utf8)
/// ```
public struct CardProber {
    /// The battery's version: a fingerprint compares only with one of the same version.
    public static let batteryVersion = 2

    /// Whether the writing part runs (a test card).
    public var includeWrites = false
    /// Whether round trips are timed (and the read-only commands repeated for it).
    public var measuresTiming = true
    /// How many more times each timed read-only command is sent.
    public var timingRepetitions = 5
    /// Called before each entry with its position, the count and its description (progress).
    public var onEntry: ((Int, Int, String) -> Void)?
    /// The writing part's PINs; nil (the default) draws new ones for every run. The fingerprint
    /// is the same whichever they are.
    public var pins: ProbePINs?

    public init(includeWrites: Bool = false, measuresTiming: Bool = true) {
        self.includeWrites = includeWrites
        self.measuresTiming = measuresTiming
    }

    /// The battery this prober runs, in order.
    var entries: [ProbeEntry] {
        ProbeBattery.readOnly + (includeWrites ? ProbeBattery.writes : [])
    }

    /// How many entries ``run(on:atr:source:)`` runs.
    public var entryCount: Int { entries.count }

    /// The IDs of the entries ``run(on:atr:source:)`` runs, in order (a fingerprint's `probes` keys).
    public var entryIDs: [String] { entries.map(\.id) }

    /// What one run cost: APDUs sent and power cycles asked for.
    public struct Cost: Equatable, Sendable {
        public var apdus: Int
        public var powerCycles: Int
    }

    /// Probes the card behind `transport`; `atr` is what its reader reports of it.
    ///
    /// - Throws: ``ProbeError``: the card is not a FIDO card, left the reader, or the reader failed.
    public func run(on transport: any CardTransport, atr: [UInt8], source: String) throws(ProbeError) -> Fingerprint {
        try runCounting(on: transport, atr: atr, source: source).fingerprint
    }

    /// ``run(on:atr:source:)`` and what it cost.
    public func runCounting(on transport: any CardTransport, atr: [UInt8],
                            source: String) throws(ProbeError) -> (fingerprint: Fingerprint, cost: Cost) {
        let session = ProbeSession(link: ProbeLink(transport: transport), pins: pins ?? .random())
        let battery = entries
        try checkFIDO(session, total: battery.count)
        var probes: [String: ProbeResult] = [:]
        for (index, entry) in battery.enumerated() {
            onEntry?(index + 1, battery.count, entry.summary)
            do throws(ProbeInterruption) {
                let setup = try prepare(entry.start, session)
                var record = try entry.run(session)
                if let setup { record.answer = ["setup": .string(setup), "answer": record.answer] }
                probes[entry.id] = ProbeResult(description: entry.summary, request: record.request, answer: record.answer)
            } catch {
                throw Self.error(error, entry.summary, index + 1, battery.count)
            }
        }
        var timing: [String: TimingSummary]?
        if measuresTiming {
            do throws(ProbeInterruption) {
                try ProbeBattery.repeatTimed(session, times: timingRepetitions)
            } catch {
                throw Self.error(error, "timing repetitions", battery.count, battery.count)
            }
            timing = session.link.samples.mapValues(TimingSummary.init(samples:))
        }
        let stamp = BatteryStamp(version: Self.batteryVersion, entries: battery.count, writes: includeWrites)
        let fingerprint = Fingerprint(battery: stamp, atr: Hex.string(atr), source: source, probes: probes, timing: timing)
        return (fingerprint, Cost(apdus: session.link.apdus, powerCycles: session.link.powerCycles))
    }

    /// A card that does not answer SELECT of the FIDO applet with 9000 is no FIDO card.
    private func checkFIDO(_ session: ProbeSession, total: Int) throws(ProbeError) {
        let answer: APDUAnswer
        do throws(ProbeInterruption) {
            try session.link.powerCycle()
            answer = try session.link.following(NFCBinding.selectFIDOApplet)
        } catch {
            throw Self.error(error, "SELECT of the FIDO applet", 0, total)
        }
        guard answer.statusWord == StatusWord.success.rawValue else { throw .notFIDO(statusWord: answer.statusWord ?? 0) }
        do throws(ProbeInterruption) {
            session.getInfoBaseline = try session.ctap(.getInfo, nil).answer["body"]
        } catch {
            throw Self.error(error, "getInfo", 0, total)
        }
    }

    /// Brings the card to the entry's start; a SELECT that fails is noted (and the entry still runs).
    private func prepare(_ start: ProbeEntry.Start, _ session: ProbeSession) throws(ProbeInterruption) -> String? {
        switch start {
        case .continuing: return nil
        case .unselected:
            try session.link.powerCycle()
            return nil
        case .fresh, .selected:
            if start == .fresh { try session.link.powerCycle() }
            let answer = try session.link.following(NFCBinding.selectFIDOApplet)
            guard answer.statusWord != StatusWord.success.rawValue else { return nil }
            return "SELECT of the FIDO applet answered " + (answer.statusWord.map(Hex.word) ?? "no status word")
        }
    }

    private static func error(_ interruption: ProbeInterruption, _ summary: String, _ index: Int, _ total: Int) -> ProbeError {
        if interruption.writesStopped { return .writesStopped(entry: index, of: total, reason: interruption.reason) }
        return interruption.removed ? .cardRemoved(during: summary, entry: index, of: total, reason: interruption.reason)
            : .transport(during: summary, entry: index, of: total, reason: interruption.reason)
    }
}
