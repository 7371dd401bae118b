import CBOR
import FIDOWire

/// The getAssertion extension inputs the card offers, read and type-checked (CTAP 2.1 §12):
/// read once from the request, then kept with what every assertion of it shares (the
/// per-credential outputs of getNextAssertion's assertions come from them too).
struct GetAssertionExtensionInputs: Sendable, ExtensionInputs {
    /// hmac-secret's input as sent.
    var hmacSecret: [UInt8]?
    var getCredBlob = false
    var largeBlobKey = false
    var thirdPartyPayment = false
    var uvm = false

    /// getAssertion's credBlob input is `"credBlob": true` (CTAP 2.1 §12.2; "getCredBlob" is the
    /// WebAuthn client's name for it).
    static let members = MessageMembers<Self, ExtensionIdentifier>([
        .optional(.hmacSecret, \.hmacSecret, .mapAsSent),
        .defaulted(.credBlob, \.getCredBlob, .bool),
        .defaulted(.largeBlobKey, \.largeBlobKey, .onlyTrue),
        .defaulted(.thirdPartyPayment, \.thirdPartyPayment, .bool),
        .defaulted(.uvm, \.uvm, .bool),
    ])
    /// No extensions asked for.
    static let initial = Self()
}
