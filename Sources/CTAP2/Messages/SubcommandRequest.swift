import CBOR
import FIDOWire

/// The map keys of a command that takes a subcommand: authenticatorCredentialManagement and
/// authenticatorConfig number them alike (CTAP 2.1 §6.8, §6.11).
protocol SubcommandRequestKey: MemberKey, RawRepresentable where RawValue == Int {
    static var subCommand: Self { get }
    static var subCommandParams: Self { get }
    static var pinUvAuthProtocol: Self { get }
    static var pinUvAuthParam: Self { get }
}

extension CredentialManagementKey: SubcommandRequestKey {}
extension ConfigKey: SubcommandRequestKey {}

/// A subcommand request's parameters, read and type-checked: the subcommand number, its
/// parameters (also as the bytes received, which the pinUvAuthParam covers), and the PIN/UV auth
/// members.
struct SubcommandRequest<Key: SubcommandRequestKey>: Sendable, Equatable {
    /// The subCommand number as sent.
    var subCommand: UInt64
    var subCommandParams: CBORMap?
    /// subCommandParams as sent (nil for a request built in memory: then it is encoded).
    var subCommandParamsBytes: [UInt8]? = nil
    var pinUvAuthProtocol: UInt64?
    var pinUvAuthParam: [UInt8]?
}

extension SubcommandRequest {
    /// Reads the request body (the CBOR after the command byte).
    init(decoding body: ArraySlice<UInt8>) throws(CTAPStatus) {
        let request = try RequestMap<Key>(decoding: body)
        subCommand = try request.requiredUnsigned(.subCommand)
        subCommandParams = try request.map(.subCommandParams)
        subCommandParamsBytes = request.encodedMember(.subCommandParams)
        pinUvAuthProtocol = try request.unsigned(.pinUvAuthProtocol)
        pinUvAuthParam = try request.bytes(.pinUvAuthParam)
    }

    /// `prefix` ‖ subCommand ‖ subCommandParams as received: what the pinUvAuthParam covers.
    /// Not re-encoded, which would differ for a platform that encodes non-canonically.
    func authenticatedMessage(after prefix: [UInt8]) -> [UInt8] {
        var message = prefix + [UInt8(truncatingIfNeeded: subCommand)]
        if let bytes = subCommandParamsBytes ?? subCommandParams.map({ CBOREncoder.encode(.map($0)) }) {
            message += bytes
        }
        return message
    }

}

extension SubcommandRequest: CTAPSerializable {
    /// The request body: the inverse of ``init(decoding:)``.
    func write(to writer: inout CBORWriter) {
        var map = writer.openMap()
        writer.member(Key.subCommand, unsigned: subCommand, of: &map)
        writer.member(Key.subCommandParams, encoded: subCommandParamsBytes ?? subCommandParams.map { CBOREncoder.encode(.map($0)) },
                      of: &map)
        writer.member(Key.pinUvAuthProtocol, unsigned: pinUvAuthProtocol, of: &map)
        writer.member(Key.pinUvAuthParam, bytes: pinUvAuthParam, of: &map)
        writer.close(map)
    }
}
