import CardCrypto
import CBOR
import FIDOWire
import TestSupport

/// The fields of each CTAP2 request, generated from the fuzz input (see FuzzCTAPGenerator.swift).
///
/// Each map key is visited in its FIDOWire enum's order (a switch over `allCases`, so a key added
/// to the enum must be given a generator here). One mode byte per key decides:
/// `0` the ordinary choice (a required key holds a good value, an optional one is absent),
/// `4` absent, `5` the right CBOR type at an edge (lengths off by one, empty, out-of-range
/// numbers, entities missing members), `6` a value of another CBOR type, anything else a good
/// value (whose details the next bytes pick). Authentication fields come last and, when good, are
/// computed under the platform's token or PIN/UV session over the fields as generated.
struct FuzzCTAPSchema {
    var input: FuzzInput
    var platform: FuzzPlatform

    enum Presence { case absent, good, edge, wrongType }

    static let rpIds = ["example.com", "other.example", "", "a.example", String(repeating: "r", count: 300),
                        "EXAMPLE.COM", "example.com\u{0}x", "xn--bcher-kva.example"]
    static let pins = ["1234", "56789", "0000", "123", "\u{E9}\u{E9}\u{E9}\u{E9}", String(repeating: "7", count: 63),
                       String(repeating: "8", count: 64), "12\u{0}45", "\u{1F600}\u{1F600}"]
    static let userIds: [[UInt8]] = [[1], [2], [3], [9], fuzzFiller(64, seed: 1), fuzzFiller(32, seed: 2)]

    /// What the next mode byte asks for: `0` the ordinary choice (`.good` for a required key,
    /// `.absent` for an optional one), `4` absent, `5` an edge, `6` another type, else good.
    mutating func presence(required: Bool) -> Presence {
        switch input.byte() % 8 {
        case 0: required ? .good : .absent
        case 4: .absent
        case 5: .edge
        case 6: .wrongType
        default: .good
        }
    }

    /// Sets `key` as the mode byte says: `good` or `edge` values, another type, or nothing.
    /// `required` must follow from the input alone (the command, the subcommand), never from
    /// what the platform knows: then how many bytes a request reads depends on the input only,
    /// and a program means the same whoever runs it.
    mutating func field(_ map: inout CBORMap, _ key: Int, required: Bool,
                        good: (inout FuzzCTAPSchema) -> CBORValue, edge: (inout FuzzCTAPSchema) -> CBORValue) {
        switch presence(required: required) {
        case .absent: break
        case .good: map[int: key] = good(&self)
        case .edge: map[int: key] = edge(&self)
        case .wrongType: map[int: key] = Self.anyValue(&input)
        }
    }

    // MARK: - Commands

    mutating func makeCredential() -> CBORMap {
        var map = CBORMap()
        for key in MakeCredentialKey.allCases {
            switch key {
            case .clientDataHash: field(&map, key.rawValue, required: true, good: { $0.hash() }, edge: { $0.edgeBytes(32) })
            case .rp: field(&map, key.rawValue, required: true, good: { $0.rp() }, edge: { $0.edgeEntity() })
            case .user: field(&map, key.rawValue, required: true, good: { $0.user() }, edge: { $0.edgeUser() })
            case .pubKeyCredParams: field(&map, key.rawValue, required: true, good: { $0.algorithms() }, edge: { $0.edgeAlgorithms() })
            case .excludeList: field(&map, key.rawValue, required: false, good: { $0.descriptors() }, edge: { $0.edgeDescriptors() })
            case .extensions: field(&map, key.rawValue, required: false, good: { $0.extensions(assertion: false) }, edge: { $0.edgeExtensions() })
            case .options: field(&map, key.rawValue, required: false, good: { $0.options() }, edge: { $0.edgeOptions() })
            case .enterpriseAttestation: field(&map, key.rawValue, required: false, good: { .int(1 + $0.input.choice(2)) }, edge: { $0.edgeInt() })
            case .attestationFormatsPreference:
                field(&map, key.rawValue, required: false, good: { .array($0.input.pick([["packed"], ["none", "packed"], ["tpm"]])) },
                      edge: { $0.input.pick([.array([]), .array([1]), "packed"]) })
            case .pinUvAuthParam, .pinUvAuthProtocol: break
            }
        }
        let message = map[int: MakeCredentialKey.clientDataHash.rawValue]?.bytesValue ?? []
        authentication(&map, param: MakeCredentialKey.pinUvAuthParam.rawValue, protocol: MakeCredentialKey.pinUvAuthProtocol.rawValue,
                       message: message)
        return map
    }

