import CBOR
import FIDOWire

/// authenticatorCredentialManagement's answer (CTAP 2.1 §6.8): the members a subcommand returns.
struct CredentialManagementResponse: Sendable, Equatable {
    var existingResidentCredentialsCount: Int?
    var maxPossibleRemainingResidentCredentialsCount: Int?
    var rp: RelyingPartyEntity?
    var rpIDHash: [UInt8]?
    var totalRPs: Int?
    var user: CredentialUser?
    var credentialID: CredentialDescriptor?
    /// The credential's public key, a COSE_Key.
    var publicKey: CBORValue?
    var totalCredentials: Int?
    var credProtect: Int?
    var largeBlobKey: [UInt8]? = nil
    var thirdPartyPayment: Bool? = nil
}

extension CredentialManagementResponse: CTAPMessage {
    /// Reads a response body (the CBOR after the status byte): the inverse of ``write(to:)``.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var existing = Member<UInt64>.absent
        var remaining = Member<UInt64>.absent
        var rp = Member<RelyingPartyEntity>.absent
        var rpIDHash = Member<[UInt8]>.absent
        var totalRPs = Member<UInt64>.absent
        var user = Member<CredentialUser>.absent
        var credentialID = Member<CredentialDescriptor>.absent
        var publicKey = Member<CBORValue>.absent
        var totalCredentials = Member<UInt64>.absent
        var credProtect = Member<UInt64>.absent
        var largeBlobKey = Member<[UInt8]>.absent
        var thirdPartyPayment = Member<Bool>.absent
        while let key: CredentialManagementResponseKey = try members.next(&reader) {
            switch key {
            case .existingResidentCredentialsCount: existing = try reader.unsigned()
            case .maxPossibleRemainingResidentCredentialsCount: remaining = try reader.unsigned()
            case .rp: rp = try reader.message(RelyingPartyEntity.self)
            case .rpIDHash: rpIDHash = try reader.byteString()
            case .totalRPs: totalRPs = try reader.unsigned()
            case .user: user = try reader.message(CredentialUser.self)
            case .credentialID: credentialID = try reader.message(CredentialDescriptor.self)
            case .publicKey: publicKey = try reader.anyValue()
            case .totalCredentials: totalCredentials = try reader.unsigned()
            case .credProtect: credProtect = try reader.unsigned()
            case .largeBlobKey: largeBlobKey = try reader.byteString()
            case .thirdPartyPayment: thirdPartyPayment = try reader.bool()
            }
        }
        func count(_ member: Member<UInt64>) throws(CTAPStatus) -> Int? { try member.optional().map { Int(clamping: $0) } }
        return Result { () throws(CTAPStatus) in
            CredentialManagementResponse(
                existingResidentCredentialsCount: try count(existing), maxPossibleRemainingResidentCredentialsCount: try count(remaining),
                rp: try rp.optional(), rpIDHash: try rpIDHash.optional(), totalRPs: try count(totalRPs), user: try user.optional(),
                credentialID: try credentialID.optional(), publicKey: try publicKey.optional(),
                totalCredentials: try count(totalCredentials), credProtect: try count(credProtect),
                largeBlobKey: try largeBlobKey.optional(), thirdPartyPayment: try thirdPartyPayment.optional())
        }
    }

    /// The response body.
    func write(to writer: inout CBORWriter) {
        typealias Key = CredentialManagementResponseKey
        var map = writer.openMap()
        writer.member(Key.existingResidentCredentialsCount, int: existingResidentCredentialsCount, of: &map)
        writer.member(Key.maxPossibleRemainingResidentCredentialsCount, int: maxPossibleRemainingResidentCredentialsCount, of: &map)
        writer.member(Key.rp, rp, of: &map)
        writer.member(Key.rpIDHash, bytes: rpIDHash, of: &map)
        writer.member(Key.totalRPs, int: totalRPs, of: &map)
        writer.member(Key.user, user, of: &map)
        writer.member(Key.credentialID, credentialID, of: &map)
        writer.member(Key.publicKey, value: publicKey, of: &map)
        writer.member(Key.totalCredentials, int: totalCredentials, of: &map)
        writer.member(Key.credProtect, int: credProtect, of: &map)
        writer.member(Key.largeBlobKey, bytes: largeBlobKey, of: &map)
        writer.member(Key.thirdPartyPayment, bool: thirdPartyPayment, of: &map)
        writer.close(map)
    }
}
