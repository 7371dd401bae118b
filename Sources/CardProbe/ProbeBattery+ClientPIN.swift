import CBOR
import FIDOWire

extension ProbeBattery {
    /// authenticatorClientPIN without a PIN attempt: retries and key agreement per protocol, and
    /// requests that miss what any PIN check needs (so none can cost a retry).
    static var clientPIN: [ProbeEntry] {
        func entry(_ id: String, _ summary: String, _ parameters: CBORMap, kind: String? = nil) -> ProbeEntry {
            ctap("clientPIN.\(id)", "clientPIN \(summary)", .clientPIN, parameters, kind: kind)
        }
        let junk = CBORValue.bytes(ProbeValues.junkPinUvAuthParam)
        let key = ProbeValues.fixedPlatformKey
        var textSubcommand = CBORMap()
        textSubcommand[int: ClientPINKey.pinUvAuthProtocol.rawValue] = 1
        textSubcommand[int: ClientPINKey.subCommand.rawValue] = "getPINRetries"
        var textProtocol = ProbeValues.clientPIN(.getPINRetries, protocol: nil)
        textProtocol[int: ClientPINKey.pinUvAuthProtocol.rawValue] = "1"
        var unknown = CBORMap()
        unknown[int: ClientPINKey.pinUvAuthProtocol.rawValue] = 1
        unknown[int: ClientPINKey.subCommand.rawValue] = 0x7F
        return [
            entry("getPINRetries.protocol-1", "getPINRetries (protocol 1)", ProbeValues.clientPIN(.getPINRetries, protocol: 1),
                  kind: TimingKind.pinRetries),
            entry("getPINRetries.protocol-2", "getPINRetries (protocol 2)", ProbeValues.clientPIN(.getPINRetries, protocol: 2)),
            entry("getPINRetries.no-protocol", "getPINRetries without pinUvAuthProtocol", ProbeValues.clientPIN(.getPINRetries, protocol: nil)),
            entry("getKeyAgreement.protocol-1", "getKeyAgreement (protocol 1)", ProbeValues.clientPIN(.getKeyAgreement, protocol: 1),
                  kind: TimingKind.keyAgreement),
            entry("getKeyAgreement.protocol-2", "getKeyAgreement (protocol 2)", ProbeValues.clientPIN(.getKeyAgreement, protocol: 2)),
            entry("getKeyAgreement.protocol-3", "getKeyAgreement with pinUvAuthProtocol 3", ProbeValues.clientPIN(.getKeyAgreement, protocol: 3)),
            entry("getKeyAgreement.no-protocol", "getKeyAgreement without pinUvAuthProtocol", ProbeValues.clientPIN(.getKeyAgreement, protocol: nil)),
            entry("getUVRetries", "getUVRetries (built-in user verification)", ProbeValues.clientPIN(.getUVRetries, protocol: 1)),
            entry("unknown-subcommand", "with an unknown subcommand (0x7F)", unknown),
            entry("no-subcommand", "without subCommand", [.int(ClientPINKey.pinUvAuthProtocol.rawValue): 1]),
            entry("subcommand-text", "with subCommand as text", textSubcommand),
            entry("protocol-text", "getPINRetries with pinUvAuthProtocol as text", textProtocol),
            entry("setPIN.no-newPinEnc", "setPIN without newPinEnc",
                  ProbeValues.clientPIN(.setPIN, protocol: 1, [.keyAgreement: key, .pinUvAuthParam: junk])),
            entry("changePIN.no-pinHashEnc", "changePIN without pinHashEnc",
                  ProbeValues.clientPIN(.changePIN, protocol: 1, [.keyAgreement: key, .pinUvAuthParam: junk,
                                                                  .newPinEnc: .bytes([UInt8](repeating: 0, count: 64))])),
            entry("getPinToken.no-keyAgreement", "getPinToken without keyAgreement",
                  ProbeValues.clientPIN(.getPinToken, protocol: 1, [.pinHashEnc: junk])),
            entry("getPinToken.no-pinHashEnc", "getPinToken without pinHashEnc",
                  ProbeValues.clientPIN(.getPinToken, protocol: 1, [.keyAgreement: key])),
            entry("getPinUvAuthTokenUsingUvWithPermissions", "getPinUvAuthTokenUsingUvWithPermissions (built-in UV) for mc",
                  ProbeValues.clientPIN(.getPinUvAuthTokenUsingUvWithPermissions, protocol: 1,
                                        [.keyAgreement: key, .permissions: 1, .rpId: .text(ProbeValues.rpID)])),
        ]
    }

    /// credentialManagement, large blobs and authenticatorConfig without a token: what each
    /// refuses, and the large-blob array's size (reading it changes nothing).
    static var management: [ProbeEntry] {
        let junk = CBORValue.bytes(ProbeValues.junkPinUvAuthParam)
        func cm(_ command: CTAPCommand, _ name: String, _ id: String, _ summary: String, _ map: CBORMap) -> ProbeEntry {
            ctap("\(name).\(id)", "\(name) \(summary)", command, map)
        }
        let metadata = CredentialManagementSubcommand.getCredsMetadata.rawValue
        var entries: [ProbeEntry] = []
        for (command, name) in [(CTAPCommand.credentialManagement, "credentialManagement"),
                                (.credentialManagementPreview, "credentialManagement-preview")] {
            entries += [
                cm(command, name, "metadata-without-token", "getCredsMetadata without a pinUvAuthParam", [.int(1): .int(metadata)]),
                cm(command, name, "metadata-junk-token", "getCredsMetadata with a pinUvAuthParam no token made",
                   [.int(1): .int(metadata), .int(3): 1, .int(4): junk]),
                cm(command, name, "unknown-subcommand", "with an unknown subcommand (0x7F)", [.int(1): 0x7F]),
                cm(command, name, "subcommand-text", "with subCommand as text", [.int(1): "getCredsMetadata"]),
            ]
        }
        let get = LargeBlobsKey.get.rawValue, offset = LargeBlobsKey.offset.rawValue
        entries += [
            ctap("largeBlobs.get", "largeBlobs get of 64 bytes at offset 0", .largeBlobs, [.int(get): 64, .int(offset): 0]),
            ctap("largeBlobs.get-without-offset", "largeBlobs get without offset", .largeBlobs, [.int(get): 64]),
            ctap("largeBlobs.get-too-long", "largeBlobs get of 5000 bytes", .largeBlobs, [.int(get): 5000, .int(offset): 0]),
            ctap("largeBlobs.get-beyond", "largeBlobs get at offset 5000", .largeBlobs, [.int(get): 16, .int(offset): 5000]),
            ctap("config.unknown-subcommand", "config with an unknown subcommand (0x7F)", .config, [.int(ConfigKey.subCommand.rawValue): 0x7F]),
            ctap("config.subcommand-text", "config with subCommand as text", .config, [.int(ConfigKey.subCommand.rawValue): "toggleAlwaysUv"]),
        ]
        return entries
    }
}
