import CBOR
import CardCrypto
import FIDOWire

extension Authenticator {
    /// The largest fragment a large-blob read or write carries: maxMsgSize − 64 (CTAP 2.1 §6.10).
    var maxLargeBlobFragment: Int { profile.maxMsgSize - 64 }

    /// authenticatorLargeBlobs (CTAP 2.1 §6.10.2): reading slices of the serialized large-blob
    /// array, or writing a new one in fragments; the array is checked against its checksum when
    /// the last fragment arrives, and only then made durable.
    mutating func largeBlobs(_ request: LargeBlobsRequest, changes: inout [CardMutation]) throws(CTAPStatus) -> LargeBlobsResponse? {
        switch (request.get, request.set) {
        case (let count?, nil):
            guard request.length == nil else { throw .invalidParameter }
            guard count <= UInt64(maxLargeBlobFragment) else { throw .invalidLength }
            let array = state.largeBlobArray
            guard request.offset <= UInt64(array.count) else { throw .invalidParameter }
            let start = Int(request.offset)
            return LargeBlobsResponse(config: Array(array[start..<min(array.count, start + Int(count))]))
        case (nil, let fragment?):
            try writeLargeBlob(fragment, request, changes: &changes)
            return nil
        default:
            throw .invalidParameter
        }
    }

    private mutating func writeLargeBlob(_ fragment: [UInt8], _ request: LargeBlobsRequest,
                                         changes: inout [CardMutation]) throws(CTAPStatus) {
        guard fragment.count <= maxLargeBlobFragment else { throw .invalidLength }
        var write = session.largeBlobWrite
        if request.offset == 0 {
            guard let length = request.length else { throw .invalidParameter }
            guard length <= UInt64(profile.maxSerializedLargeBlobArray) else { throw .largeBlobStorageFull }
            guard length >= 17 else { throw .invalidParameter }
            write = LargeBlobWrite(expectedLength: Int(length), bytes: [])
        } else if request.length != nil {
            throw .invalidParameter
        }
        guard var write, request.offset == UInt64(write.bytes.count) else { throw .invalidSequence }
        if isProtectedByUserVerification || alwaysUvEnabled {
            guard let pinUvAuthParam = request.pinUvAuthParam else { throw .puatRequired }
            let pinProtocol = try self.pinProtocol(request.pinUvAuthProtocol)
            try verifyToken(pinUvAuthParam, message: request.authenticatedMessage(fragment: fragment), protocol: pinProtocol,
                            permission: .largeBlobWrite, rpId: nil)
        }
        guard write.bytes.count + fragment.count <= write.expectedLength else { throw .invalidParameter }
        write.bytes += fragment
        guard write.bytes.count == write.expectedLength else {
            session.largeBlobWrite = write
            return
        }
        session.largeBlobWrite = nil
        let array = write.bytes.dropLast(16)
        guard ConstantTime.equals(Array(SHA256.hash(Array(array)).prefix(16)), Array(write.bytes.suffix(16))) else {
            throw .integrityFailure
        }
        changes.append(.setLargeBlobArray(write.bytes))
    }
}
