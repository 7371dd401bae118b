import CTAPClient
import FIDOWire

/// What ``ArculusFido/cardInfo()`` reads from the card: its getInfo, and its answer to
/// getPINRetries (CTAP 2.1 §6.5.5.2), asked whether or not a PIN is set. A card without a PIN
/// may count the attempts a PIN will have or refuse the question (the emulator refuses it with
/// `CTAP2_ERR_PIN_NOT_SET`, as current authenticators do); either is reported as the card said it.
public struct CardInfo: Sendable {
    /// getInfo, as read when the card was tapped.
    public let info: AuthenticatorInfo
    /// PIN attempts left; nil when the card refused getPINRetries.
    public let pinRetries: Int?
    /// How the card refused getPINRetries, when it did (`CTAP2_ERR_PIN_NOT_SET` before a PIN is set).
    public let pinRetriesRefusal: CTAPStatus?
}
