extension VPCDBridge {
    /// What the bridge reports to its trace hook, on the bridge thread, as it happens.
    public enum Event: Sendable {
        /// The driver cannot be reached; reported once per outage, not per retry.
        case waitingForDriver(VPCDEndpoint, reason: String)
        /// Connected: the card is on the reader.
        case connected(VPCDEndpoint)
        /// The connection ended: the card is off the reader (and powered off).
        case disconnected(DisconnectReason)
        /// The reader powered the card.
        case powerOn
        /// The reader cut the card's power.
        case powerOff
        /// The reader reset the card.
        case reset
        /// The driver asked for the ATR; this is what it got.
        case atr([UInt8])
        /// One command APDU and its response, with the time the card took.
        case exchange(command: [UInt8], response: [UInt8], elapsed: Duration)
        /// ``VPCDBridge/stop()`` took effect; the bridge has ended.
        case stopped
    }

    /// Why a connection to the driver ended.
    public enum DisconnectReason: Sendable, Equatable, CustomStringConvertible {
        /// The driver closed the connection (pcscd stopped or restarted).
        case driverClosed
        /// The connection failed.
        case failed(String)
        /// A control code was followed by silence: presumed one-byte APDU (see ``VPCDBridge``).
        case silenceAfterControl(UInt8)
        /// A new connection got no message from the driver in time: it was never accepted.
        case notPolled(after: Duration)
        /// A new connection got get-ATR polls but no power-on: pcscd never took the card as
        /// inserted (see ``VPCDBridge``).
        case notPoweredOn
        /// Nothing came from the driver for this long after a get-ATR or an APDU.
        case driverSilent(after: Duration)
        /// ``VPCDBridge/removeAndTap(after:)``: the card is taken away and tapped again.
        case removeAndTap(after: Duration)
        /// ``VPCDBridge/takeOffReader()``: the card is away until ``VPCDBridge/putOnReader()``.
        case heldOffReader
        /// ``VPCDBridge/stop()``.
        case stopped

        public var description: String {
            switch self {
            case .driverClosed: "the driver closed the connection"
            case .failed(let message): "connection failed: \(message)"
            case .silenceAfterControl(let code):
                "no message for a while after control code \(code) (taken as a 1-byte APDU the driver waits on): re-tapping"
            case .notPolled(let wait):
                "the driver sent nothing within \(Self.seconds(wait)) of connecting (it never accepted the connection): connecting again"
            case .notPoweredOn:
                "the driver polls the card but pcscd never powered it on (it missed the insertion): connecting again"
            case .driverSilent(let wait):
                "the driver sent nothing for \(Self.seconds(wait)) (it stopped talking to the card): re-tapping"
            case .removeAndTap(let delay): "card taken off the reader, tapping again in \(Self.seconds(delay))"
            case .heldOffReader: "card taken off the reader until it is put back ('insert')"
            case .stopped: "stopped"
            }
        }

        /// `1.5 s`, `0.25 s`, `0 s`.
        static func seconds(_ duration: Duration) -> String {
            let (seconds, attoseconds) = duration.components
            let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
            var fraction = String(milliseconds % 1000 + 1000).dropFirst()
            while fraction.hasSuffix("0") { fraction = fraction.dropLast() }
            return String(milliseconds / 1000) + (fraction.isEmpty ? "" : "." + fraction) + " s"
        }
    }
}
