/// The card error codes of the vendor's Arculus FIDO SDK (developer documentation, "Error codes"),
/// so that an app written against the vendor SDK handles this one's errors the same way, plus
/// this SDK's own codes for a caller's mistake (700), a cancelled operation (701) and a server that
/// names another relying party in strict RP mode (702), outside the vendor's range.
public enum ArculusFidoErrorCode: Int, Sendable, CaseIterable, CustomStringConvertible {
    /// The card left the NFC field (or reader) during the operation.
    case tagLost = 600
    /// Anything without a more specific code.
    case unknown = 601
    /// The card holds no credential the request can use (`CTAP2_ERR_NO_CREDENTIALS`).
    case noCredentials = 602
    /// The card holds credentials for the relying party, but none for this user.
    case userNotFound = 603
    /// A signature from the card does not verify.
    case signatureFailed = 604
    /// authenticatorReset was refused.
    case deviceResetFailed = 605
    /// No room for another discoverable credential (`CTAP2_ERR_KEY_STORE_FULL`).
    case keystoreFull = 606
    /// The APDU exchange with the card failed (reader error, garbled answer).
    case transmitFailed = 607
    /// No PIN token: wrong PIN, PIN blocked, or no PIN set.
    case getPINTokenFailed = 608
    /// The card rejected the PIN authentication, or did not give its key agreement key
    /// ("Get Public Key Failed").
    case pinVerificationFailed = 609
    /// Not a vendor code: a value the caller passed is not acceptable (an RP ID that is a URL, a
    /// challenge that is not base64url, a PIN no card can have), found before the card is
    /// touched. ``ArculusFidoError/input`` says which and why.
    case invalidInput = 700
    /// Not a vendor code: the task running the operation was cancelled, and the SDK stopped
    /// waiting for the card or the server. What the card had already done stays done (a
    /// credential made before the cancel is not deleted).
    case cancelled = 701
    /// Not a vendor code: in strict RP mode (`strictRP: true`, `--strict-rp`), the FIDO2 server or
    /// backend named another RP ID than the caller's, and the card was not used. Without strict
    /// mode the SDK signs for the RP the server names, as the vendor's sample apps do.
    case relyingPartyMismatch = 702

    /// The vendor's name for the code, e.g. "Tag Lost".
    public var title: String {
        switch self {
        case .tagLost: "Tag Lost"
        case .unknown: "Unknown"
        case .noCredentials: "No Credentials"
        case .userNotFound: "User Not Found"
        case .signatureFailed: "Signature Failed"
        case .deviceResetFailed: "Device Reset Failed"
        case .keystoreFull: "Keystore Full"
        case .transmitFailed: "Transmit Failed"
        case .getPINTokenFailed: "Get PIN Token Failed"
        case .pinVerificationFailed: "PIN Verification Failed"
        case .invalidInput: "Invalid Input"
        case .cancelled: "Cancelled"
        case .relyingPartyMismatch: "Relying Party Mismatch"
        }
    }

    /// `608 Get PIN Token Failed`.
    public var description: String { "\(rawValue) \(title)" }
}
