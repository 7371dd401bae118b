import CBOR
import FIDOWire

/// What the positional judge (``PositionalJudge``) knows of a command's parameter map: how many
/// members it must have, the required members (the lowest keys, first and in ascending order),
/// the optional ones, and for each its CBOR kind, the code a value of another kind gets and what
/// of its content is judged the moment it is read. A small description per command, written from
/// the command's definition (CTAP 2.1 §6.1–§6.11); the codes are the positional reading's
/// (Docs/Profiles.md, "Judging order").
struct RequestShape {
    /// Fewer members than this: CTAP2_ERR_MISSING_PARAMETER before any member is looked at.
    var minimumCount: Int
    /// The members that must come first, in this (ascending) order: any other key in their place,
    /// or none, is CTAP2_ERR_MISSING_PARAMETER.
    var required: [MemberShape]
    /// The members that may follow.
    var optional: [MemberShape]
    /// Whether the optional members must come in strictly ascending key order (a key not above
    /// the one before is CTAP2_ERR_INVALID_CBOR), else in any order, each once.
    var ascending = true
    /// The answer to a member the command does not know, or nil to skip it (CTAP 2.1 §8).
    var unknownMember: CTAPStatus?
    /// A body with fewer bytes after the map's head: CTAP2_ERR_INVALID_CBOR before any key is
    /// read (no room for the members a valid request has).
    var minimumBytesAfterHead = 0

    /// The member with `key`, required or optional.
    func member(_ key: Int) -> MemberShape? {
        required.first { $0.key == key } ?? optional.first { $0.key == key }
    }
}

/// One member of a ``RequestShape``.
struct MemberShape {
    /// The CBOR kinds a member's value may have.
    enum Kind {
        case bytes, text, unsigned, integer, bool, map, array, any

        /// Whether an item whose first byte is `initial` is of this kind (maps and arrays of
        /// definite length only).
        func admits(_ initial: UInt8) -> Bool {
            let major = initial >> 5
            let definite = initial & 0x1F < 28
            switch self {
            case .bytes: return major == 2
            case .text: return major == 3
            case .unsigned: return major == 0
            case .integer: return major == 0 || major == 1
            case .bool: return initial == 0xF4 || initial == 0xF5
            case .map: return major == 5 && definite
            case .array: return major == 4 && definite
            case .any: return true
            }
        }
    }

    let key: Int
    let kind: Kind
    /// The code for a value of another kind, or for no value at all (the body ended).
    var wrongKind: CTAPStatus = .cborUnexpectedType
    /// The content judged once the kind is right: the code for a value the card refuses, or nil.
    var content: (@Sendable (CBORValue) -> CTAPStatus?)?
    /// Whether the content is judged after every member was read rather than on sight
    /// (getAssertion's allowList).
    var deferred = false
    /// Whether this is pinUvAuthProtocol (judged on sight with behaviour.pinUvAuthProtocolCheck).
    var isProtocol = false

    init(_ key: Int, _ kind: Kind, wrongKind: CTAPStatus = .cborUnexpectedType, deferred: Bool = false,
         content: (@Sendable (CBORValue) -> CTAPStatus?)? = nil) {
        self.key = key
        self.kind = kind
        self.wrongKind = wrongKind
        self.deferred = deferred
        self.content = content
    }
}
