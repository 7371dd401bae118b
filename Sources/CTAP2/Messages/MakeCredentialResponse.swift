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

extension MakeCredentialResponse {
    /// Reads a response body (the CBOR after the status byte).
    init(decoding body: ArraySlice<UInt8>) throws(CTAPStatus) {
        let response = try RequestMap<MakeCredentialResponseKey>(decoding: body)
        fmt = try response.requiredText(.fmt)
        authData = try response.requiredBytes(.authData)
        guard let statement = response[.attStmt] else { throw .missingParameter }
        attStmt = statement
    }

}

extension MakeCredentialResponse: CTAPSerializable {
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
