/// The little DER (X.690) CardCrypto writes and reads itself: lengths, unsigned INTEGERs and
/// SEQUENCEs — enough for ECDSA signatures and the PKCS #1 RSAPrivateKey, where going through
/// OpenSSL's decoders would be slower (OpenSSL 3.0 builds a decoder chain per call) and would
/// accept more than one encoding.
enum DER {
    /// The definite-length octets for `count` content bytes (short form below 128).
    static func length(_ count: Int) -> [UInt8] {
        precondition(count >= 0)
        guard count >= 0x80 else { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    /// An INTEGER holding the unsigned big-endian `magnitude` (leading zeros dropped, one added
    /// when the top bit is set so the value stays positive).
    static func integer(_ magnitude: [UInt8]) -> [UInt8] {
        var value = Array(magnitude.drop { $0 == 0 })
        if value.isEmpty { value = [0] }
        if value[0] & 0x80 != 0 { value.insert(0, at: 0) }
        return [0x02] + length(value.count) + value
    }

    /// A BIT STRING holding `bytes` whole (no unused bits).
    static func bitString(_ bytes: [UInt8]) -> [UInt8] {
        [0x03] + length(bytes.count + 1) + [0x00] + bytes
    }

    /// A SEQUENCE of the already-encoded `elements`.
    static func sequence(_ elements: [[UInt8]]) -> [UInt8] {
        let body = elements.flatMap { $0 }
        return [0x30] + length(body.count) + body
    }

    /// A strict reader: definite minimal lengths, minimal non-negative INTEGERs; any violation
    /// (or running out of bytes) makes a read return nil.
    struct Reader {
        private let bytes: [UInt8]
        private var offset: Int
        private let end: Int

        init(_ bytes: [UInt8]) {
            self.bytes = bytes
            offset = 0
            end = bytes.count
        }

        private init(_ bytes: [UInt8], offset: Int, end: Int) {
            self.bytes = bytes
            self.offset = offset
            self.end = end
        }

        /// True when every byte has been read.
        var isAtEnd: Bool { offset == end }

        /// Reads one element with `tag`, returning a reader over its contents.
        mutating func element(tag: UInt8) -> Reader? {
            guard offset < end, bytes[offset] == tag else { return nil }
            var cursor = offset + 1
            guard cursor < end else { return nil }
            let first = bytes[cursor]
            cursor += 1
            var count = 0
            if first < 0x80 {
                count = Int(first)
            } else {
                let lengthByteCount = Int(first & 0x7F)
                // Indefinite (0x80) and absurd lengths are rejected; so is a non-minimal long form.
                guard lengthByteCount >= 1, lengthByteCount <= 4, end - cursor >= lengthByteCount,
                    bytes[cursor] != 0
                else { return nil }
                for _ in 0..<lengthByteCount {
                    count = count << 8 | Int(bytes[cursor])
                    cursor += 1
                }
                guard count >= 0x80 else { return nil }
            }
            guard end - cursor >= count else { return nil }
            offset = cursor + count
            return Reader(bytes, offset: cursor, end: cursor + count)
        }

        /// Reads the next element, whatever its tag, and returns it whole (tag, length and contents).
        mutating func anyElement() -> [UInt8]? {
            guard offset < end else { return nil }
            let start = offset
            guard let contents = element(tag: bytes[offset]) else { return nil }
            return Array(bytes[start..<contents.end])
        }

        /// Reads a non-negative INTEGER and returns its magnitude without the sign byte
        /// (`[0]` for zero); nil for a negative or non-minimal encoding.
        mutating func unsignedInteger() -> [UInt8]? {
            guard let contents = element(tag: 0x02) else { return nil }
            let value = Array(contents.bytes[contents.offset..<contents.end])
            guard let first = value.first, first & 0x80 == 0 else { return nil }
            if first == 0, value.count > 1 {
                guard value[1] & 0x80 != 0 else { return nil }
                return Array(value.dropFirst())
            }
            return value
        }
    }
}

/// DER encoding of an ECDSA signature: SEQUENCE { INTEGER r, INTEGER s } (X9.62).
enum DERSignature {
    /// Encodes the unsigned big-endian `r` and `s` (any length; P-521's need the long form).
    static func encode(r: [UInt8], s: [UInt8]) -> [UInt8] {
        DER.sequence([DER.integer(r), DER.integer(s)])
    }
}
