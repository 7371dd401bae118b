//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

/// The keys of one map read so far, to catch a key sent twice (CTAP2 allows none): every map
/// ``CBORReader`` reads, whether into a ``CBORValue`` tree, into a message's fields or skipped.
///
/// Keys compare as ``CBORValue`` equality does. Shortest heads and definite lengths give every
/// scalar one encoding, so those compare by their bytes; a key that is an array or a map compares
/// by its canonical encoding (two maps with the same members in another order are one key).
///
/// While every key follows the one before in canonical order (CTAP 2.1 §8), as in every map a
/// platform encodes canonically, none can repeat an earlier one and only the last is kept. The
/// first key out of order reads the map's earlier keys again from the input and keeps them all.
public struct CBORMapKeys: Sendable {
    /// The reader's input, and where the map's first key starts in it.
    private let input: ArraySlice<UInt8>
    private let firstKey: Int
    /// The last key while the keys came in canonical order.
    private var last: ArraySlice<UInt8>?
    /// Every key so far, once one came out of order.
    private var seen: Set<ArraySlice<UInt8>>?

    init(input: ArraySlice<UInt8>, firstKey: Int) {
        self.input = input
        self.firstKey = firstKey
    }

    /// Adds the next key, given as the bytes it was read from (a slice of the reader's input);
    /// throws ``CBORError/duplicateMapKey`` if the map already has it.
    public mutating func insert(_ key: ArraySlice<UInt8>) throws(CBORError) {
        let normalised = Self.normalised(key)
        if seen != nil {
            guard seen!.insert(normalised).inserted else { throw .duplicateMapKey }
            return
        }
        guard let previous = last, !CBORValue.canonicallyPrecedes(encoded: previous, encoded: normalised) else {
            last = normalised
            return
        }
        var all = earlierKeys(before: key.startIndex)
        guard all.insert(normalised).inserted else { throw .duplicateMapKey }
        seen = all
        last = nil
    }

    /// The keys between the map's head and `end`, read again (they were read and checked once:
    /// the reader that reads them again checks no maps inside them for repeated keys).
    private func earlierKeys(before end: Int) -> Set<ArraySlice<UInt8>> {
        var reader = CBORReader(input[firstKey..<end], maximumDepth: .max, checksSkippedKeys: false)
        var keys = Set<ArraySlice<UInt8>>()
        while !reader.isAtEnd {
            guard let key = try? reader.skipItem(), (try? reader.skipItem()) != nil else { break }
            keys.insert(Self.normalised(key))
        }
        return keys
    }

    /// A key as it compares: its bytes, or for an array or a map its canonical encoding.
    private static func normalised(_ key: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let initial = key.first, initial >> 5 == 4 || initial >> 5 == 5,
              let value = try? CBORDecoder.decode(key, maximumDepth: .max) else { return key }
        return CBOREncoder.encode(value)[...]
    }
}