    mutating func getAssertion() -> CBORMap {
        var map = CBORMap()
        for key in GetAssertionKey.allCases {
            switch key {
            case .rpId: field(&map, key.rawValue, required: true, good: { .text($0.rpId()) }, edge: { .text($0.input.pick(["", " ", String(repeating: "r", count: 2048)])) })
            case .clientDataHash: field(&map, key.rawValue, required: true, good: { $0.hash() }, edge: { $0.edgeBytes(32) })
            case .allowList: field(&map, key.rawValue, required: false, good: { $0.descriptors() }, edge: { $0.edgeDescriptors() })
            case .extensions: field(&map, key.rawValue, required: false, good: { $0.extensions(assertion: true) }, edge: { $0.edgeExtensions() })
            case .options: field(&map, key.rawValue, required: false, good: { $0.options() }, edge: { $0.edgeOptions() })
            case .pinUvAuthParam, .pinUvAuthProtocol: break
            }
        }
        let message = map[int: GetAssertionKey.clientDataHash.rawValue]?.bytesValue ?? []
        authentication(&map, param: GetAssertionKey.pinUvAuthParam.rawValue, protocol: GetAssertionKey.pinUvAuthProtocol.rawValue,
                       message: message)
        return map
    }

    mutating func clientPIN() -> CBORMap {
        var map = CBORMap()
        platform.pendingPIN = nil
        let subcommands: [ClientPINSubcommand] = [.getPinUvAuthTokenUsingPinWithPermissions, .getKeyAgreement, .getPINRetries, .setPIN,
                                                  .changePIN, .getPinToken, .getPinUvAuthTokenUsingUvWithPermissions, .getUVRetries]
        let subcommand = input.pick(subcommands)
        let pinProtocol = input.pick([platform.preferredProtocol, 1, 2])
        // The session the crypto uses (the protocol field may still say something else).
        let session = platform.session(pinProtocol)
        let needsKey: Set<ClientPINSubcommand> = [.setPIN, .changePIN, .getPinToken, .getPinUvAuthTokenUsingPinWithPermissions]
        for key in ClientPINKey.allCases {
            switch key {
            case .pinUvAuthProtocol: field(&map, key.rawValue, required: true, good: { _ in .int(pinProtocol) }, edge: { $0.edgeInt() })
            case .subCommand: field(&map, key.rawValue, required: true, good: { _ in .int(subcommand.rawValue) }, edge: { $0.input.pick([0, 8, 0x0A, 0xFF, -1]) })
            case .keyAgreement:
                field(&map, key.rawValue, required: needsKey.contains(subcommand),
                      good: { $0.platformKey(session) }, edge: { $0.edgeKey(session) })
            case .newPinEnc:
                field(&map, key.rawValue, required: subcommand == .setPIN || subcommand == .changePIN,
                      good: { $0.newPinEnc(session) }, edge: { $0.edgeEncrypted(session, 64) })
            case .pinHashEnc:
                field(&map, key.rawValue, required: subcommand == .changePIN || subcommand == .getPinToken
                        || subcommand == .getPinUvAuthTokenUsingPinWithPermissions,
                      good: { $0.pinHashEnc(session) }, edge: { $0.edgeEncrypted(session, 16) })
            case .permissions:
                field(&map, key.rawValue, required: subcommand == .getPinUvAuthTokenUsingPinWithPermissions
                        || subcommand == .getPinUvAuthTokenUsingUvWithPermissions,
                      good: { schema in let bits = schema.input.byte(); return .int(bits == 0 ? 0x07 : Int(bits)) },
                      edge: { $0.input.pick([0, 0x40, 0xFFFF_FFFF, -1]) })
            case .rpId: field(&map, key.rawValue, required: false, good: { .text($0.rpId()) }, edge: { _ in .text("") })
            case .pinUvAuthParam: break
            }
        }
        // pinUvAuthParam: authenticate(shared secret, newPinEnc [‖ pinHashEnc]) for setPIN/changePIN.
        var message = map[int: ClientPINKey.newPinEnc.rawValue]?.bytesValue ?? []
        if subcommand == .changePIN { message += map[int: ClientPINKey.pinHashEnc.rawValue]?.bytesValue ?? [] }
        let required = subcommand == .setPIN || subcommand == .changePIN
        field(&map, ClientPINKey.pinUvAuthParam.rawValue, required: required,
              good: { _ in .bytes(session?.authenticate(message) ?? fuzzFiller(pinProtocol == 1 ? 16 : 32, seed: 3)) },
              edge: { $0.edgeBytes(pinProtocol == 1 ? 16 : 32) })
        return map
    }

    mutating func credentialManagement() -> CBORMap {
        var map = CBORMap()
        let subcommand = input.pick(CredentialManagementSubcommand.allCases)
        for key in CredentialManagementKey.allCases {
            switch key {
            case .subCommand: field(&map, key.rawValue, required: true, good: { _ in .int(subcommand.rawValue) }, edge: { $0.input.pick([0, 8, 0xFF, -1]) })
            case .subCommandParams:
                field(&map, key.rawValue, required: [.enumerateCredentialsBegin, .deleteCredential, .updateUserInformation].contains(subcommand),
                      good: { $0.credentialManagementParameters(subcommand) },
                      edge: { schema in
                          switch schema.input.choice(4) {
                          case 0: .map([:])
                          case 1: .map([1: 5])
                          case 2: .map([2: .map(["id": 1])])
                          default: .map([3: .map([:])])
                          }
                      })
            case .pinUvAuthProtocol, .pinUvAuthParam: break
            }
        }
        var message: [UInt8] = [UInt8(truncatingIfNeeded: map[int: 1]?.intValue ?? 0)]
        if let parameters = map[int: CredentialManagementKey.subCommandParams.rawValue] { message += CBOREncoder.encode(parameters) }
        authentication(&map, param: CredentialManagementKey.pinUvAuthParam.rawValue, protocol: CredentialManagementKey.pinUvAuthProtocol.rawValue,
                       message: message, required: !subcommand.continuesEnumeration)
        return map
    }

