import CBOR
import FIDOWire

/// authenticatorClientPIN's answer (CTAP 2.1 §6.5.5): the members a subcommand returns.
struct ClientPINResponse: Sendable, Equatable {
    /// The card's key-agreement key (getKeyAgreement), a COSE_Key.
    var keyAgreement: CBORValue?
    /// The encrypted pinUvAuthToken.
    var pinUvAuthToken: [UInt8]?
    var pinRetries: Int?
    /// Whether the card must leave the field before the next PIN attempt (CTAP 2.1).
    var powerCycleState: Bool?
    var uvRetries: Int?
}

extension ClientPINResponse {
    /// Reads a response body (the CBOR after the status byte).
    init(decoding body: ArraySlice<UInt8>) throws(CTAPStatus) {
        let response = try RequestMap<ClientPINResponseKey>(decoding: body)
        keyAgreement = response[.keyAgreement]
        pinUvAuthToken = try response.bytes(.pinUvAuthToken)
        pinRetries = try response.unsigned(.pinRetries).map { Int(clamping: $0) }
        if let state = response[.powerCycleState] {
            guard case .bool(let flag) = state else { throw .cborUnexpectedType }
            powerCycleState = flag
        }
        uvRetries = try response.unsigned(.uvRetries).map { Int(clamping: $0) }
    }

}

extension ClientPINResponse: CTAPSerializable {
    /// The response body.
    func write(to writer: inout CBORWriter) {
        typealias Key = ClientPINResponseKey
        var map = writer.openMap()
        writer.member(Key.keyAgreement, value: keyAgreement, of: &map)
        writer.member(Key.pinUvAuthToken, bytes: pinUvAuthToken, of: &map)
        writer.member(Key.pinRetries, int: pinRetries, of: &map)
        writer.member(Key.powerCycleState, bool: powerCycleState, of: &map)
        writer.member(Key.uvRetries, int: uvRetries, of: &map)
        writer.close(map)
    }
}
