import CBOR
import FIDOWire

/// Reading a member's value: each function reads the next item whole, and gives its value, or,
/// for an item of another type, CTAP2_ERR_CBOR_UNEXPECTED_TYPE (CTAP 2.1 §8) to answer once the
/// body is read. Only CBOR that is not well-formed is thrown.
extension CBORReader {
    /// A text string.
    mutating func text() throws(CBORError) -> Member<String> {
        let token = try next()
        guard case .text(let utf8) = token else { return try unexpected(token) }
        return .present(String(decoding: self[utf8], as: UTF8.self))
    }

    /// A text string that is most often `common`, which the card writes as `encoded`: those
    /// bytes are matched before they are lexed, and give `common` itself (no new `String`).
    mutating func text(usually common: String, encoded: [UInt8]) throws(CBORError) -> Member<String> {
        skip(encoded: encoded) ? .present(common) : try text()
    }

    /// A byte string.
    mutating func byteString() throws(CBORError) -> Member<[UInt8]> {
        let token = try next()
        guard case .bytes(let bytes) = token else { return try unexpected(token) }
        return .present(Array(self[bytes]))
    }

    /// An unsigned integer.
    mutating func unsigned() throws(CBORError) -> Member<UInt64> {
        let token = try next()
        guard case .unsigned(let number) = token else { return try unexpected(token) }
        return .present(number)
    }

    /// An integer of either sign that an `Int` holds (a COSE algorithm identifier).
    mutating func integer() throws(CBORError) -> Member<Int> {
        switch try next() {
        case .unsigned(let number) where number <= UInt64(Int.max): .present(Int(number))
        case .negative(let number) where number <= UInt64(Int.max): .present(-1 - Int(number))
        case let token: try unexpected(token)
        }
    }

    /// `false` or `true`.
    mutating func bool() throws(CBORError) -> Member<Bool> {
        let token = try next()
        guard case .bool(let flag) = token else { return try unexpected(token) }
        return .present(flag)
    }

    /// Any item, as a tree: a COSE key for the existing codec, a member whose type the command
    /// judges itself.
    mutating func anyValue() throws(CBORError) -> Member<CBORValue> { .present(try value()) }

    /// A map as the bytes it was sent as, checked whole (``MemberCoding/mapAsSent``).
    mutating func asSent() throws(CBORError) -> Member<ArraySlice<UInt8>> {
        let start = position
        let token = try next()
        try skip(restOf: token)
        guard case .map = token else { return .invalid(.cborUnexpectedType) }
        return .present(bytes(from: start))
    }

    /// An extensions map (``MemberCoding/extensionsMap``): read whole and checked as
    /// ``asSent()`` checks a map (each key once), its members the card knows kept as they come.
    mutating func extensionsMap() throws(CBORError) -> Member<ExtensionsMap> {
        let start = position
        let token = try next()
        guard case .map(let count) = token else { return try unexpected(token) }
        var keys = startMapKeys()
        var entries: [ExtensionsMap.Entry] = []
        for _ in 0..<count {
            let keyStart = position
            let key = try mapKey(&keys)
            // Named as a message's reading names its members (``MemberKey``).
            let identifier: ExtensionIdentifier? = if case .text = key {
                ExtensionIdentifier(key: key, encoded: bytes(from: keyStart))
            } else {
                nil
            }
            let valueStart = position
            try skip(restOf: try next())
            if let identifier {
                entries.append(ExtensionsMap.Entry(identifier: identifier, value: valueStart - start..<position - start))
            }
        }
        endContainer()
        return .present(ExtensionsMap(encoded: Array(bytes(from: start)), entries: entries))
    }

    /// A structure that reads itself.
    mutating func message<Message: CTAPParseable>(_: Message.Type) throws(CBORError) -> Member<Message> {
        Member(try Message.read(from: &self))
    }

    /// An array, each element read by `element`: the first element's failure is the array's.
    mutating func array<Element>(
        _ element: (inout CBORReader) throws(CBORError) -> Member<Element>
    ) throws(CBORError) -> Member<[Element]> {
        let token = try next()
        guard case .array(let count) = token else { return try unexpected(token) }
        var elements: [Element] = []
        elements.reserveCapacity(count)
        var failure: CTAPStatus?
        for _ in 0..<count {
            switch try element(&self) {
            case .present(let value): elements.append(value)
            case .invalid(let status): failure = failure ?? status
            case .absent: break
            }
        }
        endContainer()
        if let failure { return .invalid(failure) }
        return .present(elements)
    }

    /// The `options` map (CTAP 2.1 §6.1.1, §6.2.1): text keys, boolean values. A name sent twice
    /// is INVALID_CBOR; two names equal as Swift strings but not as bytes: the later one's value.
    mutating func options() throws(CBORError) -> Member<[String: Bool]> {
        try options(into: [:]) { $0[$1] = $2 }
    }

    /// A map of text keys and boolean values, each given to `add` in the order sent.
    mutating func options<Options>(into options: Options,
                                   _ add: (inout Options, String, Bool) -> Void) throws(CBORError) -> Member<Options> {
        let token = try next()
        guard case .map(let count) = token else { return try unexpected(token) }
        var keys = startMapKeys()
        var options = options
        var typesMatch = true
        for _ in 0..<count {
            let name = try mapKey(&keys)
            let value = try next()
            try skip(restOf: value)
            guard case .text(let utf8) = name, case .bool(let flag) = value else {
                typesMatch = false
                continue
            }
            add(&options, String(decoding: self[utf8], as: UTF8.self), flag)
        }
        endContainer()
        return typesMatch ? .present(options) : .invalid(.cborUnexpectedType)
    }

    /// Reads the rest of an item of the wrong type: CBOR_UNEXPECTED_TYPE.
    private mutating func unexpected<Value>(_ token: CBORToken) throws(CBORError) -> Member<Value> {
        try skip(restOf: token)
        return .invalid(.cborUnexpectedType)
    }
}
