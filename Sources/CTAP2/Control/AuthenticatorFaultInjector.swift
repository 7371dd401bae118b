/// The points inside the authenticator where a test double can change what the card does.
///
/// An ``Authenticator`` whose ``Authenticator/faultInjector`` is set reports each command it
/// starts and ends, and asks the injector at every place a fault can act: before a user-presence
/// check, when it has built authenticator-data flags, after each signature, and before each
/// write to its non-volatile memory. Without an injector (the default) none of this happens.
///
/// Calls come on the thread that drives the card, between ``commandWillStart(_:request:)`` and
/// ``commandDidEnd()`` of the command they belong to. State control (``Authenticator/setPIN(_:)``
/// and the like) runs outside any command, so its writes are never failed by the injector.
public protocol AuthenticatorFaultInjector: AnyObject {
    /// A command starts. `request` is the CTAP request (command byte + CBOR) for a CTAP2
    /// command and empty otherwise. For a CTAP2 command, a returned status byte is answered
    /// instead of running the command (a U2F command ignores it).
    func commandWillStart(_ command: CardCommand, request: ArraySlice<UInt8>) -> UInt8?
    /// The command that last started has answered.
    func commandDidEnd()
    /// Asked before the card tests user presence: true means the user declines.
    func declinesUserPresence() -> Bool
    /// The flags about to go into authenticator data (for U2F, only the user-present bit
    /// counts); returns the flags to use. The card signs what it sends.
    func authenticatorDataFlags(_ flags: AuthenticatorData.Flags) -> AuthenticatorData.Flags
    /// A DER ECDSA signature the card just made; returns the one to send.
    func signature(_ signature: [UInt8]) -> [UInt8]
    /// Asked before a change is written to the card's memory: true makes the write fail as a
    /// torn write does (nothing of it is kept and the command answers CTAP1_ERR_OTHER).
    func failsWrite(_ mutations: [CardMutation]) -> Bool
}
