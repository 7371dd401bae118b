import JSONSupport

/// One row of the card page's trace: one logical message to the card (a CTAP command, a U2F
/// request, an ISO 7816 command such as SELECT) with its answer, however many APDUs carried them
/// (chained pieces, GET RESPONSE, NFCCTAP_GETRESPONSE polls), or one reader event (the card put
/// on or taken off the reader, powered, reset).
///
/// Nothing in a row is secret: the decoded request and response hide PIN/UV material, keys and
/// tokens as `serve --verbose` does (``VirtualReader/APDUTraceFormatter``), and its APDU lines
/// are that trace's lines.
public struct TraceRow: Sendable, Equatable {
    /// What the row is.
    public enum Kind: String, Sendable {
        case ctap = "CTAP"
        case u2f = "U2F"
        case iso = "ISO"
        case reader
    }

    /// Counts up from 1 per card, in the order the rows ended.
    public var id: Int
    /// When the message ended, in seconds since 1970.
    public var time: Double
    public var kind: Kind
    /// The command's name: `authenticatorMakeCredential`, `authenticatorClientPIN (getKeyAgreement)`,
    /// `U2F_REGISTER`, `SELECT`, or the reader event (`card on the reader`, `power off`, …).
    public var command: String
    /// The request in CBOR diagnostic notation (CTAP) or hex (the others), secrets hidden.
    public var request: String?
    /// The answer likewise.
    public var response: String?
    /// The CTAP status name (`CTAP2_OK`, `CTAP2_ERR_PIN_INVALID`) or the status word (`9000`).
    public var status: String
    /// Whether the card answered success.
    public var ok: Bool
    /// The time the card took, summed over the row's APDUs.
    public var duration: Duration
    /// The `serve --verbose` lines of the row's APDUs.
    public var apdus: [String]

    /// The row as the page's event stream sends it.
    public var json: JSONValue {
        ["id": .int(id), "time": .number(time), "kind": .string(kind.rawValue), "command": .string(command),
         "request": .optional(request), "response": .optional(response), "status": .string(status), "ok": .bool(ok),
         "durationMs": .number(Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15),
         "apdus": .array(apdus.map(JSONValue.string))]
    }
}
