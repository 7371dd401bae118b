import CBOR
import FIDOWire

extension RequestShape {
    /// The positional reading of `command`'s parameter map on a card of `profile`; nil for a
    /// command this judge does not read (one without parameters, or one the card lacks).
    static func positional(_ command: CTAPCommand, profile: CardProfile) -> RequestShape? {
        switch command {
        case .makeCredential: makeCredential(profile)
        case .getAssertion: getAssertion
        case .clientPIN: clientPIN(profile)
        case .credentialManagement where profile.credentialManagement,
             .credentialManagementPreview where profile.credentialManagementPreview: credentialManagement
        case .config where profile.authenticatorConfig: config(profile)
        case .largeBlobs where profile.largeBlobs: largeBlobs
        default: nil
        }
    }

    /// makeCredential (CTAP 2.1 §6.1.1): clientDataHash, rp, user and pubKeyCredParams first,
    /// each judged whole (rp.id, user.id, every algorithm entry) before the next is looked at.
    static func makeCredential(_ profile: CardProfile) -> RequestShape {
        typealias Key = MakeCredentialKey
        let algorithms = profile.algorithms
        return RequestShape(minimumCount: 4, required: [
            MemberShape(Key.clientDataHash, .bytes, content: hash(orElse: .cborUnexpectedType)),
            MemberShape(Key.rp, .map, content: entity(id: .text)),
            MemberShape(Key.user, .map, content: entity(id: .bytes, longestID: 64)),
            MemberShape(Key.pubKeyCredParams, .array, content: { parameters(in: $0, supported: algorithms) }),
        ], optional: [
            MemberShape(Key.excludeList, .array),
            MemberShape(Key.extensions, .map, content: textKeys),
            MemberShape(Key.options, .map, content: options),
            MemberShape(Key.pinUvAuthParam, .bytes),
            .pinUvAuthProtocol(Key.pinUvAuthProtocol.rawValue),
            MemberShape(Key.enterpriseAttestation, .unsigned),
        ], unknownMember: nil)
    }

    /// getAssertion (CTAP 2.1 §6.2.1): rpId and clientDataHash first; the allowList's entries
    /// judged only after the members that follow it.
    static let getAssertion: RequestShape = {
        typealias Key = GetAssertionKey
        return RequestShape(minimumCount: 2, required: [
            MemberShape(Key.rpId, .text),
            MemberShape(Key.clientDataHash, .bytes, wrongKind: .invalidParameter, content: hash(orElse: .invalidParameter)),
        ], optional: [
            MemberShape(Key.allowList, .array, deferred: true, content: descriptors),
            MemberShape(Key.extensions, .map, content: textKeys),
            MemberShape(Key.options, .map, content: options),
            MemberShape(Key.pinUvAuthParam, .bytes),
            .pinUvAuthProtocol(Key.pinUvAuthProtocol.rawValue),
        ], unknownMember: nil, minimumBytesAfterHead: 32)
    }()

    /// clientPIN (CTAP 2.1 §6.5.4): subCommand, of another kind INVALID_SUBCOMMAND; on a card
    /// that demands pinUvAuthProtocol of every subcommand (departures.pinRetriesNeedProtocol) the
    /// two come first. The subcommand's own members are its to judge (their kinds after the PIN
    /// state, with departures.pinStateBeforeMembers): here only their order.
    static func clientPIN(_ profile: CardProfile) -> RequestShape {
        typealias Key = ClientPINKey
        let leading: [MemberShape] = [.pinUvAuthProtocol(Key.pinUvAuthProtocol.rawValue),
                                      MemberShape(Key.subCommand, .unsigned, wrongKind: .invalidSubcommand)]
        let rest = [Key.keyAgreement, .pinUvAuthParam, .newPinEnc, .pinHashEnc, .permissions, .rpId].map { MemberShape($0, .any) }
        return profile.departures.pinRetriesNeedProtocol
            ? RequestShape(minimumCount: 2, required: leading, optional: rest, unknownMember: nil)
            : RequestShape(minimumCount: 1, required: [], optional: leading + rest, unknownMember: nil)
    }

    /// credentialManagement (CTAP 2.1 §6.8): subCommand first, a one-byte number (a larger one
    /// CBOR_UNEXPECTED_TYPE).
    static let credentialManagement: RequestShape = {
        typealias Key = CredentialManagementKey
        return RequestShape(minimumCount: 1, required: [
            MemberShape(Key.subCommand, .unsigned) { $0.uint64Value.map { $0 < 24 } == true ? nil : .cborUnexpectedType },
        ], optional: [
            MemberShape(Key.subCommandParams, .map), .pinUvAuthProtocol(Key.pinUvAuthProtocol.rawValue),
            MemberShape(Key.pinUvAuthParam, .bytes),
        ], unknownMember: nil)
    }()

    /// authenticatorConfig (CTAP 2.1 §6.11): subCommand first (of another kind: as a subcommand
    /// the card does not offer), the rest in any order; an unknown member INVALID_PARAMETER.
    static func config(_ profile: CardProfile) -> RequestShape {
        typealias Key = ConfigKey
        let unoffered: CTAPStatus = profile.behaviour.configUnknownSubcommand == .invalidParameter ? .invalidParameter : .invalidSubcommand
        return RequestShape(minimumCount: 1, required: [MemberShape(Key.subCommand, .unsigned, wrongKind: unoffered)], optional: [
            MemberShape(Key.subCommandParams, .map), .pinUvAuthProtocol(Key.pinUvAuthProtocol.rawValue),
            MemberShape(Key.pinUvAuthParam, .bytes),
        ], ascending: false, unknownMember: .invalidParameter)
    }

    /// authenticatorLargeBlobs (CTAP 2.1 §6.10.1): every member optional, in any order; a member
    /// of another kind or unknown is INVALID_PARAMETER.
    static let largeBlobs: RequestShape = {
        typealias Key = LargeBlobsKey
        return RequestShape(minimumCount: 0, required: [], optional: [
            MemberShape(Key.get, .unsigned, wrongKind: .invalidParameter), MemberShape(Key.set, .bytes, wrongKind: .invalidParameter),
            MemberShape(Key.offset, .unsigned, wrongKind: .invalidParameter), MemberShape(Key.length, .unsigned, wrongKind: .invalidParameter),
            MemberShape(Key.pinUvAuthParam, .bytes, wrongKind: .invalidParameter),
            .pinUvAuthProtocol(Key.pinUvAuthProtocol.rawValue, wrongKind: .invalidParameter),
        ], ascending: false, unknownMember: .invalidParameter)
    }()
}

extension MemberShape {
    /// A member named by a command's key enum.
    init<Key: RawRepresentable<Int>>(_ key: Key, _ kind: Kind, wrongKind: CTAPStatus = .cborUnexpectedType, deferred: Bool = false,
                                     content: (@Sendable (CBORValue) -> CTAPStatus?)? = nil) {
        self.init(key.rawValue, kind, wrongKind: wrongKind, deferred: deferred, content: content)
    }
}
