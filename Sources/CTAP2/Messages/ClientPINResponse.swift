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

    /// The response body.
    func encoded() -> CBORValue {
        var map = CBORMap()
        map.set(ClientPINResponseKey.keyAgreement, keyAgreement)
        map.set(ClientPINResponseKey.pinUvAuthToken, pinUvAuthToken.map { .bytes($0) })
        map.set(ClientPINResponseKey.pinRetries, pinRetries.map { .int($0) })
        map.set(ClientPINResponseKey.powerCycleState, powerCycleState.map { .bool($0) })
        map.set(ClientPINResponseKey.uvRetries, uvRetries.map { .int($0) })
        return .map(map)
    }
}
