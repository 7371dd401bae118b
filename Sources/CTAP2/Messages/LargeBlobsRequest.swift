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

extension LargeBlobsRequest: CTAPMessage, DeclaredMembers {
    static let members = MessageMembers<Self, LargeBlobsKey>([
        .optional(.get, \.get, .unsigned), .optional(.set, \.set, .bytes), .optional(.offset, \.offset, .unsigned),
        .optional(.length, \.length, .unsigned), .optional(.pinUvAuthParam, \.pinUvAuthParam, .bytes),
        .optional(.pinUvAuthProtocol, \.pinUvAuthProtocol, .unsigned),
    ])
    static let initial = LargeBlobsRequest()
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

extension LargeBlobsResponse: CTAPMessage, DeclaredMembers {
    static let members = MessageMembers<Self, LargeBlobsResponseKey>([.required(.config, \.config, .bytes)])
    static let initial = LargeBlobsResponse(config: [])
}
