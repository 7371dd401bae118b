import CTAP2
import CBOR
import CardCrypto

/// The layout of a card image, as bytes: no file, no system call (``CardImageFile`` does the I/O).
///
/// Layout: the magic `ARCIMG\0` and a format-version byte, then records. Each record is a
/// 4-byte big-endian payload length, a kind byte (`S` snapshot, `M` mutations), the payload
/// (CBOR) and the first 16 bytes of SHA-256 over length, kind and payload. The first record is
/// the snapshot of the whole `CardState`; every later one is a change (a list of
/// `CardMutation`s).
///
/// What a crash leaves after the last good record — an incomplete record, garbage or zeros (a
/// file system may extend the file before the data lands) — is a torn tail: decoding ends before
/// it and reports where the valid records end. A bad record with a good record after it is
/// damage, never silently dropped.
public enum CardImageFormat {
    static let magic: [UInt8] = Array("ARCIMG".utf8) + [0x00]
    static let formatVersion: UInt8 = 2
    static let headerLength = magic.count + 1
    /// The length field and the kind byte in front of a record's payload.
    static let recordHeaderLength = 5
    static let digestLength = 16

    enum RecordKind: UInt8 {
        case snapshot = 0x53  // "S"
        case mutations = 0x4D // "M"
    }

    // MARK: - Encoding

    /// The bytes of a freshly compacted image holding `state`.
    public static func encode(_ state: CardState) -> [UInt8] {
        magic + [formatVersion] + record(kind: .snapshot, payload: state.encoded())
    }

    /// The journal record that appends `mutations` to an image.
    static func journalRecord(_ mutations: [CardMutation]) -> [UInt8] {
        record(kind: .mutations, payload: CBOREncoder.encode(.array(mutations.map { $0.encoded() })))
    }

    static func record(kind: RecordKind, payload: [UInt8]) -> [UInt8] {
        let length = UInt32(payload.count)
        var bytes: [UInt8] = [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF),
                              UInt8(length & 0xFF), kind.rawValue]
        bytes.reserveCapacity(bytes.count + payload.count + digestLength)
        bytes += payload
        bytes += SHA256.hash(bytes).prefix(digestLength)
        return bytes
    }

    // MARK: - Records

    /// A record whose checksum holds.
    struct Record {
        /// The kind byte (not necessarily a known ``RecordKind``).
        let kind: UInt8
        /// Where the payload lies in the image.
        let payload: Range<Int>
        /// The offset just after the record.
        let end: Int
    }

    /// What the bytes at an offset of an image are.
    enum RecordScan {
        case record(Record)
        /// The image ends before the record does.
        case incomplete
        case badChecksum
    }

    /// The one record parser: what starts at `offset` of `bytes`.
    static func scanRecord(in bytes: [UInt8], at offset: Int) -> RecordScan {
        guard bytes.count - offset >= recordHeaderLength else { return .incomplete }
        let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        let payloadEnd = offset + recordHeaderLength + length
        let end = payloadEnd + digestLength
        guard end <= bytes.count else { return .incomplete }
        let digest = SHA256.hash(Array(bytes[offset..<payloadEnd])).prefix(digestLength)
        guard digest.elementsEqual(bytes[payloadEnd..<end]) else { return .badChecksum }
        return .record(Record(kind: bytes[offset + 4], payload: (offset + recordHeaderLength)..<payloadEnd, end: end))
    }

    /// Whether a complete record of a known kind with a valid checksum starts anywhere after `offset`.
    static func hasValidRecord(in bytes: [UInt8], after offset: Int) -> Bool {
        var start = offset + 1
        while start + recordHeaderLength + digestLength <= bytes.count {
            if case .record(let record) = scanRecord(in: bytes, at: start), RecordKind(rawValue: record.kind) != nil {
                return true
            }
            start += 1
        }
        return false
    }

    // MARK: - Decoding

    /// A decoded image: the state after every valid record, and where the valid records end.
    struct Decoded {
        var state: CardState
        /// Bytes of the image that hold valid records; anything after is a torn tail.
        var validLength: Int
        /// Bytes of the snapshot record.
        var snapshotLength: Int
        /// Bytes of the journal records after the snapshot.
        var journalLength: Int { validLength - headerLength - snapshotLength }
    }

    /// The card state that image bytes hold (snapshot plus journal); `path` only names the file in errors.
    public static func state(fromImage bytes: [UInt8], path: String) throws(CardImageError) -> CardState {
        try decode(bytes, path: path).state
    }

    /// Parses image bytes; `path` only names the file in errors.
    static func decode(_ bytes: [UInt8], path: String) throws(CardImageError) -> Decoded {
        func fail(_ reason: CardImageError.Reason) -> CardImageError { CardImageError(path: path, reason: reason) }
        guard !bytes.isEmpty else { throw fail(.damaged("the file is empty")) }
        guard bytes.count >= headerLength, Array(bytes[0..<magic.count]) == magic else { throw fail(.notACardImage) }
        let version = bytes[magic.count]
        guard version == formatVersion else { throw fail(.unsupportedVersion(version)) }
        var offset = headerLength
        var state: CardState?
        var snapshotLength = 0
        records: while offset < bytes.count {
            let record: Record
            switch scanRecord(in: bytes, at: offset) {
            case .incomplete:
                break records  // an append cut short: never acknowledged
            case .badChecksum:
                // What a crashed append leaves (garbage or zeros to the end of the file) is a torn
                // tail; a bad record with a good one after it is damage.
                if hasValidRecord(in: bytes, after: offset) {
                    throw fail(.damaged("the record at byte \(offset) fails its checksum"))
                }
                break records
            case .record(let found):
                record = found
            }
            let payload = bytes[record.payload]
            switch (RecordKind(rawValue: record.kind), state) {
            case (.snapshot, nil):
                do {
                    state = try CardState(decoding: payload)
                } catch {
                    throw fail(error)
                }
                snapshotLength = record.end - offset
            case (.mutations, var current?):
                for mutation in try mutations(in: payload, at: offset, path: path) { current.apply(mutation) }
                state = current
            default:
                throw fail(.malformed("unexpected record kind \(record.kind) at byte \(offset)"))
            }
            offset = record.end
        }
        guard let state else { throw fail(.damaged("no complete snapshot record")) }
        return Decoded(state: state, validLength: offset, snapshotLength: snapshotLength)
    }

    /// The changes a journal record's payload lists.
    private static func mutations(in payload: ArraySlice<UInt8>, at offset: Int, path: String) throws(CardImageError) -> [CardMutation] {
        func fail(_ reason: CardImageError.Reason) -> CardImageError { CardImageError(path: path, reason: reason) }
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(payload)
        } catch {
            throw fail(.malformed("journal record at byte \(offset) is not CBOR: \(error)"))
        }
        guard let list = value.arrayValue else { throw fail(.malformed("journal record at byte \(offset) is not a list")) }
        var mutations: [CardMutation] = []
        mutations.reserveCapacity(list.count)
        for item in list {
            do {
                mutations.append(try CardMutation(decoding: item))
            } catch {
                throw fail(error)
            }
        }
        return mutations
    }
}
