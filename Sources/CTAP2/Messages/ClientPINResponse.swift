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

extension ClientPINResponse: CTAPMessage {
    /// Reads a response body (the CBOR after the status byte): the inverse of ``write(to:)``.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var keyAgreement = Member<CBORValue>.absent
        var pinUvAuthToken = Member<[UInt8]>.absent
        var pinRetries = Member<UInt64>.absent
        var powerCycleState = Member<Bool>.absent
        var uvRetries = Member<UInt64>.absent
        while let key: ClientPINResponseKey = try members.next(&reader) {
            switch key {
            case .keyAgreement: keyAgreement = try reader.anyValue()
            case .pinUvAuthToken: pinUvAuthToken = try reader.byteString()
            case .pinRetries: pinRetries = try reader.unsigned()
            case .powerCycleState: powerCycleState = try reader.bool()
            case .uvRetries: uvRetries = try reader.unsigned()
            }
        }
        return Result { () throws(CTAPStatus) in
            ClientPINResponse(keyAgreement: try keyAgreement.optional(), pinUvAuthToken: try pinUvAuthToken.optional(),
                              pinRetries: try pinRetries.optional().map { Int(clamping: $0) },
                              powerCycleState: try powerCycleState.optional(),
                              uvRetries: try uvRetries.optional().map { Int(clamping: $0) })
        }
    }

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
