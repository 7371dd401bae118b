import CBOR
import FIDOWire

/// Which fields of CTAP requests and responses must be equal, and which only need the same
/// shape, for the three comparisons transcripts make.
enum ComparisonRules {
    /// Byte-exact replay: everything equal; authenticator data taken apart only so that the
    /// report names the field (`response.authData{2}.flags`).
    static func exact(command: UInt8?) -> (FieldPath) -> FieldRule {
        { path in
            if path.segments.isEmpty { return .shape }
            if isAuthenticatorData(command: command, path: path) { return .authenticatorData }
            return .equal
        }
    }

    /// Structural replay of a response from an unseeded card: the constant fields equal, the
    /// fields a card draws at random (keys, signatures, credential IDs it issues, tokens)
    /// only of the same shape. Signatures and counters are checked separately.
    static func structuralResponse(command: UInt8?) -> (FieldPath) -> FieldRule {
        { path in
            guard let key = path.topLevelKey else { return .shape }
            let inner = path.innerNames
            switch command {
            case 0x04:
                return .equal  // getInfo: all of it describes the card's profile
            case 0x01:
                switch key {
                case 1: return .equal  // fmt
                case 2: return authenticatorDataRule(inner, extensionsEqual: true)
                case 3:  // attStmt: alg and the certificate chain are the card's; sig is fresh
                    guard let first = inner.first else { return .shape }
                    return first == "alg" || first == "x5c" ? .equal : .shape
                default: return .shape
                }
            case 0x02, 0x08:
                switch key {
                case 1:  // credential descriptor
                    guard let first = inner.first else { return .shape }
                    return first == "id" ? .credentialID : .equal
                case 2: return authenticatorDataRule(inner, extensionsEqual: false)
                case 3, 7: return .shape  // signature, largeBlobKey
                default: return .equal  // user, numberOfCredentials, userSelected
                }
            case 0x06:
                return key == 1 || key == 2 ? .shape : .equal  // keyAgreement and token are fresh
            case 0x0A:
                switch key {
                case 7:
                    guard let first = inner.first else { return .shape }
                    return first == "id" ? .credentialID : .equal
                case 8, 11: return .shape  // publicKey, largeBlobKey
                default: return .equal
                }
            default:
                return .equal
            }
        }
    }

    /// A stand-in's comparison of a host's request with the recorded one: everything equal
    /// except the fields a host chooses at random (see ``TranscriptStandIn``).
    static func standInRequest(command: UInt8?) -> (FieldPath) -> FieldRule {
        { path in
            guard let key = path.topLevelKey else { return .shape }
            let inner = path.innerNames
            switch (command, key) {
            case (0x01, 1), (0x02, 2):  // makeCredential's and getAssertion's clientDataHash
                return .sameTypeAndLength
            case (0x02, 4):  // getAssertion extensions: hmac-secret inputs
                guard let name = inner.first else { return .shape }
                guard name == "hmac-secret" else { return .equal }
                guard inner.count > 1 else { return .shape }
                switch inner[1] {
                case "1": return .coseKey  // keyAgreement
                case "2", "3": return .sameTypeAndLength  // saltEnc, saltAuth
                default: return .equal  // pinUvAuthProtocol
                }
            case (0x06, 3):  // clientPIN keyAgreement
                return .coseKey
            case (0x06, 5), (0x06, 6):  // newPinEnc, pinHashEnc
                return .sameTypeAndLength
            default:
                // Every command's pinUvAuthParam (makeCredential's and getAssertion's among them).
                if let command, key == CTAPCommand(rawValue: command)?.pinUvAuthParamKey { return .sameTypeAndLength }
                return .equal
            }
        }
    }

    /// Whether `path` is the authData member of a makeCredential / getAssertion response.
    private static func isAuthenticatorData(command: UInt8?, path: FieldPath) -> Bool {
        path.segments.count == 1 && path.topLevelKey == 2 && (command == 0x01 || command == 0x02 || command == 0x08)
            && path.root == "response"
    }

    private static func authenticatorDataRule(_ inner: [String], extensionsEqual: Bool) -> FieldRule {
        guard let field = inner.first else { return .authenticatorData }
        switch field {
        case "rpIdHash", "flags", "aaguid":
            return .equal
        case "signCount":
            return .shape  // checked to increase, separately
        case "credentialId":
            return .sameTypeAndLength
        case "credentialPublicKey":
            // kty, alg and crv are the card's choice of algorithm; the point is fresh.
            guard inner.count > 1 else { return .shape }
            return ["1", "3", "-1"].contains(inner[1]) ? .equal : .shape
        case "extensions":
            return extensionsEqual ? .equal : .shape
        default:
            return .equal
        }
    }

    /// The spec's names for the top-level keys of `command`'s request or response.
    static func fieldNames(command: UInt8?, isRequest: Bool) -> (Int) -> String? {
        { CTAPNames.fieldName(command: command, isRequest: isRequest, key: $0) }
    }
}
