import CBOR
import FIDOWire

@testable import CTAP2

/// Every message the card reads or writes, generated.
extension MessageGenerator {
    mutating func getAssertionRequest() -> GetAssertionRequest {
        GetAssertionRequest(rpId: text(), clientDataHash: bytes(upTo: 40), allowList: descriptors(),
                            extensions: maybe { $0.extensions() }, options: options(), pinUvAuthParam: maybe { $0.bytes(upTo: 40) },
                            pinUvAuthProtocol: maybe { $0.unsigned() })
    }

    mutating func makeCredentialRequest() -> MakeCredentialRequest {
        MakeCredentialRequest(
            clientDataHash: bytes(upTo: 40), rp: relyingParty(), user: user(),
            pubKeyCredParams: (0..<Int(number(below: 4))).map { _ in CredentialParameters(type: text(), algorithm: count() - 35_000) },
            excludeList: descriptors(), extensions: maybe { $0.extensions() }, options: options(),
            pinUvAuthParam: maybe { $0.bytes(upTo: 40) }, pinUvAuthProtocol: maybe { $0.unsigned() },
            enterpriseAttestation: maybe { $0.tree() })
    }

    mutating func clientPINRequest() -> ClientPINRequest {
        ClientPINRequest(subCommand: unsigned(), pinUvAuthProtocol: maybe { $0.unsigned() }, keyAgreement: maybe { $0.tree() },
                         pinUvAuthParam: maybe { $0.bytes(upTo: 40) }, newPinEnc: maybe { $0.bytes() },
                         pinHashEnc: maybe { $0.bytes(upTo: 40) }, permissions: maybe { $0.unsigned() }, rpId: maybe { $0.text() })
    }

    mutating func subcommandRequest<Key: SubcommandRequestKey>(_: Key.Type) -> SubcommandRequest<Key> {
        SubcommandRequest(subCommand: unsigned(), subCommandParams: maybe { $0.encodedMap() },
                          pinUvAuthProtocol: maybe { $0.unsigned() }, pinUvAuthParam: maybe { $0.bytes(upTo: 40) })
    }

    mutating func largeBlobsRequest() -> LargeBlobsRequest {
        LargeBlobsRequest(get: maybe { $0.unsigned() }, set: maybe { $0.bytes() }, offset: maybe { $0.unsigned() },
                          length: maybe { $0.unsigned() }, pinUvAuthParam: maybe { $0.bytes(upTo: 40) },
                          pinUvAuthProtocol: maybe { $0.unsigned() })
    }

    mutating func setMinPINLengthParameters() -> SetMinPINLengthParameters {
        SetMinPINLengthParameters(newMinPINLength: maybe { $0.count() }, minPinLengthRPIDs: maybe { generator in
            (0..<Int(generator.number(below: 3))).map { _ in generator.text() }
        }, forceChangePin: maybe { $0.chance() })
    }

    mutating func hmacSecretSalts() -> HMACSecretSalts {
        HMACSecretSalts(keyAgreement: tree(), saltEnc: bytes(upTo: 80), saltAuth: bytes(upTo: 40),
                        pinUvAuthProtocol: maybe { $0.unsigned() })
    }

    /// An extensions map as platforms send one: the card's extensions, with inputs of the right
    /// type mostly, and others.
    mutating func extensions() -> ExtensionsMap {
        var map = CBORMap()
        for _ in 0..<number(below: 4) {
            switch number(below: 8) {
            case 0: map["hmac-secret"] = chance() ? .bool(true) : (try? CBORDecoder.decode(hmacSecretSalts().encoded())) ?? .null
            case 1: map["hmac-secret-mc"] = (try? CBORDecoder.decode(hmacSecretSalts().encoded())) ?? .null
            case 2: map["credProtect"] = chance() ? .unsigned(number(below: 5)) : tree()
            case 3: map["credBlob"] = chance() ? .bytes(bytes(upTo: 70)) : .bool(chance())
            case 4: map["largeBlobKey"] = chance() ? .bool(chance()) : tree()
            case 5: map[chance() ? "minPinLength" : "thirdPartyPayment"] = chance() ? .bool(chance()) : tree()
            default: map[tree(depth: 0)] = tree()
            }
        }
        return ExtensionsMap(tree: CBOREncoder.encode(.map(map)))!
    }

    mutating func getAssertionResponse() -> GetAssertionResponse {
        GetAssertionResponse(credential: descriptor(), authData: bytes(), signature: bytes(upTo: 80), user: maybe { $0.user() },
                             numberOfCredentials: maybe { $0.count() }, largeBlobKey: maybe { $0.bytes(upTo: 40) })
    }

