import FIDOWire

extension CardFront {
    /// The front's part of a card's behaviour where ISO/IEC 7816-4 and the FIDO NFC binding leave
    /// room (a profile's switches, README "Card profiles"): which status word each refusal gets,
    /// what SELECT accepts, how a chain takes an interruption, how many bytes one response
    /// carries. The defaults are the front's own choices (see ``CardFront``'s table).
    public struct Behaviour: Hashable, Sendable {
        /// Bytes that are no well-formed APDU.
        public var malformedAPDU: StatusWord = .wrongLength
        /// A CLA other than `00` and `80`.
        public var unknownClass: StatusWord = .claNotSupported
        /// An instruction unknown in class `00`, or U2F's on a card without U2F.
        public var unknownInstructionClass00: StatusWord = .insNotSupported
        /// An instruction unknown in class `80`, or NFCCTAP's on a card without CTAP2.
        public var unknownInstructionClass80: StatusWord = .insNotSupported
        /// P1/P2 an instruction other than SELECT does not take.
        public var incorrectP1P2: StatusWord = .incorrectP1P2
        /// An NFCCTAP_MSG without data.
        public var emptyMessage: StatusWord = .wrongLength
        /// GET RESPONSE with nothing pending (`9000`: success, no data).
        public var getResponseIdle: StatusWord = .conditionsNotSatisfied
        /// NFCCTAP_GETRESPONSE with nothing pending.
        public var nfcctapGetResponseIdle: StatusWord = .conditionsNotSatisfied
        /// Whether INS `11` (NFCCTAP_GETRESPONSE) exists; without it P1 `80` is never deferred.
        public var nfcctapGetResponse = true
        /// The most data bytes of one short response (1…256).
        public var responseChunk = 256
        /// The most data bytes of the first short response to a CTAP command other than getInfo
        /// (1…256), or nil for ``responseChunk``.
        public var commandResponseChunk: Int? = nil
        /// Whether the first part of a short response carries `responseChunk` bytes whatever Le
        /// says (a departure from ISO/IEC 7816-4 §5.1); GET RESPONSE still honours Le.
        public var exceedsLe = false
        /// Whether a GET RESPONSE inside a command chain is answered (the chain goes on) instead of `6883`.
        public var getResponseInChain = false
        /// Whether a SELECT inside a command chain runs (the chain ends) instead of `6883`.
        public var selectInChain = false
        /// A chained NFCCTAP_MSG longer than maxMsgSize: nil takes every piece and answers
        /// CTAP2_ERR_REQUEST_TOO_LARGE after the last; a word answers the piece that overflows.
        public var chainOverflow: StatusWord? = nil
        /// Whether GET RESPONSE refuses P1/P2 other than `00 00`.
        public var getResponseChecksP1P2 = true
        /// After a refused SELECT that leaves no applet selected: nil answers FIDO commands
        /// ``notSelected``, a word answers them this until the next SELECT.
        public var afterRefusedSelect: StatusWord? = nil
        /// A FIDO command before SELECT.
        public var notSelected: StatusWord = .conditionsNotSatisfied
        /// SELECT with P1/P2 other than `04 00` / `04 0C`.
        public var selectOtherP1P2: StatusWord = .incorrectP1P2
        /// Whether SELECT with P2 `0C` still answers the SELECT response.
        public var selectAnswersWithP2NoData = false
        /// SELECT without an AID: nil selects the FIDO applet, else this word.
        public var selectWithoutAID: StatusWord? = .wrongLength
        /// Whether a right-truncated FIDO AID selects the applet.
        public var selectPartialAID = false
        /// Whether the FIDO AID followed by more bytes selects the applet (a departure from
        /// ISO/IEC 7816-4 §11.1.1).
        public var selectLongerAID = false
        /// Whether a failed SELECT leaves no applet selected.
        public var failedSelectDeselects = true
        /// U2F on a card that does not offer it: nil for none (its instructions unknown), else
        /// U2F_VERSION answers and REGISTER / AUTHENTICATE get this word.
        public var u2fVersionOnly: StatusWord? = nil
        /// Whether U2F_VERSION ignores a data field (else `6700`).
        public var u2fVersionIgnoresData = false

        /// The front's own choices.
        public init() {}

        /// The limit on one response's data for an APDU whose Ne gives `responseLimit`: an
        /// extended APDU's is its own, a short one's at most `chunk` (``responseChunk`` unless
        /// given; exactly that with ``exceedsLe``, but for GET RESPONSE's answer, `continuing`).
        func limit(_ responseLimit: Int, continuing: Bool, chunk: Int? = nil) -> Int {
            guard responseLimit <= 256 else { return responseLimit }
            let chunk = chunk ?? responseChunk
            return exceedsLe && !continuing ? chunk : min(responseLimit, chunk)
        }
    }
}
