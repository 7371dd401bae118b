extension CardFront {
    /// Behaviour switches of the card front that real cards differ in.
    public struct Options: Hashable, Sendable {
        /// When true, an NFCCTAP_MSG with P1 `80` (client supports NFCCTAP_GETRESPONSE) is
        /// first answered `9100` ("still processing") and the result is fetched with
        /// NFCCTAP_GETRESPONSE, so the client's polling and cancel paths run. With P1 `00`
        /// the message is always answered directly. Every `9100` answer, the first one too,
        /// carries the keepalive status `01` (PROCESSING): python-fido2 reads a status byte
        /// from each `9100` and fails on an empty one. The request is processed only when the
        /// result is polled, so a cancel (NFCCTAP_GETRESPONSE P1 `11`) leaves the card untouched.
        public var busyFirst: Bool
        /// With ``busyFirst``: how many NFCCTAP_GETRESPONSE polls are answered `9100` before
        /// the one that carries the result.
        public var busyPolls: Int

        /// Options of a card that answers every command at once.
        public init(busyFirst: Bool = false, busyPolls: Int = 1) {
            self.busyFirst = busyFirst
            self.busyPolls = max(0, busyPolls)
        }
    }
}

extension CardFront {
    /// What the front needs to know of the card behind it.
    public struct Configuration: Hashable, Sendable {
        /// SELECT answer: "FIDO_2_0" or "U2F_V2" as ASCII bytes.
        public var selectResponse: [UInt8]
        /// Whether NFCCTAP_MSG / NFCCTAP_GETRESPONSE are offered (else they answer `6D00`).
        public var supportsCTAP2: Bool
        /// Whether U2F REGISTER, AUTHENTICATE and VERSION are offered (else they answer `6D00`).
        public var supportsU2F: Bool
        /// CTAP maxMsgSize: bound on an assembled NFCCTAP_MSG payload (command byte + CBOR).
        public var maxMessageSize: Int
        /// Behaviour switches.
        public var options: Options
        /// The card's choices where ISO 7816 leaves room (its profile's switches).
        public var behaviour: Behaviour

        public init(selectResponse: [UInt8], supportsCTAP2: Bool, supportsU2F: Bool, maxMessageSize: Int,
                    options: Options = .init(), behaviour: Behaviour = .init()) {
            self.selectResponse = selectResponse
            self.supportsCTAP2 = supportsCTAP2
            self.supportsU2F = supportsU2F
            self.maxMessageSize = maxMessageSize
            self.options = options
            self.behaviour = behaviour
        }
    }
}
