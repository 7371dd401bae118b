import CBOR
import FIDOWire

/// The makeCredential extension inputs the card offers, read and type-checked (CTAP 2.1 §12).
/// Extensions the profile does not offer are ignored, as the specification asks.
struct MakeCredentialExtensionInputs {
    var credProtect: UInt8?
    var hmacSecret = false
    /// hmac-secret-mc's input (CTAP 2.2) as sent: salts to evaluate with the new credential's PRF.
    var hmacSecretMC: [UInt8]?
    var credBlob: [UInt8]?
    var largeBlobKey = false
    var minPinLength = false
    var thirdPartyPayment = false
    var uvm = false

    /// No extensions asked for.
    init() {}

    /// Reads `extensions` (the map as sent, checked whole with the request), in the order of
    /// CTAP 2.1 §12's list.
    init(_ extensions: [UInt8], profile: CardProfile) throws(CTAPStatus) {
        var credProtect = Member<UInt64>.absent
        var hmacSecret = Member<Bool>.absent
        var hmacSecretMC = Member<ArraySlice<UInt8>>.absent
        var credBlob = Member<[UInt8]>.absent
        var largeBlobKey = Member<Bool>.absent
        var minPinLength = Member<Bool>.absent
        var thirdPartyPayment = Member<Bool>.absent
        var uvm = Member<Bool>.absent
        var reader = CBORReader(extensions[...])
        do throws(CBORError) {
            guard var members = try MemberMap(&reader) else { return }
            while let name: ExtensionIdentifier = try members.next(&reader) {
                guard profile.offers(name.rawValue) else {
                    _ = try reader.skipItem()
                    continue
                }
                switch name {
                case .credProtect: credProtect = try reader.unsigned()
                case .hmacSecret: hmacSecret = try reader.bool()
                case .hmacSecretMakeCredential: hmacSecretMC = try reader.asSent()
                case .credBlob: credBlob = try reader.byteString()
                case .largeBlobKey: largeBlobKey = try reader.bool()
                case .minPinLength: minPinLength = try reader.bool()
                case .thirdPartyPayment: thirdPartyPayment = try reader.bool()
                case .uvm: uvm = try reader.bool()
                }
            }
        } catch {
            throw CTAPStatus(decodingError: error)  // not reached: the request's reading checked the map
        }
        if let level = try credProtect.optional(), (1...3).contains(level) { self.credProtect = UInt8(level) }
        self.hmacSecret = try hmacSecret.optional() ?? false
        self.hmacSecretMC = try hmacSecretMC.optional().map(Array.init)
        self.credBlob = try credBlob.optional()
        self.largeBlobKey = try largeBlobKey.onlyTrue()
        self.minPinLength = try minPinLength.optional() ?? false
        self.thirdPartyPayment = try thirdPartyPayment.optional() ?? false
        self.uvm = try uvm.optional() ?? false
    }
}
