import CBOR
import COSE
import FIDOWire

/// Which fields of CTAP requests and responses must be equal, and which only need the same
/// shape, for the three comparisons transcripts make.
enum ComparisonRules {
    /// Byte-exact replay: everything equal; authenticator data taken apart only so that the
    /// report names the field (`response.authData{2}.flags`).
    static func exact(command: CTAPCommand?) -> (FieldPath) -> FieldRule {
        { path in
            if path.segments.isEmpty { return .shape }
            if isAuthenticatorData(command: command, path: path) { return .authenticatorData }
            return .equal
        }
    }

    /// Structural replay of a response from an unseeded card: the constant fields equal, the
    /// fields a card draws at random (keys, signatures, credential IDs it issues, tokens)
    /// only of the same shape. Signatures and counters are checked separately.
    static func structuralResponse(command: CTAPCommand?) -> (FieldPath) -> FieldRule {
        byMember { key, inner in
            switch command {
            case .getInfo:
                return .equal  // getInfo: all of it describes the card's profile
            case .makeCredential:
                switch MakeCredentialResponseKey(rawValue: key) {
                case .fmt: return .equal
                case .authData: return authenticatorDataRule(inner, extensionsEqual: true)
                case .attStmt:  // alg and the certificate chain are the card's; sig is fresh
                    guard let first = inner.first else { return .shape }
                    return first == "alg" || first == "x5c" ? .equal : .shape
                default: return .shape
                }
            case .getAssertion, .getNextAssertion:
                switch GetAssertionResponseKey(rawValue: key) {
                case .credential: return descriptorRule(inner)
                case .authData: return authenticatorDataRule(inner, extensionsEqual: false)
                case .signature, .largeBlobKey: return .shape
                default: return .equal  // user, numberOfCredentials, userSelected
                }
            case .clientPIN:
                switch ClientPINResponseKey(rawValue: key) {
                case .keyAgreement, .pinUvAuthToken: return .shape  // fresh
                default: return .equal
                }
            case .credentialManagement:
                switch CredentialManagementResponseKey(rawValue: key) {
                case .credentialID: return descriptorRule(inner)
                case .publicKey, .largeBlobKey: return .shape
                default: return .equal
                }
            default:
                return .equal
            }
        }
    }

    /// A stand-in's comparison of a host's request with the recorded one: everything equal
    /// except the fields a host chooses at random (see ``TranscriptStandIn``).
    static func standInRequest(command: CTAPCommand?) -> (FieldPath) -> FieldRule {
        byMember { key, inner in
            switch command {
            case .makeCredential where key == MakeCredentialKey.clientDataHash.rawValue,
                 .getAssertion where key == GetAssertionKey.clientDataHash.rawValue:
                return .sameTypeAndLength
            case .getAssertion where key == GetAssertionKey.extensions.rawValue:
                guard let name = inner.first else { return .shape }
                guard name == ExtensionIdentifier.hmacSecret.rawValue else { return .equal }
                guard inner.count > 1 else { return .shape }
                switch Int(inner[1]).flatMap(HMACSecretInputKey.init(rawValue:)) {
                case .keyAgreement: return .coseKey
                case .saltEnc, .saltAuth: return .sameTypeAndLength
                default: return .equal  // pinUvAuthProtocol
                }
            case .clientPIN where key == ClientPINKey.keyAgreement.rawValue:
                return .coseKey
            case .clientPIN where key == ClientPINKey.newPinEnc.rawValue || key == ClientPINKey.pinHashEnc.rawValue:
                return .sameTypeAndLength
            default:
                // Every command's pinUvAuthParam (makeCredential's and getAssertion's among them).
                if let command, key == command.pinUvAuthParamKey { return .sameTypeAndLength }
                return .equal
            }
        }
    }

    /// Whether `path` is the authData member of a makeCredential / getAssertion response.
    private static func isAuthenticatorData(command: CTAPCommand?, path: FieldPath) -> Bool {
        guard path.segments.count == 1, path.root == "response", let key = path.topLevelKey else { return false }
        switch command {
        case .makeCredential: return key == MakeCredentialResponseKey.authData.rawValue
        case .getAssertion, .getNextAssertion: return key == GetAssertionResponseKey.authData.rawValue
        default: return false
        }
    }

    /// A rule that decides by the top-level member's key and the names below it; the message
    /// itself (no member) only needs the same shape.
    private static func byMember(_ decide: @escaping (_ key: Int, _ inner: [String]) -> FieldRule) -> (FieldPath) -> FieldRule {
        { path in
            guard let key = path.topLevelKey else { return .shape }
            return decide(key, path.innerNames)
        }
    }

    /// A credential descriptor the card answers: its ID is the card's, the rest constant.
    private static func descriptorRule(_ inner: [String]) -> FieldRule {
        guard let first = inner.first else { return .shape }
        return first == "id" ? .credentialID : .equal
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
            guard inner.count > 1, let label = Int(inner[1]) else { return .shape }
            return [COSEKeyLabel.keyType, COSEKeyLabel.algorithm, COSEKeyLabel.curve].contains(label) ? .equal : .shape
        case "extensions":
            return extensionsEqual ? .equal : .shape
        default:
            return .equal
        }
    }

    /// The spec's names for the top-level keys of `command`'s request or response.
    static func fieldNames(command: CTAPCommand?, isRequest: Bool) -> (Int) -> String? {
        { key in command.flatMap { isRequest ? $0.requestMemberName(key) : $0.responseMemberName(key) } }
    }
}
