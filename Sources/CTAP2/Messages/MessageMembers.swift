import CBOR
import FIDOWire

/// A message's members, each declared once — its key, the property it fills, how its value is
/// coded, whether the message needs it — and what the declaration drives: the message's reading
/// (``read(from:initial:including:)``), its writing (``write(_:to:)``) and, for a request, the
/// positional judge's description of it (``RequestShape``). swift-asn1's sequence helpers did
/// the same for DER; here the members of a CBOR map come in any order.
///
/// The declaration's order is the order the message judges its members in (CTAP 2.1's default
/// judging order, see ``CTAPParseable``): after the map is read, the first member in that order
/// that is of the wrong type, or needed and absent, is the answer. Members judged later
/// (``MemberRule/judgedLater``) are judged after every other, in the same order. Writing takes
/// the members in CTAP2 canonical key order, whatever the declaration's.
///
/// Built once per message (a `static let`): a reading walks ``MemberMap`` as a hand-written
/// reader would, finds each key's rule and keeps the outcome in a few bits, allocating nothing.
struct MessageMembers<Message, Key: MemberKey>: Sendable {
    /// The rules in declaration (judging) order.
    let rules: [MemberRule<Message, Key>]
    /// Each rule's key, for finding the rule of a key read.
    private let keys: [Key]
    /// The rules' indices in canonical key order, for writing.
    private let canonicalOrder: [Int]
    /// A bit per rule whose member the message needs.
    private let requiredMask: UInt64
    /// A bit per rule whose member's content is judged later.
    private let laterMask: UInt64

    init(_ rules: [MemberRule<Message, Key>]) {
        precondition(rules.count <= 64, "a message of more than 64 members")
        self.rules = rules
        keys = rules.map(\.key)
        precondition(Set(keys).count == keys.count, "a member declared twice")
        requiredMask = Self.mask(rules, \.isRequired)
        laterMask = Self.mask(rules, \.judgedLater)
        let encodedKeys = rules.map { rule in
            var writer = CBORWriter()
            var map = writer.openMap()
            rule.key.write(to: &writer, of: &map)
            return writer.bytes.dropFirst()
        }
        // CTAP 2.1 §8: shorter keys first, then bytewise.
        canonicalOrder = rules.indices.sorted { left, right in
            let (a, b) = (encodedKeys[left], encodedKeys[right])
            return a.count != b.count ? a.count < b.count : a.lexicographicallyPrecedes(b)
        }
    }

    /// A bit per rule of which `flag` holds.
    private static func mask(_ rules: [MemberRule<Message, Key>], _ flag: (MemberRule<Message, Key>) -> Bool) -> UInt64 {
        rules.indices.reduce(0) { mask, index in flag(rules[index]) ? mask | 1 << UInt64(index) : mask }
    }

    /// Reads the message's map into `initial` (the message with every member at its default):
    /// members in any order, unknown ones (and those `including` leaves out) skipped, each key
    /// once; then judged in declaration order.
    func read(from reader: inout CBORReader, initial: Message,
              including: (Key) -> Bool = { _ in true }) throws(CBORError) -> Result<Message, CTAPStatus> {
        guard var map = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var message = initial
        var verdict = MemberVerdict()
        while let key: Key = try map.next(&reader) {
            guard let index = keys.firstIndex(of: key), including(key) else {
                _ = try reader.skipItem()
                continue
            }
            try readMember(index, from: &reader, into: &message, verdict: &verdict)
        }
        if let status = verdict.status(missing: requiredMask & ~verdict.present) { return .failure(status) }
        return .success(message)
    }

