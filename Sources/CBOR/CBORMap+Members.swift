//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

/// Maps whose keys are named members: CTAP's integer-keyed parameter maps, whose keys a caller
/// names with an `Int`-backed enum (`GetInfoKey.versions`), and WebAuthn's text-keyed structures.
extension CBORMap {
    /// A map of the members that are present, in the order given: a `nil` value is left out.
    public init<Member: RawRepresentable>(_ members: KeyValuePairs<Member, CBORValue?>) where Member.RawValue == Int {
        self.init(members.compactMap { member, value in value.map { (key: CBORValue.int(member.rawValue), value: $0) } })
    }

    /// A text-keyed map of the members that are present, in the order given: a `nil` value is
    /// left out.
    public init(_ members: KeyValuePairs<String, CBORValue?>) {
        self.init(members.compactMap { name, value in value.map { (key: CBORValue.text(name), value: $0) } })
    }

    /// Accesses the value stored for the integer key `member` names (see ``subscript(int:)``).
    public subscript<Member: RawRepresentable>(member: Member) -> CBORValue? where Member.RawValue == Int {
        get { self[int: member.rawValue] }
        set { self[int: member.rawValue] = newValue }
    }
}
