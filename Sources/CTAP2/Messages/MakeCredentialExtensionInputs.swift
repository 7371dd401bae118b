import CBOR
import FIDOWire

/// The makeCredential extension inputs the card offers, read and type-checked (CTAP 2.1 §12).
struct MakeCredentialExtensionInputs: ExtensionInputs {
    /// The credProtect level asked for (1 to 3; another number is none).
    var credProtect: UInt8?
    var hmacSecret = false
    /// hmac-secret-mc's input (CTAP 2.2) as sent: salts to evaluate with the new credential's PRF.
    var hmacSecretMC: [UInt8]?
    var credBlob: [UInt8]?
    var largeBlobKey = false
    var minPinLength = false
    var thirdPartyPayment = false
    var uvm = false

    /// In the order of CTAP 2.1 §12's list.
    static let members = MessageMembers<Self, ExtensionIdentifier>([
        .optional(.credProtect, \.credProtect, .protectionLevel),
        .defaulted(.hmacSecret, \.hmacSecret, .bool),
        .optional(.hmacSecretMakeCredential, \.hmacSecretMC, .mapAsSent),
        .optional(.credBlob, \.credBlob, .bytes),
        .defaulted(.largeBlobKey, \.largeBlobKey, .onlyTrue),
        .defaulted(.minPinLength, \.minPinLength, .bool),
        .defaulted(.thirdPartyPayment, \.thirdPartyPayment, .bool),
        .defaulted(.uvm, \.uvm, .bool),
    ])
    /// No extensions asked for.
    static let initial = Self()
}