    /// Reads the members of a map read already, each key with its value as sent, in the order
    /// sent (``ExtensionsMap/values``), into `initial`, as ``read(from:initial:including:)``
    /// reads a map's: those `including` leaves out not read, then judged in declaration order.
    /// The map is not read again: only the values read.
    func read(_ members: some Sequence<(key: Key, value: ArraySlice<UInt8>)>, initial: Message,
              including: (Key) -> Bool) throws(CBORError) -> Result<Message, CTAPStatus> {
        var message = initial
        var verdict = MemberVerdict()
        for (key, value) in members {
            guard let index = keys.firstIndex(of: key), including(key) else { continue }
            var reader = CBORReader(value)
            try readMember(index, from: &reader, into: &message, verdict: &verdict)
        }
        if let status = verdict.status(missing: requiredMask & ~verdict.present) { return .failure(status) }
        return .success(message)
    }

    /// Reads the value of the member at `index` in ``rules`` (`reader` at the value) into
    /// `message`, and notes it present and its fault, if any, in `verdict`.
    @inline(__always)
    private func readMember(_ index: Int, from reader: inout CBORReader, into message: inout Message,
                            verdict: inout MemberVerdict) throws(CBORError) {
        let bit: UInt64 = 1 << UInt64(index)
        verdict.present |= bit
        // A member judged later: of its kind, its fault is its content's, judged after the others.
        let later = laterMask & bit != 0 && reader.rest.first.map(rules[index].kind.admits) == true
        if let status = try rules[index].read(&reader, &message) { verdict.record(status, order: later ? 64 + index : index) }
    }

    /// Writes `message`'s map: each member it has, in canonical key order.
    func write(_ message: Message, to writer: inout CBORWriter) {
        var map = writer.openMap()
        for index in canonicalOrder { rules[index].write(&writer, &map, message) }
        writer.close(map)
    }
}

/// One member of a message: its key and kind, whether it is needed, and how it is read into the
/// message and written from it. Made by ``required(_:_:_:judgedLater:)``, ``optional(_:_:_:)``,
/// ``defaulted(_:_:_:omitted:)`` or ``kept(_:_:_:)``.
///
/// Sendable as unchecked: its closures are functions of their arguments alone, built once.
struct MemberRule<Message, Key: MemberKey>: @unchecked Sendable {
    let key: Key
    /// The CBOR kind of the member's value (what the positional judge checks on sight).
    let kind: MemberShape.Kind
    /// Whether the message needs the member: absent is CTAP2_ERR_MISSING_PARAMETER.
    let isRequired: Bool
    /// Whether the member's content (not its kind) is judged after the message's other members:
    /// makeCredential's entities and parameter list, which a tree's reading judged last.
    let judgedLater: Bool
    /// Reads the value into the message: the status for a value the message does not take, or nil.
    let read: (inout CBORReader, inout Message) throws(CBORError) -> CTAPStatus?
    /// Writes the key and value, when the message has the member.
    let write: (inout CBORWriter, inout CBORWriter.OpenMap, Message) -> Void

    /// A member the message needs, always written.
    static func required<Value>(_ key: Key, _ path: WritableKeyPath<Message, Value>, _ coding: MemberCoding<Value>,
                                judgedLater: Bool = false) -> Self {
        let field = MemberField(path)
        return Self(key: key, kind: coding.kind, isRequired: true, judgedLater: judgedLater,
                    read: { reader, message throws(CBORError) in try field.read(coding, from: &reader, into: &message) { $0 } },
                    write: { writer, map, message in
                        key.write(to: &writer, of: &map)
                        coding.write(&writer, field.value(in: message))
                    })
    }

    /// A member the message may have: nil when absent, written when not nil.
    static func optional<Value>(_ key: Key, _ path: WritableKeyPath<Message, Value?>, _ coding: MemberCoding<Value>) -> Self {
        let field = MemberField(path)
        return Self(key: key, kind: coding.kind, isRequired: false, judgedLater: false,
                    read: { reader, message throws(CBORError) in try field.read(coding, from: &reader, into: &message) { $0 } },
                    write: { writer, map, message in
                        guard let value = field.value(in: message) else { return }
                        key.write(to: &writer, of: &map)
                        coding.write(&writer, value)
                    })
    }

