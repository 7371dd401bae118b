extension Transcript {
    /// Turns a `pcsc-spy` log of a PC/SC application into a transcript of what its card saw.
    ///
    /// Reads both forms pcsc-lite's spy produces: the text `pcsc-spy` prints (with or without
    /// colours, `-n`, `-t`, `-d`; its statistics footer is ignored), and the raw log that
    /// `libpcscspy` writes to the FIFO (`cat ~/pcsc-spy > raw.log`, the form `pcsc-spy FILE`
    /// replays). See `man pcsc-spy`.
    ///
    /// For the card in the chosen reader (known from `SCardConnect`, matched by its handle):
    /// - every successful `SCardTransmit` becomes a `>`/`<` exchange (the sent and received
    ///   buffers, byte for byte); a failed one becomes a comment naming the return code;
    /// - the first `SCardConnect` is a `power-on`; `SCardReconnect` with `SCARD_RESET_CARD` is a
    ///   `reset` and with `SCARD_UNPOWER_CARD` a `power-off` + `power-on`; `SCardDisconnect` and
    ///   `SCardEndTransaction` with `SCARD_UNPOWER_CARD` are a `power-off` (the next connect or
    ///   APDU a `power-on`) and with `SCARD_RESET_CARD` a `reset`;
    /// - `SCARD_W_REMOVED_CARD` is `removed`, and the next successful connect `tapped`.
    ///
    /// Headers: `@source pcsc-spy`, `@reader NAME` and, when the application asked
    /// `SCardStatus`, `@atr HEX`.
    ///
    /// - Parameters:
    ///   - log: the log's text.
    ///   - reader: which reader's card to take when the application used several: its full
    ///     name or a part of it that only one of them contains. Nil: the only one used.
    /// - Throws: ``TranscriptError`` naming the log's line: a call without its result, a
    ///   hexdump that does not add up, an `SCardTransmit` on a handle no `SCardConnect` in the
    ///   log opened, no or several readers to choose from.
    public static func importPCSCSpy(_ log: String, reader: String? = nil) throws(TranscriptError) -> Transcript {
        let parsed = try PCSCSpyLog(log)
        var importer = PCSCSpyImporter(reader: try parsed.chooseReader(reader))
        for call in parsed.calls { try importer.apply(call) }
        return importer.transcript
    }
}
