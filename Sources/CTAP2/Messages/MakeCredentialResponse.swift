import CBOR
import FIDOWire

/// authenticatorMakeCredential's answer (CTAP 2.1 §6.1.2): the attestation object's parts.
struct MakeCredentialResponse: Sendable, Equatable {
    /// The attestation statement format: `packed` or `none`.
    var fmt: String
    var authData: [UInt8]
    var attStmt: CBORValue
    /// Whether the attestation is an enterprise attestation.
    var epAtt: Bool? = nil
    /// The credential's largeBlobKey, when the largeBlobKey extension asked for one.
    var largeBlobKey: [UInt8]? = nil
}

extension MakeCredentialResponse: CTAPMessage {
    /// Reads a response body (the CBOR after the status byte): the inverse of ``write(to:)``.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var fmt = Member<String>.absent
        var authData = Member<[UInt8]>.absent
        var attStmt = Member<CBORValue>.absent
        var epAtt = Member<Bool>.absent
        var largeBlobKey = Member<[UInt8]>.absent
        while let key: MakeCredentialResponseKey = try members.next(&reader) {
            switch key {
            case .fmt: fmt = try reader.text()
            case .authData: authData = try reader.byteString()
            case .attStmt: attStmt = try reader.anyValue()
            case .epAtt: epAtt = try reader.bool()
            case .largeBlobKey: largeBlobKey = try reader.byteString()
            case .unsignedExtensionOutputs: _ = try reader.skipItem()
            }
        }
        return Result { () throws(CTAPStatus) in
            let fmt = try fmt.required()
            let authData = try authData.required()
            return MakeCredentialResponse(fmt: fmt, authData: authData, attStmt: try attStmt.required(), epAtt: try epAtt.optional(),
                                          largeBlobKey: try largeBlobKey.optional())
        }
    }

    /// The response body.
    func write(to writer: inout CBORWriter) {
        typealias Key = MakeCredentialResponseKey
        var map = writer.openMap()
        writer.member(Key.fmt, text: fmt, of: &map)
        writer.member(Key.authData, bytes: authData, of: &map)
        writer.member(Key.attStmt, value: attStmt, of: &map)
        writer.member(Key.epAtt, bool: epAtt, of: &map)
        writer.member(Key.largeBlobKey, bytes: largeBlobKey, of: &map)
        writer.close(map)
    }
}
