extension CBORDecoder {
    /// The members of the map `bytes` encodes, each value as the exact bytes it was sent as —
    /// for MACs a protocol computes over a member's encoding (CTAP 2.1 §6.8: pinUvAuthParam
    /// covers subCommandParams as received, not as re-encoded).
    ///
    /// - Returns: nil when `bytes` is a well-formed item but not a map.
    /// - Throws: A ``CBORError`` when `bytes` is not exactly one well-formed item.
    public static func mapMembers(
        _ bytes: ArraySlice<UInt8>, maximumDepth: Int = defaultMaximumDepth
    ) throws(CBORError) -> [(key: CBORValue, value: ArraySlice<UInt8>)]? {
        guard case .map = try decode(bytes, maximumDepth: maximumDepth) else { return nil }
        var rest = bytes.dropFirst(headLength(of: bytes))
        var members: [(key: CBORValue, value: ArraySlice<UInt8>)] = []
        while !rest.isEmpty {
            let key = try decodePrefix(rest, maximumDepth: maximumDepth)
            let value = try decodePrefix(key.rest, maximumDepth: maximumDepth)
            members.append((key.value, key.rest[key.rest.startIndex..<value.rest.startIndex]))
            rest = value.rest
        }
        return members
    }

    /// The length of a well-formed item's head (its first byte and its argument).
    private static func headLength(of bytes: ArraySlice<UInt8>) -> Int {
        switch bytes[bytes.startIndex] & 0x1F {
        case 24: 2
        case 25: 3
        case 26: 5
        case 27: 9
        default: 1
        }
    }
}
