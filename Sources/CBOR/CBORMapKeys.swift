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
/// platform encodes canonically, none can repeat an earlier one and only where the last one lies
/// in the input is kept. The first key out of order (or an array or map as a key) reads the
/// map's earlier keys again from the input and keeps them all.
public struct CBORMapKeys: Sendable {
    /// Where the map's first key starts in the reader's input.
    private let firstKey: Int
    /// Where the last key lies while the keys came in canonical order.
    private var last: Range<Int>?
    /// Every key so far, once one came out of order.
    private var seen: Seen?

    init(firstKey: Int) {
        self.firstKey = firstKey
    }

    /// Adds the next key, the bytes of `input` at `key`; throws ``CBORError/duplicateMapKey``
    /// if the map already has it.
    mutating func insert(_ key: Range<Int>, of input: ArraySlice<UInt8>) throws(CBORError) {
        let major = input[key.lowerBound] >> 5
        if seen == nil, major != 4, major != 5 {
            guard let previous = last, !CBORValue.canonicallyPrecedes(previous, of: input, key, of: input) else {
                last = key
                return
            }
            seen = earlierKeys(before: key.lowerBound, in: input)
            last = nil
        } else if seen == nil {
            seen = earlierKeys(before: key.lowerBound, in: input)
            last = nil
        }
        guard seen!.insert(Self.normalised(input[key])) else { throw .duplicateMapKey }
    }

    /// The keys between the map's head and `end`, read again (they were read and checked once:
    /// the reader that reads them again checks no maps inside them for repeated keys).
    private func earlierKeys(before end: Int, in input: ArraySlice<UInt8>) -> Seen {
        var reader = CBORReader(input[firstKey..<end], maximumDepth: .max, checksMapKeys: false)
        var keys = Seen.list([])
        while !reader.isAtEnd {
            guard let key = try? reader.skipItem(), (try? reader.skipItem()) != nil else { break }
            _ = keys.insert(Self.normalised(key))
        }
        return keys
    }

    /// A key as it compares: its bytes, or for an array or a map its canonical encoding.
    ///
    /// The key was read whole and checked once, so its tree is read again without checking the
    /// keys of the maps inside it: checking them would normalise each key nested in a key once
    /// more per level around it: twice the work per level of nesting, 2⁸ times at the decoder's
    /// depth cap.
    private static func normalised(_ key: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let initial = key.first, initial >> 5 == 4 || initial >> 5 == 5 else { return key }
        var reader = CBORReader(key, maximumDepth: .max, checksMapKeys: false)
        guard let value = try? reader.value() else { return key }
        return CBOREncoder.encode(value)[...]
    }
}

extension CBORMapKeys {
    /// The keys of a map whose keys came out of order: the first few in a list searched from the
    /// start (cheaper than hashing for maps as small as CTAP's), more in a set.
    private enum Seen: Sendable {
        case list([ArraySlice<UInt8>])
        case set(Set<ArraySlice<UInt8>>)

        /// The most keys kept in a list.
        static let listLimit = 16

        /// Adds `key`; false when the map already had it.
        mutating func insert(_ key: ArraySlice<UInt8>) -> Bool {
            switch self {
            case .list(var keys):
                if keys.contains(key) { return false }
                self = .list([])  // so that `keys` is the only reference and grows in place
                keys.append(key)
                self = keys.count > Self.listLimit ? .set(Set(keys)) : .list(keys)
                return true
            case .set(var keys):
                self = .list([])
                let inserted = keys.insert(key).inserted
                self = .set(keys)
                return inserted
            }
        }
    }
}