    mutating func makeCredentialResponse() -> MakeCredentialResponse {
        MakeCredentialResponse(fmt: text(), authData: bytes(), attStmt: tree(), epAtt: maybe { $0.chance() },
                               largeBlobKey: maybe { $0.bytes(upTo: 40) })
    }

    mutating func clientPINResponse() -> ClientPINResponse {
        ClientPINResponse(keyAgreement: maybe { $0.tree() }, pinUvAuthToken: maybe { $0.bytes(upTo: 80) },
                          pinRetries: maybe { $0.count() }, powerCycleState: maybe { $0.chance() }, uvRetries: maybe { $0.count() })
    }

    mutating func credentialManagementResponse() -> CredentialManagementResponse {
        CredentialManagementResponse(
            existingResidentCredentialsCount: maybe { $0.count() }, maxPossibleRemainingResidentCredentialsCount: maybe { $0.count() },
            rp: maybe { $0.relyingParty() }, rpIDHash: maybe { $0.bytes(upTo: 40) }, totalRPs: maybe { $0.count() },
            user: maybe { $0.user() }, credentialID: maybe { $0.descriptor() }, publicKey: maybe { $0.tree() },
            totalCredentials: maybe { $0.count() }, credProtect: maybe { $0.count() }, largeBlobKey: maybe { $0.bytes(upTo: 40) },
            thirdPartyPayment: maybe { $0.chance() })
    }

    mutating func authenticatorInfo() -> AuthenticatorInfo {
        func texts(_ generator: inout MessageGenerator) -> [String] {
            (0..<Int(generator.number(below: 4))).map { _ in generator.text() }
        }
        var info = AuthenticatorInfo(versions: texts(&self), extensions: maybe(texts), aaguid: bytes(upTo: 20))
        info.options = options().map { (name: $0.key, value: $0.value) }
        info.maxMsgSize = maybe { $0.count() }
        info.pinUvAuthProtocols = maybe { generator in (0..<Int(generator.number(below: 3))).map { _ in generator.count() - 9 } }
        info.maxCredentialCountInList = maybe { $0.count() }
        info.maxCredentialIdLength = maybe { $0.count() }
        info.transports = maybe(texts)
        info.algorithms = maybe { generator in (0..<Int(generator.number(below: 3))).map { _ in -generator.count() } }
        info.maxSerializedLargeBlobArray = maybe { $0.count() }
        info.forcePINChange = maybe { $0.chance() }
        info.minPINLength = maybe { $0.count() }
        info.firmwareVersion = maybe { $0.count() }
        info.maxCredBlobLength = maybe { $0.count() }
        info.maxRPIDsForSetMinPINLength = maybe { $0.count() }
        info.remainingDiscoverableCredentials = maybe { $0.count() }
        info.encIdentifier = maybe { $0.bytes(upTo: 40) }
        info.maxPINLength = maybe { $0.count() }
        info.encCredStoreState = maybe { $0.bytes(upTo: 40) }
        return info
    }

    /// A request of each command the card reads, with its command byte.
    mutating func request() -> [UInt8] {
        switch number(below: 7) {
        case 0: [CTAPCommand.getAssertion.rawValue] + getAssertionRequest().encoded()
        case 1: [CTAPCommand.makeCredential.rawValue] + makeCredentialRequest().encoded()
        case 2: [CTAPCommand.clientPIN.rawValue] + clientPINRequest().encoded()
        case 3: [CTAPCommand.credentialManagement.rawValue] + subcommandRequest(CredentialManagementKey.self).encoded()
        case 4:
            [CTAPCommand.config.rawValue] + SubcommandRequest<ConfigKey>(
                subCommand: 3, subCommandParams: maybe { $0.setMinPINLengthParameters().encoded() },
                pinUvAuthProtocol: maybe { $0.unsigned() }, pinUvAuthParam: maybe { $0.bytes(upTo: 40) }).encoded()
        case 5:
            [CTAPCommand.credentialManagement.rawValue] + CredentialManagementRequest(
                subCommand: 7, subCommandParams: CBOREncoder.encode([1: .bytes(bytes(upTo: 40)),
                                                                     2: (try? CBORDecoder.decode(descriptor().encoded())) ?? .null,
                                                                     3: (try? CBORDecoder.decode(user().encoded())) ?? .null]),
                pinUvAuthProtocol: 2, pinUvAuthParam: bytes(upTo: 40)).encoded()
        default: [CTAPCommand.largeBlobs.rawValue] + largeBlobsRequest().encoded()
        }
    }
}