    mutating func config() -> CBORMap {
        var map = CBORMap()
        let subcommand = input.pick(ConfigSubcommand.allCases)
        for key in ConfigKey.allCases {
            switch key {
            case .subCommand: field(&map, key.rawValue, required: true, good: { _ in .int(subcommand.rawValue) }, edge: { $0.edgeInt() })
            case .subCommandParams:
                field(&map, key.rawValue, required: subcommand == .setMinPINLength,
                      good: { schema in .map([.int(SetMinPINLengthKey.newMinPINLength.rawValue): .int(Int(schema.input.byte() % 70)),
                                              .int(SetMinPINLengthKey.minPinLengthRPIDs.rawValue): .array([.text(schema.rpId())]),
                                              .int(SetMinPINLengthKey.forceChangePin.rawValue): .bool(schema.input.bool())]) },
                      edge: { _ in .map([:]) })
            case .pinUvAuthProtocol, .pinUvAuthParam: break
            }
        }
        var message = [UInt8](repeating: 0xFF, count: 32) + [CTAPCommand.config.rawValue, UInt8(truncatingIfNeeded: subcommand.rawValue)]
        if let parameters = map[int: ConfigKey.subCommandParams.rawValue] { message += CBOREncoder.encode(parameters) }
        authentication(&map, param: ConfigKey.pinUvAuthParam.rawValue, protocol: ConfigKey.pinUvAuthProtocol.rawValue, message: message)
        return map
    }

    mutating func largeBlobs() -> CBORMap {
        var map = CBORMap()
        for key in LargeBlobsKey.allCases {
            switch key {
            case .get: field(&map, key.rawValue, required: true, good: { .int(Int($0.input.byte())) }, edge: { $0.edgeInt() })
            case .set: field(&map, key.rawValue, required: false, good: { .bytes($0.input.shortPiece()) }, edge: { $0.edgeBytes(17) })
            case .offset: field(&map, key.rawValue, required: true, good: { .int(Int($0.input.byte())) }, edge: { $0.edgeInt() })
            case .length: field(&map, key.rawValue, required: false, good: { .int(Int($0.input.byte())) }, edge: { $0.edgeInt() })
            case .pinUvAuthParam, .pinUvAuthProtocol: break
            }
        }
        let message = [UInt8](repeating: 0xFF, count: 32) + [CTAPCommand.largeBlobs.rawValue, 0x00, 0, 0, 0, 0]
        authentication(&map, param: LargeBlobsKey.pinUvAuthParam.rawValue, protocol: LargeBlobsKey.pinUvAuthProtocol.rawValue,
                       message: message, required: false)
        return map
    }

    /// A map of small integer keys with any values (commands without a schema here).
    mutating func anyMap() -> CBORMap {
        var map = CBORMap()
        for _ in 0..<input.choice(5) { map[int: Int(input.byte() % 16)] = Self.anyValue(&input) }
        return map
    }

    // MARK: - PIN/UV authentication

    /// pinUvAuthParam over `message` under the token (or, without one, bytes of the right size)
    /// and pinUvAuthProtocol. Mode `0`: both present exactly when the platform has a token; an
    /// empty pinUvAuthParam (the "touch to select" probe) and a MAC of the other protocol are among
    /// the good choices. It reads the same bytes (a mode and a choice for each key) whatever the
    /// platform knows.
    private mutating func authentication(_ map: inout CBORMap, param: Int, protocol protocolKey: Int,
                                         message: [UInt8], required: Bool? = nil) {
        let token = platform.token
        let pinProtocol = token?.pinProtocol.rawValue ?? platform.preferredProtocol
        let mode = presence(required: required ?? (token != nil))
        let variant = input.choice(4)
        switch mode {
        case .absent: break
        case .good:
            switch variant {
            case 0, 1: map[int: param] = .bytes(token?.authenticate(message) ?? fuzzFiller(pinProtocol == 1 ? 16 : 32, seed: 4))
            case 2: map[int: param] = .bytes([])
            default: map[int: param] = .bytes((pinProtocol == 1 ? PlatformPIN.two : .one).authenticate(key: token?.value ?? [], message))
            }
        case .edge: map[int: param] = .bytes(fuzzFiller([0, 15, 17, 31, 33, 64][variant], seed: 11))
        case .wrongType: map[int: param] = Self.anyValue(&input)
        }
        let protocolMode = presence(required: map[int: param] != nil)
        let value = input.byte()
        switch protocolMode {
        case .absent: break
        case .good: map[int: protocolKey] = .int([pinProtocol, 1, 2][Int(value) % 3])
        case .edge: map[int: protocolKey] = Self.edgeInt(value)
        case .wrongType: map[int: protocolKey] = Self.anyValue(&input)
        }
    }
}
