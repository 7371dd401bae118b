import CBOR
import FIDOWire

/// The map keys of a command that takes a subcommand: authenticatorCredentialManagement and
/// authenticatorConfig number them alike (CTAP 2.1 §6.8, §6.11).
protocol SubcommandRequestKey: MemberKey, RawRepresentable, Equatable where RawValue == Int {
    static var subCommand: Self { get }
    static var subCommandParams: Self { get }
    static var pinUvAuthProtocol: Self { get }
    static var pinUvAuthParam: Self { get }
}

extension CredentialManagementKey: SubcommandRequestKey {}
extension ConfigKey: SubcommandRequestKey {}

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

extension SubcommandRequest: CTAPMessage {
    /// Reads the request body (the CBOR after the command byte), members in any order.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var subCommand = Member<UInt64>.absent
        var subCommandParams = Member<ArraySlice<UInt8>>.absent
        var pinUvAuthProtocol = Member<UInt64>.absent
        var pinUvAuthParam = Member<[UInt8]>.absent
        while let key: Key = try members.next(&reader) {
            switch key {
            case .subCommand: subCommand = try reader.unsigned()
            case .subCommandParams: subCommandParams = try reader.asSent()
            case .pinUvAuthProtocol: pinUvAuthProtocol = try reader.unsigned()
            case .pinUvAuthParam: pinUvAuthParam = try reader.byteString()
            default: _ = try reader.skipItem()
            }
        }
        return Result { () throws(CTAPStatus) in
            let subCommand = try subCommand.required()
            let parameters = try subCommandParams.optional().map(Array.init)
            return SubcommandRequest(subCommand: subCommand, subCommandParams: parameters,
                                     pinUvAuthProtocol: try pinUvAuthProtocol.optional(), pinUvAuthParam: try pinUvAuthParam.optional())
        }
    }

    /// The request body: the inverse of ``read(from:)``.
    func write(to writer: inout CBORWriter) {
        var map = writer.openMap()
        writer.member(Key.subCommand, unsigned: subCommand, of: &map)
        writer.member(Key.subCommandParams, encoded: subCommandParams, of: &map)
        writer.member(Key.pinUvAuthProtocol, unsigned: pinUvAuthProtocol, of: &map)
        writer.member(Key.pinUvAuthParam, bytes: pinUvAuthParam, of: &map)
        writer.close(map)
    }
}
