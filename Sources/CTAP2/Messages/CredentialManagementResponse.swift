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

extension CredentialManagementResponse {
    /// Reads a response body (the CBOR after the status byte).
    init(decoding body: ArraySlice<UInt8>) throws(CTAPStatus) {
        let response = try RequestMap<CredentialManagementResponseKey>(decoding: body)
        func count(_ key: CredentialManagementResponseKey) throws(CTAPStatus) -> Int? {
            try response.unsigned(key).map { Int(clamping: $0) }
        }
        existingResidentCredentialsCount = try count(.existingResidentCredentialsCount)
        maxPossibleRemainingResidentCredentialsCount = try count(.maxPossibleRemainingResidentCredentialsCount)
        rp = try response.entity(.rp).map { entity throws(CTAPStatus) in try RelyingPartyEntity(decoding: entity) }
        rpIDHash = try response.bytes(.rpIDHash)
        totalRPs = try count(.totalRPs)
        user = try response.entity(.user).map { entity throws(CTAPStatus) in try CredentialUser(decoding: entity) }
        credentialID = try response[.credentialID].map { value throws(CTAPStatus) in try CredentialDescriptor(decoding: value) }
        publicKey = response[.publicKey]
        totalCredentials = try count(.totalCredentials)
        credProtect = try count(.credProtect)
    }

}

extension CredentialManagementResponse: CTAPSerializable {
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
