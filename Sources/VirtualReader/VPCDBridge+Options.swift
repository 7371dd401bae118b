extension VPCDBridge {
    /// Timings of the bridge.
    public struct Options: Hashable, Sendable {
        /// How long a power-off/on/reset message may be followed by total silence before the
        /// bridge assumes it was a one-byte APDU (see ``VPCDBridge``) and reconnects.
        /// vpcd polls get-ATR about every 0.4 s, so 2 s of silence does not happen otherwise.
        public var silenceGuard: Duration
        /// How long the card stays away after the silence guard dropped the connection. pcscd
        /// polls presence every 0.4 s and must see the reader empty at least once: if the
        /// card were back before that, pcscd would never take it as inserted again and the
        /// reader would read "no card" until the next removal.
        public var guardRetapDelay: Duration
        /// Pause between connection attempts while the driver is not there.
        public var retryInterval: Duration
        /// How long one connection attempt may take.
        public var connectTimeout: Duration
        /// How long a new connection may wait for the driver's first message (its get-ATR poll,
        /// about every 0.4 s) before the bridge takes it as never accepted and connects again.
        public var firstMessageWait: Duration
        /// How long after its first get-ATR a new connection may go on being polled without a
        /// power-on before the bridge takes it as polled but never shown to applications (pcscd
        /// powers a card on in the poll that finds it) and connects again.
        public var insertionWait: Duration
        /// How long the driver may send nothing at all after a get-ATR or an APDU before the
        /// bridge takes it as having stopped talking to the card and connects again (after
        /// ``guardRetapDelay``, so that pcscd sees the reader empty).
        public var silenceLimit: Duration

        /// The defaults: 2 s silence guard, back 1 s after it trips, 0.5 s retry, 2 s connect
        /// timeout; a first message within 1 s, a power-on within 0.2 s of the first poll, and
        /// never 2 s without a message.
        public init(
            silenceGuard: Duration = .seconds(2),
            guardRetapDelay: Duration = .seconds(1),
            retryInterval: Duration = .milliseconds(500),
            connectTimeout: Duration = .seconds(2),
            firstMessageWait: Duration = .seconds(1),
            insertionWait: Duration = .milliseconds(200),
            silenceLimit: Duration = .seconds(2)
        ) {
            self.silenceGuard = silenceGuard
            self.guardRetapDelay = guardRetapDelay
            self.retryInterval = retryInterval
            self.connectTimeout = connectTimeout
            self.firstMessageWait = firstMessageWait
            self.insertionWait = insertionWait
            self.silenceLimit = silenceLimit
        }
    }
}
