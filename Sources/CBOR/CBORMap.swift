//===----------------------------------------------------------------------===//
// CBOR — CTAP2-flavoured Concise Binary Object Representation (RFC 8949).
//===----------------------------------------------------------------------===//

/// An ordered CBOR map that keeps its entries in insertion order.
///
/// CTAP2 requires canonical key order on the wire, which ``CBOREncoder`` produces
/// when encoding, so the map itself never has to be sorted. Keys are unique: every
/// way of building a map (the subscript setter, ``init(_:)``, dictionary literals
/// and ``CBORDecoder``) maintains that invariant.
///
/// Lookups are linear scans, which is the fastest option for the small maps
/// (typically fewer than 20 entries) that CTAP2 exchanges.
///
/// Two maps are equal when they contain the same key/value pairs, whatever their
/// insertion order; equivalently, when their canonical encodings are equal.
public struct CBORMap: Sendable {
    /// One key/value pair.
    ///
    /// Stored as a struct rather than a labelled tuple: arrays of tuples go through
    /// runtime tuple metadata for every copy, which is measurably slower.
    @usableFromInline
    internal struct Entry: Sendable {
        @usableFromInline var key: CBORValue
        @usableFromInline var value: CBORValue

        @inlinable
        init(key: CBORValue, value: CBORValue) {
            self.key = key
            self.value = value
        }
    }

    @usableFromInline
    internal var storage: [Entry]

    /// Creates an empty map.
    @inlinable
    public init() {
        self.storage = []
    }

    /// Creates a map from key/value pairs, keeping their order.
    ///
    /// If a key occurs more than once, the map keeps the position of its first
    /// occurrence and the value of its last one, exactly as if the pairs had been
    /// assigned one after another through ``subscript(_:)``.
    ///
    /// - Parameter entries: The key/value pairs of the map.
    public init(_ entries: [(key: CBORValue, value: CBORValue)]) {
        self.init(checking: entries.map { Entry(key: $0.key, value: $0.value) })
    }

    /// Creates a map from entries, resolving repeated keys as ``init(_:)`` documents.
    internal init(checking entries: [Entry]) {
        if CBORMap.containsDuplicateKeys(entries) {
            self.storage = []
            self.storage.reserveCapacity(entries.count)
            for entry in entries {
                self[entry.key] = entry.value
            }
        } else {
            self.storage = entries
        }
    }

    /// Creates a map from entries that are already known to have unique keys.
    @inlinable
    internal init(uncheckedUniqueEntries entries: [Entry]) {
        self.storage = entries
    }

    /// The key/value pairs of the map, in insertion order.
    ///
    /// This builds a new array on each access; iterate the map itself (it is a
    /// `Sequence` of the same pairs) to avoid the copy.
    @inlinable
    public var entries: [(key: CBORValue, value: CBORValue)] {
        storage.map { (key: $0.key, value: $0.value) }
    }

    /// The number of key/value pairs in the map.
    @inlinable
    public var count: Int {
        storage.count
    }

    /// Whether the map has no entries.
    @inlinable
    public var isEmpty: Bool {
        storage.isEmpty
    }

    /// The keys of the map, in insertion order.
    @inlinable
    public var keys: [CBORValue] {
        storage.map { $0.key }
    }

    /// The values of the map, in insertion order.
    @inlinable
    public var values: [CBORValue] {
        storage.map { $0.value }
    }

    /// The position of `key` in ``entries``, or `nil` if the map does not contain it.
    @inlinable
    public func index(forKey key: CBORValue) -> Int? {
        storage.firstIndex { $0.key == key }
    }

    /// Accesses the value stored for `key`.
    ///
    /// Reading returns `nil` when the key is absent. Assigning a value replaces the
    /// value of an existing key in place, or appends a new entry otherwise;
    /// assigning `nil` removes the entry.
    @inlinable
    public subscript(key: CBORValue) -> CBORValue? {
        get {
            for entry in storage where entry.key == key {
                return entry.value
            }
            return nil
        }
        set {
            if let index = index(forKey: key) {
                if let newValue {
                    storage[index].value = newValue
                } else {
                    storage.remove(at: index)
                }
            } else if let newValue {
                storage.append(Entry(key: key, value: newValue))
            }
        }
    }

