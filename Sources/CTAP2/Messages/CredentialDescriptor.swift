import CBOR
import FIDOWire

/// A `PublicKeyCredentialDescriptor` (WebAuthn §5.10.3) as allow and exclude lists carry it.
struct CredentialDescriptor: Sendable, Equatable {
    /// `public-key` for every credential this card knows; other types are skipped, not refused.
    var type = CredentialDescriptor.publicKey
    /// The credential ID.
    var id: [UInt8]
    /// The transports hint, passed through untouched.
    var transports: [CBORValue]? = nil
}

/// The descriptor's member names.
enum DescriptorMember: String, MemberKey {
    case id, type, transports

    /// Every allow-list entry has two names: they are matched on the bytes the card writes.
    static func readWritten(from reader: inout CBORReader) -> DescriptorMember? {
        if reader.skip(encoded: idKey) { return .id }
        if reader.skip(encoded: typeKey) { return .type }
        return nil
    }

    var bit: UInt64? {
        switch self {
        case .id: 1
        case .type: 2
        case .transports: 4
        }
    }

    /// The name written from its encoding, kept: every assertion's answer has two.
    func write(to writer: inout CBORWriter, of map: inout CBORWriter.OpenMap) {
        switch self {
        case .id: writer.key(encoded: Self.idKey, of: &map)
        case .type: writer.key(encoded: Self.typeKey, of: &map)
        case .transports: writer.key(encoded: Self.transportsKey, of: &map)
        }
    }

    private static let idKey: [UInt8] = [0x62] + Array("id".utf8)
    private static let typeKey: [UInt8] = [0x64] + Array("type".utf8)
    private static let transportsKey: [UInt8] = [0x6A] + Array("transports".utf8)
}

extension CredentialDescriptor: CTAPMessage, DeclaredMembers {
    /// The one type this card knows, and its encoding.
    static let publicKey = "public-key"
    private static let encodedPublicKey: [UInt8] = [0x6A] + Array(publicKey.utf8)

    /// `type` and `id` are required (in that order), `transports` must be an array (of
    /// anything). Written `{"id": …, "type": …}` (and `transports` when set), as the card answers.
    static let members = MessageMembers<Self, DescriptorMember>([
        .required(.type, \.type, .text(usually: publicKey, encoded: encodedPublicKey)),
        .required(.id, \.id, .bytes),
        .optional(.transports, \.transports, .array(of: .any)),
    ])
    static let initial = CredentialDescriptor(id: [])
}