    /// A member whose absence is the message's default value (an empty list, false), written
    /// unless `omitted` says the value reads as absent.
    static func defaulted<Value>(_ key: Key, _ path: WritableKeyPath<Message, Value>, _ coding: MemberCoding<Value>,
                                 omitted: @escaping (Value) -> Bool = { _ in false }) -> Self {
        let field = MemberField(path)
        return Self(key: key, kind: coding.kind, isRequired: false, judgedLater: false,
                    read: { reader, message throws(CBORError) in try field.read(coding, from: &reader, into: &message) { $0 } },
                    write: { writer, map, message in
                        let value = field.value(in: message)
                        guard !omitted(value) else { return }
                        key.write(to: &writer, of: &map)
                        coding.write(&writer, value)
                    })
    }

    /// A member kept as read (absent, present or invalid), for its reader's reader to judge:
    /// its fault is not the message's.
    static func kept<Value>(_ key: Key, _ path: WritableKeyPath<Message, Member<Value>>, _ coding: MemberCoding<Value>) -> Self {
        let field = MemberField(path)
        return Self(key: key, kind: coding.kind, isRequired: false, judgedLater: false,
                    read: { reader, message throws(CBORError) in
                        field.set(try coding.read(&reader), in: &message)
                        return nil
                    },
                    write: { writer, map, message in
                        guard case .present(let value) = field.value(in: message) else { return }
                        key.write(to: &writer, of: &map)
                        coding.write(&writer, value)
                    })
    }
}

/// The stored property a member fills, by its offset in the message. A key path applied in a
/// rule is projected by the runtime's generic code, which looked up type metadata at every use
/// (more than the rest of a getAssertion's reading); the offset is a typed load or store.
struct MemberField<Message, Value> {
    let offset: Int

    init(_ path: WritableKeyPath<Message, Value>) {
        guard let offset = MemoryLayout<Message>.offset(of: path) else { preconditionFailure("a member that is not a stored property") }
        self.offset = offset
    }

    func value(in message: Message) -> Value {
        withUnsafeBytes(of: message) { bytes in (bytes.baseAddress! + offset).assumingMemoryBound(to: Value.self).pointee }
    }

    func set(_ value: Value, in message: inout Message) {
        withUnsafeMutableBytes(of: &message) { bytes in (bytes.baseAddress! + offset).assumingMemoryBound(to: Value.self).pointee = value }
    }
}

extension MemberField {
    /// Reads the member with `coding` into the message, as `value` makes it (an optional
    /// property's value from the one read), left as it was when the coding reads none: the
    /// status of a value the message does not take, or nil.
    func read<Read>(_ coding: MemberCoding<Read>, from reader: inout CBORReader, into message: inout Message,
                    as value: (Read) -> Value) throws(CBORError) -> CTAPStatus? {
        switch try coding.read(&reader) {
        case .absent: return nil
        case .present(let read):
            set(value(read), in: &message)
            return nil
        case .invalid(let status): return status
        }
    }
}

/// What a reading found so far: the members present, and the first fault in judging order.
/// Not generic, and holding no references: it costs a reading nothing to keep.
struct MemberVerdict {
    /// A bit per rule whose member was read.
    var present: UInt64 = 0
    /// The judging position of ``fault`` (a rule's index, plus 64 for a content judged later).
    private var faultOrder = Int.max
    private var fault = CTAPStatus.invalidCBOR

    mutating func record(_ status: CTAPStatus, order: Int) {
        guard order < faultOrder else { return }
        faultOrder = order
        fault = status
    }

    /// The answer for a message with the needed members `missing` (a bit per rule): the first in
    /// judging order of a missing member and the faults recorded; nil when there is none.
    func status(missing: UInt64) -> CTAPStatus? {
        if missing != 0 && missing.trailingZeroBitCount < faultOrder { return .missingParameter }
        return faultOrder == Int.max ? nil : fault
    }
}
