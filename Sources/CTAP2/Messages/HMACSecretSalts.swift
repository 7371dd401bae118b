import CBOR
import FIDOWire

/// An hmac-secret (or hmac-secret-mc) input as sent (CTAP 2.1 §12.5): the platform's key
/// agreement key and its encrypted, authenticated salts.
struct HMACSecretSalts: Sendable, Equatable {
    /// A COSE_Key, for the PIN/UV auth protocol's codec.
    var keyAgreement: CBORValue
    var saltEnc: [UInt8]
    var saltAuth: [UInt8]
    var pinUvAuthProtocol: UInt64?
}

extension HMACSecretSalts: CTAPMessage {
    /// Reads the input: keyAgreement, saltEnc and saltAuth are required, in that order.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var keyAgreement = Member<CBORValue>.absent
        var saltEnc = Member<[UInt8]>.absent
        var saltAuth = Member<[UInt8]>.absent
        var pinUvAuthProtocol = Member<UInt64>.absent
        while let key: HMACSecretInputKey = try members.next(&reader) {
            switch key {
            case .keyAgreement: keyAgreement = try reader.anyValue()
            case .saltEnc: saltEnc = try reader.byteString()
            case .saltAuth: saltAuth = try reader.byteString()
            case .pinUvAuthProtocol: pinUvAuthProtocol = try reader.unsigned()
            }
        }
        return Result { () throws(CTAPStatus) in
            let keyAgreement = try keyAgreement.required()
            let saltEnc = try saltEnc.required()
            let saltAuth = try saltAuth.required()
            return HMACSecretSalts(keyAgreement: keyAgreement, saltEnc: saltEnc, saltAuth: saltAuth,
                                   pinUvAuthProtocol: try pinUvAuthProtocol.optional())
        }
    }

    func write(to writer: inout CBORWriter) {
        var map = writer.openMap()
        writer.member(HMACSecretInputKey.keyAgreement, value: keyAgreement, of: &map)
        writer.member(HMACSecretInputKey.saltEnc, bytes: saltEnc, of: &map)
        writer.member(HMACSecretInputKey.saltAuth, bytes: saltAuth, of: &map)
        writer.member(HMACSecretInputKey.pinUvAuthProtocol, unsigned: pinUvAuthProtocol, of: &map)
        writer.close(map)
    }
}
