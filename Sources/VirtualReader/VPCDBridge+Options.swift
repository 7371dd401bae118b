extension VPCDBridge {
    /// Timings of the bridge.
    public struct Options: Hashable, Sendable {
        /// How long a power-off/on/reset message may be followed by total silence before the
        /// bridge assumes it was a one-byte APDU (see ``VPCDBridge``) and reconnects.
        /// vpcd polls get-ATR about every 0.4 s, so 2 s of silence does not happen otherwise.
        public var silenceGuard: Duration
        /// Pause between connection attempts while the driver is not there.
        public var retryInterval: Duration
        /// How long one connection attempt may take.
        public var connectTimeout: Duration

        /// The defaults: 2 s silence guard, 0.5 s retry, 2 s connect timeout.
        public init(
            silenceGuard: Duration = .seconds(2),
            retryInterval: Duration = .milliseconds(500),
            connectTimeout: Duration = .seconds(2)
        ) {
            self.silenceGuard = silenceGuard
            self.retryInterval = retryInterval
            self.connectTimeout = connectTimeout
        }
    }
}
