import Synchronization
import VirtualReader

/// What `serve` prints about the bridge's events: state changes always, the APDU trace with
/// --verbose.
enum ServeTrace {
    /// The reader name pcscd gives the card on `endpoint`, from pcscd's reader configuration
    /// (`/etc/reader.conf.d`: see ``VPCDReaderConfiguration``); "the reader on port N" when no
    /// entry has the port or the driver is not on this machine.
    static func readerName(for endpoint: VPCDEndpoint,
                           configuration: @autoclosure () -> VPCDReaderConfiguration = .load()) -> String {
        if isLocal(endpoint), let name = configuration().readerName(forPort: endpoint.port) { return name }
        return "the reader on port \(endpoint.port)"
    }

    /// What serve says when the card leaves the reader: why, once (a tap's reason already says the
    /// card was taken off).
    static func offReaderLine(_ reason: VPCDBridge.DisconnectReason) -> String {
        switch reason {
        case .removeAndTap(let delay): "card off the reader, tapping it again in \(delay.secondsText)"
        case .heldOffReader: "card off the reader until it is put back ('insert')"
        default: "card off the reader: \(reason)"
        }
    }

    /// Whether the driver at `endpoint` is on this machine (its readers named in this machine's
    /// configuration, its pcscd the one libpcsclite reaches).
    static func isLocal(_ endpoint: VPCDEndpoint) -> Bool {
        ["127.0.0.1", "localhost", "::1"].contains(endpoint.host) || endpoint.host.hasPrefix("127.")
    }

    /// The bridge's trace hook; with `label` (several cards), every stderr line starts with
    /// `[label] `. Every event goes to `readiness` too, which says when the card is on the reader.
    static func hook(endpoint: VPCDEndpoint, verbose: Bool, label: String? = nil,
                     readiness: @escaping @Sendable (VPCDBridge.Event) -> Void) -> @Sendable (VPCDBridge.Event) -> Void {
        let formatter = Mutex(APDUTraceFormatter())
        let repeats = Mutex(RepeatedReason())
        let prefix = label.map { "[\($0)] " } ?? ""
        return { event in
            readiness(event)
            switch event {
            case .waitingForDriver(let endpoint, let reason):
                Console.error(prefix + "waiting for the vpcd driver at \(endpoint) (\(reason)); is pcscd running with vsmartcard-vpcd? retrying")
            case .connected:
                break  // said once PC/SC shows the card (ServeReadiness)
            case .disconnected(let reason):
                formatter.withLock { $0.reset() }
                guard reason != .stopped, let times = repeats.withLock({ $0.shouldSay(reason) }) else { break }
                Console.error(prefix + offReaderLine(reason) + (times > 1 ? " (\(times) times in a row)" : ""))
            case .powerOn, .powerOff, .reset:
                formatter.withLock { $0.reset() }
                repeats.withLock { $0 = RepeatedReason() }
                if verbose { Console.error(prefix + "- \(event)") }
            case .atr:
                break  // polled every ~0.4 s: too frequent to trace
            case .exchange(let command, let response, let elapsed):
                if verbose {
                    let lines = formatter.withLock { $0.lines(command: command, response: response, elapsed: elapsed) }
                    Console.error(lines.map { prefix + $0 }.joined(separator: "\n"))
                }
            case .stopped:
                Console.error(prefix + "arculus-card serve: stopped")
            }
        }
    }
}

/// A reconnect that keeps happening for the same reason (a pcscd that never polls) is said the
/// first time, then the 2nd, 4th, 8th… time in a row, not every second.
struct RepeatedReason {
    private var last: VPCDBridge.DisconnectReason?
    private var count = 0

    /// How many times in a row `reason` has happened, when this time is to be said; nil otherwise.
    mutating func shouldSay(_ reason: VPCDBridge.DisconnectReason) -> Int? {
        if reason == last {
            count += 1
        } else {
            (last, count) = (reason, 1)
        }
        return count & (count - 1) == 0 ? count : nil
    }
}
