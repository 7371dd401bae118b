extension CardFront {
    /// What the front remembers between APDUs. All of it lives in the card's RAM, so a
    /// power cycle is simply `State()`.
    struct State: Sendable {
        /// Whether the FIDO applet has been selected since power-on.
        var isSelected = false
        /// The chained command being collected, if any.
        var chain: CommandChain?
        /// Response bytes not yet fetched with GET RESPONSE (after a `61xx`).
        var pendingResponse: [UInt8]?
        /// An NFCCTAP_MSG answered `9100`, waiting for NFCCTAP_GETRESPONSE.
        var pendingCTAP: PendingCTAPRequest?
    }

    /// A CTAP request accepted with `9100` whose result the client will poll for.
    struct PendingCTAPRequest: Sendable {
        /// Command byte + CBOR, not yet processed (so a cancel leaves the card untouched).
        var request: [UInt8]
        /// Polls still to be answered `9100` before the result is given.
        var busyPollsRemaining: Int
    }
}
