import CBOR
import FIDOWire

/// The map keys of a command that takes a subcommand: authenticatorCredentialManagement and
/// authenticatorConfig number them alike (CTAP 2.1 §6.8, §6.11).
protocol SubcommandRequestKey: MemberKey, RawRepresentable, Equatable where RawValue == Int {
    static var subCommand: Self { get }
    static var subCommandParams: Self { get }
    static var pinUvAuthProtocol: Self { get }
    static var pinUvAuthParam: Self { get }
    /// The request's members (``SubcommandRequest/declaration``), built once for each command.
    static var requestMembers: MessageMembers<SubcommandRequest<Self>, Self> { get }
}

extension CredentialManagementKey: SubcommandRequestKey {
    static let requestMembers = SubcommandRequest<Self>.declaration
}

extension ConfigKey: SubcommandRequestKey {
    static let requestMembers = SubcommandRequest<Self>.declaration
}

/// A subcommand request's parameters, read and type-checked: the subcommand number, its
/// parameters as the bytes received (which the pinUvAuthParam covers, and which each subcommand
/// reads for what it takes), and the PIN/UV auth members.
struct SubcommandRequest<Key: SubcommandRequestKey>: Sendable, Equatable {
    /// The subCommand number as sent.
    var subCommand: UInt64
    /// subCommandParams as sent: a map.
    var subCommandParams: [UInt8]?
    var pinUvAuthProtocol: UInt64?
    var pinUvAuthParam: [UInt8]?
}

extension SubcommandRequest {
    /// `prefix` ‖ subCommand ‖ subCommandParams as received: what the pinUvAuthParam covers.
    /// Not re-encoded, which would differ for a platform that encodes non-canonically.
    func authenticatedMessage(after prefix: [UInt8]) -> [UInt8] {
        prefix + [UInt8(truncatingIfNeeded: subCommand)] + (subCommandParams ?? [])
    }
}

extension SubcommandRequest: CTAPMessage, DeclaredMembers {
    static var members: MessageMembers<Self, Key> { Key.requestMembers }
    static var initial: Self { SubcommandRequest(subCommand: 0) }

    /// subCommand required; subCommandParams kept as sent.
    static var declaration: MessageMembers<Self, Key> {
        MessageMembers([
            .required(.subCommand, \.subCommand, .unsigned),
            .optional(.subCommandParams, \.subCommandParams, .mapAsSent),
            .optional(.pinUvAuthProtocol, \.pinUvAuthProtocol, .unsigned),
            .optional(.pinUvAuthParam, \.pinUvAuthParam, .bytes),
        ])
    }
}
