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
    /// each judged whole (rp.id, user.id, every algorithm entry) before the next is looked at;
    /// enterpriseAttestation an unsigned number.
    static func makeCredential(_ profile: CardProfile) -> RequestShape {
        let algorithms = profile.algorithms
        return RequestShape(MakeCredentialRequest.members, minimumCount: 4, judging: [
            .clientDataHash: .content(hash(orElse: .cborUnexpectedType)),
            .rp: .content(entity(id: .text)),
            .user: .content(entity(id: .bytes, longestID: 64)),
            .pubKeyCredParams: .content { parameters(in: $0, supported: algorithms) },
            .extensions: .content(textKeys),
            .options: .content(options),
            .pinUvAuthProtocol: .pinUvAuthProtocol(),
            .enterpriseAttestation: MemberJudging(kind: .unsigned),
        ])
    }

    /// getAssertion (CTAP 2.1 §6.2.1): rpId and clientDataHash first; the allowList's entries
    /// judged only after the members that follow it.
    static let getAssertion = RequestShape(GetAssertionRequest.members, minimumCount: 2, judging: [
        .clientDataHash: MemberJudging(wrongKind: .invalidParameter, content: hash(orElse: .invalidParameter)),
        .allowList: MemberJudging(deferred: true, content: descriptors),
        .extensions: .content(textKeys),
        .options: .content(options),
        .pinUvAuthProtocol: .pinUvAuthProtocol(),
    ], minimumBytesAfterHead: 32)

    /// clientPIN (CTAP 2.1 §6.5.4): subCommand, of another kind INVALID_SUBCOMMAND; on a card
    /// that demands pinUvAuthProtocol of every subcommand (departures.pinRetriesNeedProtocol) the
    /// two come first. The subcommand's own members are its to judge (their kinds after the PIN
    /// state, with departures.pinStateBeforeMembers): here only their order, of any kind.
    static func clientPIN(_ profile: CardProfile) -> RequestShape {
        let leading: [ClientPINKey] = profile.departures.pinRetriesNeedProtocol ? [.pinUvAuthProtocol, .subCommand] : []
        return RequestShape(ClientPINRequest.members, minimumCount: max(leading.count, 1), required: leading, judging: [
            .pinUvAuthProtocol: .pinUvAuthProtocol(),
            .subCommand: MemberJudging(wrongKind: .invalidSubcommand),
        ], others: MemberJudging(kind: .any))
    }

    /// credentialManagement (CTAP 2.1 §6.8): subCommand first, a one-byte number (a larger one
    /// CBOR_UNEXPECTED_TYPE).
    static let credentialManagement = RequestShape(CredentialManagementRequest.members, minimumCount: 1, judging: [
        .subCommand: .content { $0.uint64Value.map { $0 < 24 } == true ? nil : .cborUnexpectedType },
        .pinUvAuthProtocol: .pinUvAuthProtocol(),
    ])

    /// authenticatorConfig (CTAP 2.1 §6.11): subCommand first (of another kind: as a subcommand
    /// the card does not offer), the rest in any order; an unknown member INVALID_PARAMETER.
    static func config(_ profile: CardProfile) -> RequestShape {
        let unoffered: CTAPStatus = profile.behaviour.configUnknownSubcommand == .invalidParameter ? .invalidParameter : .invalidSubcommand
        return RequestShape(ConfigRequest.members, minimumCount: 1, judging: [
            .subCommand: MemberJudging(wrongKind: unoffered), .pinUvAuthProtocol: .pinUvAuthProtocol(),
        ], ascending: false, unknownMember: .invalidParameter)
    }

    /// authenticatorLargeBlobs (CTAP 2.1 §6.10.1): every member optional, in any order; a member
    /// of another kind or unknown is INVALID_PARAMETER.
    static let largeBlobs = RequestShape(LargeBlobsRequest.members, minimumCount: 0, judging: [
        .pinUvAuthProtocol: .pinUvAuthProtocol(wrongKind: .invalidParameter),
    ], others: MemberJudging(wrongKind: .invalidParameter), ascending: false, unknownMember: .invalidParameter)
}

/// How the positional judge takes one member beyond the kind its message declares (a
/// ``RequestShape`` built from a ``MessageMembers``): another kind, the code for a value of the
/// wrong kind, and what of its content is judged.
struct MemberJudging {
    /// The kind judged, when not the declared one.
    var kind: MemberShape.Kind? = nil
    var wrongKind: CTAPStatus = .cborUnexpectedType
    var deferred = false
    var isProtocol = false
    var content: (@Sendable (CBORValue) -> CTAPStatus?)? = nil

    /// A member whose content `content` judges on sight.
    static func content(_ content: @escaping @Sendable (CBORValue) -> CTAPStatus?) -> MemberJudging {
        MemberJudging(content: content)
    }

    /// pinUvAuthProtocol (judged on sight with behaviour.pinUvAuthProtocolCheck).
    static func pinUvAuthProtocol(wrongKind: CTAPStatus = .cborUnexpectedType) -> MemberJudging {
        MemberJudging(wrongKind: wrongKind, isProtocol: true)
    }
}

extension RequestShape {
    /// The shape of a request whose members `members` declares: `required` (by default the
    /// members the message needs) first in ascending key order, the others optional; each of its
    /// declared kind, as `judging` (or, for a member it does not name, `others`) says.
    init<Message, Key: MemberKey & RawRepresentable<Int>>(
        _ members: MessageMembers<Message, Key>, minimumCount: Int, required: [Key]? = nil, judging: [Key: MemberJudging],
        others: MemberJudging = MemberJudging(), ascending: Bool = true, unknownMember: CTAPStatus? = nil,
        minimumBytesAfterHead: Int = 0
    ) {
        let rules = members.rules.sorted { $0.key.rawValue < $1.key.rawValue }
        let leading = required ?? rules.filter(\.isRequired).map(\.key)
        func shape(_ rule: MemberRule<Message, Key>) -> MemberShape {
            let judged = judging[rule.key] ?? others
            var member = MemberShape(rule.key.rawValue, judged.kind ?? rule.kind, wrongKind: judged.wrongKind, deferred: judged.deferred,
                                     content: judged.content)
            member.isProtocol = judged.isProtocol
            return member
        }
        self.init(minimumCount: minimumCount, required: rules.filter { leading.contains($0.key) }.map(shape),
                  optional: rules.filter { !leading.contains($0.key) }.map(shape), ascending: ascending, unknownMember: unknownMember,
                  minimumBytesAfterHead: minimumBytesAfterHead)
    }
}
