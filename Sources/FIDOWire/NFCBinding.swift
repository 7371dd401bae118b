/// Constants of the FIDO NFC binding (CTAP 2.1 §11.3) and the FIDO U2F NFC protocol.
public enum NFCBinding {
    /// The FIDO applet's AID (CTAP 2.1 §11.3.3).
    public static let fidoAID: [UInt8] = [0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01]
    /// The SELECT command for the FIDO applet as clients send it: `00 A4 04 00 08 <AID> 00`.
    public static let selectFIDOApplet: [UInt8] = [0x00, 0xA4, 0x04, 0x00, UInt8(fidoAID.count)] + fidoAID + [0x00]
    /// SELECT answer of an authenticator that speaks CTAP2 (with or without U2F).
    public static let selectResponseFIDO2 = "FIDO_2_0"
    /// SELECT answer of a U2F-only authenticator, and U2F_VERSION's answer.
    public static let selectResponseU2F = "U2F_V2"
    /// NFCCTAP_MSG P1: the client can poll with NFCCTAP_GETRESPONSE (CTAP 2.1 §11.3.7).
    public static let messageSupportsGetResponse: UInt8 = 0x80
    /// NFCCTAP_GETRESPONSE P1 that cancels the pending request.
    public static let getResponseCancel: UInt8 = 0x11
    /// Keepalive status in a `9100` answer: still processing.
    public static let keepaliveProcessing: UInt8 = 0x01
    /// Keepalive status in a `9100` answer: waiting for user presence.
    public static let keepaliveUserPresenceNeeded: UInt8 = 0x02
}

/// U2F AUTHENTICATE control bytes, sent as P1 (FIDO U2F Raw Message Formats §5.1).
public enum U2FControl: UInt8, Sendable, CaseIterable, CustomStringConvertible {
    case enforceUserPresenceAndSign = 0x03
    case checkOnly = 0x07
    case dontEnforceUserPresenceAndSign = 0x08

    /// The specification's name: `check-only`.
    public var description: String {
        switch self {
        case .enforceUserPresenceAndSign: "enforce-user-presence-and-sign"
        case .checkOnly: "check-only"
        case .dontEnforceUserPresenceAndSign: "dont-enforce-user-presence-and-sign"
        }
    }
}
