import CBOR
import FIDOWire

/// WebAuthn's User Verification Method extension, `uvm` (WebAuthn Level 2 §10.3; an extension
/// CTAP 2.1 §12 leaves to WebAuthn): the input is `true`; the output, in the authenticator data of
/// makeCredential and of each assertion, is an array of at most three entries
/// `[userVerificationMethod, keyProtectionType, matcherProtectionType]`, the most relevant first,
/// naming how the card checked the user in this ceremony. The values are the FIDO Registry of
/// Predefined Values' (§3.1 user verification methods, §3.2 key protection, §3.3 matcher
/// protection).
///
/// This card verifies a user only by the PIN the platform sends (clientPIN), compares it on the
/// chip, and keeps its keys in its secure element; presence is the tap.
enum UVMExtension {
    /// `USER_VERIFY_PRESENCE_INTERNAL`: the card saw the user present (the tap).
    static let presenceInternal = 0x0000_0001
    /// `USER_VERIFY_NONE`: neither presence nor verification (getAssertion with `up: false`).
    static let none = 0x0000_0200
    /// `USER_VERIFY_PASSCODE_EXTERNAL`: a PIN typed on the platform, checked by the card.
    static let passcodeExternal = 0x0000_0800
    /// `KEY_PROTECTION_HARDWARE | KEY_PROTECTION_SECURE_ELEMENT`.
    static let keyProtection = 0x0002 | 0x0008
    /// `MATCHER_PROTECTION_ON_CHIP`: the PIN hash is compared on the chip.
    static let matcherProtection = 0x0004

    /// The output for a ceremony in which the user was (or was not) present and verified; with
    /// `strongestOnly` (``CardBehaviour/uvmMethods`` `strongest`) the most relevant method alone.
    static func output(userPresent: Bool, userVerified: Bool, strongestOnly: Bool = false) -> CBORValue {
        var methods: [Int] = []
        if userVerified { methods.append(passcodeExternal) }
        if userPresent && !(strongestOnly && userVerified) { methods.append(presenceInternal) }
        if methods.isEmpty { methods.append(none) }
        return .array(methods.map { .array([.int($0), .int(keyProtection), .int(matcherProtection)]) })
    }
}
