import CBOR
import CTAP2

/// The names CTAP 2.1 §6 gives to command parameters, response members and subcommands, so
/// reports can say `response.authData{2}.flags` rather than `{2}`.
enum CTAPNames {
    /// The command's name, with the subcommand for clientPIN and credentialManagement when
    /// the request decodes, e.g. `authenticatorClientPIN (getPinToken)`.
    static func commandName(_ request: [UInt8]) -> String {
        guard let byte = request.first else { return "(empty CTAP request)" }
        guard let command = CTAPCommand(rawValue: byte) else { return "CTAP command 0x\(hex(byte))" }
        guard let table = subcommandNames[command], request.count > 1,
              let map = (try? CBORDecoder.decode(request.dropFirst()))?.mapValue,
              let subcommand = map[int: command == .clientPIN ? 2 : 1]?.intValue else {
            return command.name
        }
        return "\(command.name) (\(table[subcommand] ?? "subcommand \(subcommand)"))"
    }

    /// The name of a top-level integer key of a request or response map, if the spec names it.
    static func fieldName(command: UInt8?, isRequest: Bool, key: Int) -> String? {
        guard let command, let table = (isRequest ? requestFields : responseFields)[command] else { return nil }
        return table[key]
    }

    static let requestFields: [UInt8: [Int: String]] = [
        0x01: [1: "clientDataHash", 2: "rp", 3: "user", 4: "pubKeyCredParams", 5: "excludeList", 6: "extensions",
               7: "options", 8: "pinUvAuthParam", 9: "pinUvAuthProtocol", 10: "enterpriseAttestation"],
        0x02: [1: "rpId", 2: "clientDataHash", 3: "allowList", 4: "extensions", 5: "options", 6: "pinUvAuthParam",
               7: "pinUvAuthProtocol"],
        0x06: [1: "pinUvAuthProtocol", 2: "subCommand", 3: "keyAgreement", 4: "pinUvAuthParam", 5: "newPinEnc",
               6: "pinHashEnc", 9: "permissions", 10: "rpId"],
        0x0A: [1: "subCommand", 2: "subCommandParams", 3: "pinUvAuthProtocol", 4: "pinUvAuthParam"],
        0x0D: [1: "subCommand", 2: "subCommandParams", 3: "pinUvAuthProtocol", 4: "pinUvAuthParam"],
    ]

    static let responseFields: [UInt8: [Int: String]] = [
        0x01: [1: "fmt", 2: "authData", 3: "attStmt", 4: "epAtt", 5: "largeBlobKey"],
        0x02: assertionFields,
        0x08: assertionFields,
        0x04: [1: "versions", 2: "extensions", 3: "aaguid", 4: "options", 5: "maxMsgSize", 6: "pinUvAuthProtocols",
               7: "maxCredentialCountInList", 8: "maxCredentialIdLength", 9: "transports", 10: "algorithms",
               11: "maxSerializedLargeBlobArray", 12: "forcePINChange", 13: "minPINLength", 14: "firmwareVersion",
               15: "maxCredBlobLength", 16: "maxRPIDsForSetMinPINLength", 17: "preferredPlatformUvAttempts",
               18: "uvModality", 19: "certifications", 20: "remainingDiscoverableCredentials",
               21: "vendorPrototypeConfigCommands"],
        0x06: [1: "keyAgreement", 2: "pinUvAuthToken", 3: "pinRetries", 4: "powerCycleState", 5: "uvRetries"],
        0x0A: [1: "existingResidentCredentialsCount", 2: "maxPossibleRemainingResidentCredentialsCount", 3: "rp",
               4: "rpIDHash", 5: "totalRPs", 6: "user", 7: "credentialID", 8: "publicKey", 9: "totalCredentials",
               10: "credProtect", 11: "largeBlobKey"],
    ]

    private static let assertionFields: [Int: String] = [
        1: "credential", 2: "authData", 3: "signature", 4: "user", 5: "numberOfCredentials", 6: "userSelected",
        7: "largeBlobKey",
    ]

    static let subcommandNames: [CTAPCommand: [Int: String]] = [
        .clientPIN: [1: "getPINRetries", 2: "getKeyAgreement", 3: "setPIN", 4: "changePIN", 5: "getPinToken",
                     6: "getPinUvAuthTokenUsingUvWithPermissions", 7: "getUVRetries",
                     9: "getPinUvAuthTokenUsingPinWithPermissions"],
        .credentialManagement: [1: "getCredsMetadata", 2: "enumerateRPsBegin", 3: "enumerateRPsGetNextRP",
                                4: "enumerateCredentialsBegin", 5: "enumerateCredentialsGetNextCredential",
                                6: "deleteCredential", 7: "updateUserInformation"],
    ]

    /// U2F AUTHENTICATE control bytes (P1).
    static let u2fControlNames: [UInt8: String] = [
        0x03: "enforce-user-presence-and-sign", 0x07: "check-only", 0x08: "dont-enforce-user-presence-and-sign",
    ]

    /// The name of a CTAP status byte, e.g. `CTAP2_ERR_PIN_INVALID`.
    static func statusName(_ byte: UInt8) -> String {
        CTAPStatus(rawValue: byte)?.name ?? "CTAP status 0x\(hex(byte))"
    }

    static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
