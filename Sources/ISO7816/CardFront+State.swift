import FIDOWire

extension CardFront {
    /// What the front remembers between APDUs. All of it lives in the card's RAM, so a
    /// power cycle is simply `State()`.
    public struct State: Sendable, Equatable {
        /// Whether the FIDO applet has been selected since power-on.
        var isSelected = false
        /// The answer to FIDO commands while not selected after the card deselected itself
        /// (``CardFront/deselect(answering:)``), until the next SELECT.
        var deselectedAnswer: StatusWord?
        /// The chained command being collected, if any.
        var chain: CommandChain?
        /// Response bytes not yet fetched with GET RESPONSE (after a `61xx`).
        var pendingResponse: [UInt8]?
        /// An NFCCTAP_MSG answered `9100`, waiting for NFCCTAP_GETRESPONSE.
        var pendingCTAP: PendingCTAPRequest?
        /// The command handed to the card, until its result comes back (within one APDU).
        var awaiting: AwaitedCommand?

        /// The pieces by name, each with whether it is as after power-up, for tests that check a
        /// power cycle clears each.
        public var inventory: [(name: String, isInitial: Bool)] {
            [("appletSelection", !isSelected), ("commandChain", chain == nil),
             ("pendingResponse", pendingResponse == nil), ("pendingCTAPRequest", pendingCTAP == nil)]
        }
    }

    /// A CTAP request accepted with `9100` whose result the client will poll for.
    struct PendingCTAPRequest: Sendable, Equatable {
        /// Command byte + CBOR, not yet processed (so a cancel leaves the card untouched).
        var request: [UInt8]
        /// Polls still to be answered `9100` before the request is run.
        var busyPollsRemaining: Int
    }

    /// The command ``CardFront/receive(_:)`` handed out and the response limit of its APDU.
    struct AwaitedCommand: Sendable, Equatable {
        var command: Command
        var responseLimit: Int
        /// Whether the command came as a command chain.
        var chained = false
    }
}
