import CBOR
import CardCrypto
import FIDOWire

/// authenticatorLargeBlobs' parameters (CTAP 2.1 §6.10.2), read and type-checked.
struct LargeBlobsRequest: Sendable, Equatable {
    /// How many bytes to read.
    var get: UInt64?
    /// A fragment to write.
    var set: [UInt8]?
    /// Where the read or write starts; absent is INVALID_PARAMETER (§6.10.2 step 1), so it is
    /// checked by the command, not here.
    var offset: UInt64?
    /// The whole array's length, with the first fragment.
    var length: UInt64?
    var pinUvAuthParam: [UInt8]?
    var pinUvAuthProtocol: UInt64?
}

extension LargeBlobsRequest: CTAPMessage {
    /// Reads the request body (the CBOR after the command byte), members in any order.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var get = Member<UInt64>.absent
        var set = Member<[UInt8]>.absent
        var offset = Member<UInt64>.absent
        var length = Member<UInt64>.absent
        var pinUvAuthParam = Member<[UInt8]>.absent
        var pinUvAuthProtocol = Member<UInt64>.absent
        while let key: LargeBlobsKey = try members.next(&reader) {
            switch key {
            case .get: get = try reader.unsigned()
            case .set: set = try reader.byteString()
            case .offset: offset = try reader.unsigned()
            case .length: length = try reader.unsigned()
            case .pinUvAuthParam: pinUvAuthParam = try reader.byteString()
            case .pinUvAuthProtocol: pinUvAuthProtocol = try reader.unsigned()
            }
        }
        return Result { () throws(CTAPStatus) in
            LargeBlobsRequest(get: try get.optional(), set: try set.optional(), offset: try offset.optional(),
                              length: try length.optional(), pinUvAuthParam: try pinUvAuthParam.optional(),
                              pinUvAuthProtocol: try pinUvAuthProtocol.optional())
        }
    }

    /// The request body: the inverse of ``read(from:)``.
    func write(to writer: inout CBORWriter) {
        var map = writer.openMap()
        writer.member(LargeBlobsKey.get, unsigned: get, of: &map)
        writer.member(LargeBlobsKey.set, bytes: set, of: &map)
        writer.member(LargeBlobsKey.offset, unsigned: offset, of: &map)
        writer.member(LargeBlobsKey.length, unsigned: length, of: &map)
        writer.member(LargeBlobsKey.pinUvAuthParam, bytes: pinUvAuthParam, of: &map)
        writer.member(LargeBlobsKey.pinUvAuthProtocol, unsigned: pinUvAuthProtocol, of: &map)
        writer.close(map)
    }
}

extension LargeBlobsRequest {
    /// What pinUvAuthParam authenticates for a write: 32×0xff ‖ 0x0c 0x00 ‖ uint32LE(offset) ‖
    /// SHA-256(set) (CTAP 2.1 §6.10.2).
    func authenticatedMessage(fragment: [UInt8]) -> [UInt8] {
        let offset = UInt32(truncatingIfNeeded: self.offset ?? 0)
        return [UInt8](repeating: 0xFF, count: 32) + [CTAPCommand.largeBlobs.rawValue, 0x00]
            + [UInt8(offset & 0xFF), UInt8(offset >> 8 & 0xFF), UInt8(offset >> 16 & 0xFF), UInt8(offset >> 24)]
            + SHA256.hash(fragment)
    }
}

/// authenticatorLargeBlobs' answer to a read: the bytes asked for.
struct LargeBlobsResponse: Sendable, Equatable {
    var config: [UInt8]
}

extension LargeBlobsResponse: CTAPMessage {
    /// Reads a response body (the CBOR after the status byte): the inverse of ``write(to:)``.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var config = Member<[UInt8]>.absent
        while let key: LargeBlobsResponseKey = try members.next(&reader) {
            switch key {
            case .config: config = try reader.byteString()
            }
        }
        return Result { () throws(CTAPStatus) in LargeBlobsResponse(config: try config.required()) }
    }

    func write(to writer: inout CBORWriter) {
        var map = writer.openMap()
        writer.member(LargeBlobsResponseKey.config, bytes: config, of: &map)
        writer.close(map)
    }
}
