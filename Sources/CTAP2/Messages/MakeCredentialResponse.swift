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

    /// The response body.
    func encoded() -> CBORValue {
        var map = CBORMap()
        map.set(MakeCredentialResponseKey.fmt, .text(fmt))
        map.set(MakeCredentialResponseKey.authData, .bytes(authData))
        map.set(MakeCredentialResponseKey.attStmt, attStmt)
        map.set(MakeCredentialResponseKey.epAtt, epAtt.map { .bool($0) })
        map.set(MakeCredentialResponseKey.largeBlobKey, largeBlobKey.map { .bytes($0) })
        return .map(map)
    }
}
