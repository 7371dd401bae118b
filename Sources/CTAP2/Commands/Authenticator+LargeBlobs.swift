import CBOR
import CardCrypto
import FIDOWire

extension Authenticator {
    /// A request arrived as an ISO 7816 command chain: on a card with the departure
    /// chainEndsLargeBlobWrite it ends a large-blob write in progress before it runs (the card
    /// kept the write's offset where the chain's state now is). Called by the card model.
    public mutating func requestArrivedChained() {
        if profile.departures.chainEndsLargeBlobWrite { session.largeBlobWrite = nil }
    }

    /// The largest fragment a large-blob read or write carries: maxMsgSize − 64 (CTAP 2.1 §6.10).
    var maxLargeBlobFragment: Int { profile.maxMsgSize - 64 }

    /// authenticatorLargeBlobs (CTAP 2.1 §6.10.2): reading slices of the serialized large-blob
    /// array, or writing a new one in fragments; the array is checked against its checksum when
    /// the last fragment arrives, and only then made durable.
    mutating func largeBlobs(_ request: LargeBlobsRequest, changes: inout [CardMutation]) throws(CTAPStatus) -> LargeBlobsResponse? {
        // Step 1: "If offset is not present in the input map, return CTAP1_ERR_INVALID_PARAMETER."
        guard let offset = request.offset else { throw .invalidParameter }
        switch (request.get, request.set) {
        case (let count?, nil):
            // Step 4: a read carries no length (4.a) and no PIN/UV auth: "If either of
            // pinUvAuthParam or pinUvAuthProtocol are present, return CTAP1_ERR_INVALID_PARAMETER." (4.b)
            guard request.length == nil else { throw .invalidParameter }
            guard request.pinUvAuthParam == nil, request.pinUvAuthProtocol == nil else { throw .invalidParameter }
            guard count <= UInt64(maxLargeBlobFragment) else { throw .invalidLength }
            let array = state.largeBlobArray
            guard offset <= UInt64(array.count) else { throw .invalidParameter }
            // Both are at most the array's length here, so neither conversion nor the sum can
            // overflow, whatever the request asked: offset + count is never computed.
            let start = Int(offset)
            let taken = Int(min(count, UInt64(array.count - start)))
            return LargeBlobsResponse(config: Array(array[start..<(start + taken)]))
        case (nil, let fragment?):
            try writeLargeBlob(fragment, at: offset, request, changes: &changes)
            return nil
        default:
            throw .invalidParameter
        }
    }

    /// Step 5: a fragment. The first one (offset 0) sets expectedLength and expectedNextOffset
    /// (5.b.iv–v) before the sequence check (5.d) and the authentication (5.e), as the text orders
    /// it: an offset-0 request that then fails still ends the write in progress.
    private mutating func writeLargeBlob(_ fragment: [UInt8], at offset: UInt64, _ request: LargeBlobsRequest,
                                         changes: inout [CardMutation]) throws(CTAPStatus) {
        guard fragment.count <= maxLargeBlobFragment else { throw .invalidLength }
        if offset == 0 {
            guard let length = request.length else { throw .invalidParameter }
            // Compared as UInt64 before any conversion: a length of 2^64 − 1 is storage full.
            guard length <= UInt64(profile.maxSerializedLargeBlobArray) else { throw .largeBlobStorageFull }
            guard length >= 17 else { throw .invalidParameter }
            session.largeBlobWrite = LargeBlobWrite(expectedLength: Int(length), bytes: [])
        } else if request.length != nil {
            throw .invalidParameter
        }
        guard var write = session.largeBlobWrite, offset == UInt64(write.bytes.count) else { throw .invalidSequence }
        if isProtectedByUserVerification || alwaysUvEnabled {
            guard let pinUvAuthParam = request.pinUvAuthParam else { throw .puatRequired }
            let pinProtocol = try self.pinProtocol(request.pinUvAuthProtocol)
            try verifyToken(pinUvAuthParam, message: request.authenticatedMessage(fragment: fragment), protocol: pinProtocol,
                            permission: .largeBlobWrite, rpId: nil)
        }
        guard fragment.count <= write.expectedLength - write.bytes.count else { throw .invalidParameter }
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
