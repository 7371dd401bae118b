import Synchronization
import VirtualReader

/// What `serve` prints about the bridge's events: state changes always, the APDU trace with
/// --verbose.
enum ServeTrace {
    /// The reader name pcscd gives vpcd's slot behind `endpoint` (Debian's configuration:
    /// friendly name "Virtual PCD", first reader, slot = port - 35963).
    static func readerName(for endpoint: VPCDEndpoint) -> String {
        let slot = Int(endpoint.port) - Int(VPCDEndpoint.basePort)
        guard slot >= 0 && slot < 256 else { return "the vpcd reader" }
        let hex = String(slot, radix: 16, uppercase: true)
        return "Virtual PCD 00 " + (hex.count < 2 ? "0" + hex : hex)
    }

    /// The bridge's trace hook.
    static func hook(endpoint: VPCDEndpoint, verbose: Bool) -> @Sendable (VPCDBridge.Event) -> Void {
        let formatter = Mutex(APDUTraceFormatter())
        let reader = readerName(for: endpoint)
        return { event in
            switch event {
            case .waitingForDriver(let endpoint, let reason):
                Console.error("waiting for the vpcd driver at \(endpoint) (\(reason)); is pcscd running with vsmartcard-vpcd? retrying")
            case .connected(let endpoint):
                Console.output("card present on \(reader) (\(endpoint))")
            case .disconnected(let reason):
                formatter.withLock { $0.reset() }
                if reason != .stopped { Console.error("card off the reader: \(reason)") }
            case .powerOn, .powerOff, .reset:
                formatter.withLock { $0.reset() }
                if verbose { Console.error("- \(event)") }
            case .atr:
                break  // polled every ~0.4 s: too frequent to trace
            case .exchange(let command, let response, let elapsed):
                if verbose {
                    let lines = formatter.withLock { $0.lines(command: command, response: response, elapsed: elapsed) }
                    Console.error(lines.joined(separator: "\n"))
                }
            case .stopped:
                Console.error("arculus-card serve: stopped")
            }
        }
    }
}