    /// Accesses the value stored for the integer key `key` (see ``subscript(_:)``).
    ///
    /// CTAP2 uses small integer keys for most of its maps, so this is the common lookup.
    @inlinable
    public subscript(int key: Int) -> CBORValue? {
        get {
            if key >= 0 {
                let wanted = UInt64(key)
                for entry in storage {
                    if case .unsigned(let u) = entry.key, u == wanted { return entry.value }
                }
            } else {
                let wanted = UInt64(-1 - key)
                for entry in storage {
                    if case .negative(let n) = entry.key, n == wanted { return entry.value }
                }
            }
            return nil
        }
        set {
            self[CBORValue.int(key)] = newValue
        }
    }

    /// Accesses the value stored for the text key `key` (see ``subscript(_:)``).
    ///
    /// Keys match when their UTF-8 bytes are identical (no Unicode normalization).
    @inlinable
    public subscript(text key: String) -> CBORValue? {
        get {
            let wanted = key.utf8
            for entry in storage {
                if case .text(let s) = entry.key, s.utf8.count == wanted.count, s.utf8.elementsEqual(wanted) {
                    return entry.value
                }
            }
            return nil
        }
        set {
            self[CBORValue.text(key)] = newValue
        }
    }

    /// Removes the entry for `key` and returns its value, or returns `nil` when the
    /// key is absent.
    @inlinable
    @discardableResult
    public mutating func removeValue(forKey key: CBORValue) -> CBORValue? {
        guard let index = index(forKey: key) else { return nil }
        return storage.remove(at: index).value
    }

    /// Whether `entries` mentions some key more than once.
    private static func containsDuplicateKeys(_ entries: [Entry]) -> Bool {
        if entries.count < 2 { return false }
        if entries.count <= 16 {
            for i in 1..<entries.count {
                for j in 0..<i where entries[i].key == entries[j].key {
                    return true
                }
            }
            return false
        }
        var seen = Set<CBORValue>(minimumCapacity: entries.count)
        for entry in entries where !seen.insert(entry.key).inserted {
            return true
        }
        return false
    }
}

// MARK: - Hashable

extension CBORMap: Hashable {
    /// Two maps are equal when they contain the same key/value pairs, whatever the
    /// insertion order (they then have the same canonical encoding).
    public static func == (lhs: CBORMap, rhs: CBORMap) -> Bool {
        guard lhs.storage.count == rhs.storage.count else { return false }
        // Fast path: same insertion order.
        var inOrder = true
        for (l, r) in zip(lhs.storage, rhs.storage) where l.key != r.key || l.value != r.value {
            inOrder = false
            break
        }
        if inOrder { return true }
        // Keys are unique in both maps and the counts are equal, so "every pair of lhs
        // is in rhs" is set equality.
        for entry in lhs.storage {
            guard let other = rhs[entry.key], other == entry.value else { return false }
        }
        return true
    }

    /// Hashes the map independently of its insertion order, consistently with ``==(_:_:)``.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for entry in storage {
            var entryHasher = Hasher()
            entryHasher.combine(entry.key)
            entryHasher.combine(entry.value)
            combined &+= entryHasher.finalize()
        }
        hasher.combine(storage.count)
        hasher.combine(combined)
    }
}

// MARK: - Sequence

extension CBORMap: Sequence {
    /// Iterates over the key/value pairs of a map in insertion order.
    public struct Iterator: IteratorProtocol {
        @usableFromInline
        internal var base: IndexingIterator<[Entry]>

        @inlinable
        internal init(base: IndexingIterator<[Entry]>) {
            self.base = base
        }

        /// Returns the next key/value pair, or `nil` after the last one.
        @inlinable
        public mutating func next() -> (key: CBORValue, value: CBORValue)? {
            guard let entry = base.next() else { return nil }
            return (key: entry.key, value: entry.value)
        }
    }

    /// Returns an iterator over the key/value pairs in insertion order.
    @inlinable
    public func makeIterator() -> Iterator {
        Iterator(base: storage.makeIterator())
    }

    /// The number of entries (the exact count).
    @inlinable
    public var underestimatedCount: Int {
        storage.count
    }
}

// MARK: - ExpressibleByDictionaryLiteral

extension CBORMap: ExpressibleByDictionaryLiteral {
    /// Creates a map from a dictionary literal, keeping the literal's order.
    ///
    /// Repeated keys behave as in ``init(_:)``: first position, last value.
    public init(dictionaryLiteral elements: (CBORValue, CBORValue)...) {
        self.init(checking: elements.map { Entry(key: $0.0, value: $0.1) })
    }
}

// MARK: - CustomStringConvertible

extension CBORMap: CustomStringConvertible {
    /// The RFC 8949 diagnostic notation of the map, in insertion order.
    public var description: String {
        CBORValue.map(self).diagnosticNotation
    }
}
