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
        /// ``VPCDBridge/removeAndTap(after:)``: the card is taken away and tapped again.
        case removeAndTap(after: Duration)
        /// ``VPCDBridge/stop()``.
        case stopped

        public var description: String {
            switch self {
            case .driverClosed: "the driver closed the connection"
            case .failed(let message): "connection failed: \(message)"
            case .silenceAfterControl(let code):
                "no message for a while after control code \(code) (taken as a 1-byte APDU the driver waits on): re-tapping"
            case .removeAndTap(let delay): "card taken off the reader, tapping again in \(delay)"
            case .stopped: "stopped"
            }
        }
    }
}
