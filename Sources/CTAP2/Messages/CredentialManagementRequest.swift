import CBOR
import FIDOWire

/// authenticatorCredentialManagement's parameters (CTAP 2.1 §6.8), read and type-checked.
struct CredentialManagementRequest: Sendable, Equatable {
    /// The subCommand number as sent.
    var subCommand: UInt64
    /// subCommandParams: `rpIDHash` (0x01), `credentialID` (0x02), `user` (0x03).
    var subCommandParams: CBORMap?
    /// subCommandParams as sent (nil for a request built in memory: then it is encoded).
    var subCommandParamsBytes: [UInt8]? = nil
    var pinUvAuthProtocol: UInt64?
    var pinUvAuthParam: [UInt8]?
}

extension CredentialManagementRequest {
    /// Reads the request body (the CBOR after the command byte).
    init(decoding body: ArraySlice<UInt8>) throws(CTAPStatus) {
        let request = try RequestMap<CredentialManagementKey>(decoding: body)
        subCommand = try request.requiredUnsigned(.subCommand)
        subCommandParams = try request.map(.subCommandParams)
        subCommandParamsBytes = request.encodedMember(.subCommandParams)
        pinUvAuthProtocol = try request.unsigned(.pinUvAuthProtocol)
        pinUvAuthParam = try request.bytes(.pinUvAuthParam)
    }

    /// The subcommand, or nil for a number the specification does not define.
    var subcommand: CredentialManagementSubcommand? {
        CredentialManagementSubcommand(rawValue: Int(clamping: subCommand))
    }

    /// What pinUvAuthParam authenticates: subCommand ‖ subCommandParams as received (CTAP 2.1
    /// §6.8.2) — not re-encoded, which would differ for a platform that encodes non-canonically.
    var authenticatedMessage: [UInt8] {
        var message: [UInt8] = [UInt8(truncatingIfNeeded: subCommand)]
        if let bytes = subCommandParamsBytes ?? subCommandParams.map({ CBOREncoder.encode(.map($0)) }) {
            message += bytes
        }
        return message
    }

    /// subCommandParams' rpIDHash (enumerateCredentialsBegin).
    func rpIDHash() throws(CTAPStatus) -> [UInt8] {
        guard let parameters = subCommandParams else { throw .missingParameter }
        return try RequestMap<CredentialManagementParameterKey>(value: .map(parameters)).requiredBytes(.rpIDHash)
    }

    /// subCommandParams' credentialID (deleteCredential, updateUserInformation).
    func credentialID() throws(CTAPStatus) -> CredentialDescriptor {
        guard let parameters = subCommandParams,
              let descriptor = parameters[int: CredentialManagementParameterKey.credentialID.rawValue] else {
            throw .missingParameter
        }
        return try CredentialDescriptor(decoding: descriptor)
    }

    /// subCommandParams' user (updateUserInformation).
    func user() throws(CTAPStatus) -> CredentialUser {
        guard let parameters = subCommandParams else { throw .missingParameter }
        let map = try RequestMap<CredentialManagementParameterKey>(value: .map(parameters))
        return try CredentialUser(decoding: try map.requiredEntity(.user))
    }

    /// The request body: the inverse of ``init(decoding:)``.
    func encoded() -> [UInt8] {
        var map = CBORMap()
        map.set(CredentialManagementKey.subCommand, .unsigned(subCommand))
        map.set(CredentialManagementKey.subCommandParams, subCommandParams.map { .map($0) })
        map.set(CredentialManagementKey.pinUvAuthProtocol, pinUvAuthProtocol.map { .unsigned($0) })
        map.set(CredentialManagementKey.pinUvAuthParam, pinUvAuthParam.map { .bytes($0) })
        return CBOREncoder.encode(.map(map))
    }
}
