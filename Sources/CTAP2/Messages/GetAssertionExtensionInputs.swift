import CBOR
import FIDOWire

/// The getAssertion extension inputs the card offers, read and type-checked (CTAP 2.1 §12):
/// read once from the request, then kept with what every assertion of it shares (the
/// per-credential outputs of getNextAssertion's assertions come from them too).
struct GetAssertionExtensionInputs: Sendable {
    /// hmac-secret's input as sent.
    var hmacSecret: [UInt8]?
    var getCredBlob = false
    var largeBlobKey = false
    var thirdPartyPayment = false
    var uvm = false

    /// No extensions asked for.
    init() {}

    /// Reads `extensions` (the map as sent, checked whole with the request).
    init(_ extensions: [UInt8], profile: CardProfile) throws(CTAPStatus) {
        var hmacSecret = Member<ArraySlice<UInt8>>.absent
        var credBlob = Member<Bool>.absent
        var largeBlobKey = Member<Bool>.absent
        var thirdPartyPayment = Member<Bool>.absent
        var uvm = Member<Bool>.absent
        var reader = CBORReader(extensions[...])
        do throws(CBORError) {
            guard var members = try MemberMap(&reader) else { return }
            while let name: ExtensionIdentifier = try members.next(&reader) {
                switch name {
                case .hmacSecret where profile.offers(name.rawValue): hmacSecret = try reader.asSent()
                // getAssertion's input is `"credBlob": true` (CTAP 2.1 §12.2; "getCredBlob" is the
                // WebAuthn client's name for it).
                case .credBlob where profile.offers(name.rawValue): credBlob = try reader.bool()
                case .largeBlobKey where profile.offers(name.rawValue): largeBlobKey = try reader.bool()
                case .thirdPartyPayment where profile.offers(name.rawValue): thirdPartyPayment = try reader.bool()
                case .uvm where profile.offers(name.rawValue): uvm = try reader.bool()
                default: _ = try reader.skipItem()
                }
            }
        } catch {
            throw CTAPStatus(decodingError: error)  // not reached: the request's reading checked the map
        }
        self.hmacSecret = try hmacSecret.optional().map(Array.init)
        getCredBlob = try credBlob.optional() ?? false
        self.largeBlobKey = try largeBlobKey.onlyTrue()
        self.thirdPartyPayment = try thirdPartyPayment.optional() ?? false
        self.uvm = try uvm.optional() ?? false
    }
}
