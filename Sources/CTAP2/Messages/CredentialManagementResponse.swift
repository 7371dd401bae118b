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

    /// The response body.
    func encoded() -> CBORValue {
        var map = CBORMap()
        map.set(CredentialManagementResponseKey.existingResidentCredentialsCount, existingResidentCredentialsCount.map { .int($0) })
        map.set(CredentialManagementResponseKey.maxPossibleRemainingResidentCredentialsCount,
                maxPossibleRemainingResidentCredentialsCount.map { .int($0) })
        map.set(CredentialManagementResponseKey.rp, rp?.encoded)
        map.set(CredentialManagementResponseKey.rpIDHash, rpIDHash.map { .bytes($0) })
        map.set(CredentialManagementResponseKey.totalRPs, totalRPs.map { .int($0) })
        map.set(CredentialManagementResponseKey.user, user?.encoded)
        map.set(CredentialManagementResponseKey.credentialID, credentialID?.encoded)
        map.set(CredentialManagementResponseKey.publicKey, publicKey)
        map.set(CredentialManagementResponseKey.totalCredentials, totalCredentials.map { .int($0) })
        map.set(CredentialManagementResponseKey.credProtect, credProtect.map { .int($0) })
        map.set(CredentialManagementResponseKey.largeBlobKey, largeBlobKey.map { .bytes($0) })
        map.set(CredentialManagementResponseKey.thirdPartyPayment, thirdPartyPayment.map { .bool($0) })
        return .map(map)
    }
}
