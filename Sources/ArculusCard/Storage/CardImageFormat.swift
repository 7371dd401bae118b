import CTAP2
import CBOR
import CardCrypto

/// The layout of a card image, as bytes: no file, no system call (``CardImageFile`` does the I/O).
///
/// Layout (format version 3): the magic `ARCIMG\0` and a format-version byte, then records. Each
/// record is a 4-byte big-endian payload length, a kind byte (`S` snapshot, `M` mutations), the
/// payload (CBOR), the first 16 bytes of SHA-256 over length, kind and payload, the length again,
/// and the end mark `A5`. The first record is the snapshot of the whole `CardState`; every later
/// one is a change (a list of `CardMutation`s) appended to the journal.
///
/// The record's two ends are what tell a record that was written whole from one a crash cut
/// short (``tail(of:at:version:)``): an append is at most ``maximumAppendLength`` bytes, and
/// what it leaves when cut — a prefix of the record, or the record's length with zeros after
/// some point (a file system may extend the file before the data lands) — never ends in the end
/// mark, and never has a whole record after it. So a record whose last byte was written but whose
/// checksum fails, a whole record after a bad one, or more bytes than an append writes are
/// damage, reported with the offset; only the shapes of a cut-short append are a torn tail,
/// dropped (that change was never acknowledged). Each record is read once: decoding is linear
/// in the image's size.
///
/// Version 2 (records without the second length and the end mark) still loads; the first write
/// to such an image rewrites it in version 3.
public enum CardImageFormat {
    static let magic: [UInt8] = Array("ARCIMG".utf8) + [0x00]
    /// The version this build writes.
    static let formatVersion: UInt8 = 3
    /// The versions this build reads.
    static let readableVersions: ClosedRange<UInt8> = 2...3
    static let headerLength = magic.count + 1
    /// The length field and the kind byte in front of a record's payload.
    static let recordHeaderLength = 5
    static let digestLength = 16
    /// The last byte of every version 3 record: never 0, and no single flipped bit makes it 0.
    static let endMark: UInt8 = 0xA5
    /// The journal record longest an append writes; a change that needs more is written as a
    /// new snapshot instead (``CardImageFile``), so a torn tail is never longer.
    static let maximumAppendLength = 64 * 1024
    /// The largest file the loader reads: far beyond any card's memory (10,000 credentials take
    /// a few MB), so that a device or a foreign file is refused before it is read.
    public static let maximumImageLength = 256 * 1024 * 1024

    enum RecordKind: UInt8 {
        case snapshot = 0x53  // "S"
        case mutations = 0x4D // "M"
    }

    /// What follows a record's payload in an image of `version`: the digest, and from version 3 on
    /// the length again and the end mark.
    static func trailerLength(version: UInt8) -> Int {
        version >= 3 ? digestLength + 4 + 1 : digestLength
    }

    /// The bytes of a record of `payloadLength` bytes in an image of `version`.
    static func recordLength(payloadLength: Int, version: UInt8 = formatVersion) -> Int {
        recordHeaderLength + payloadLength + trailerLength(version: version)
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

    /// One record of `version` (the current one unless a test builds an older image).
    static func record(kind: RecordKind, payload: [UInt8], version: UInt8 = formatVersion) -> [UInt8] {
        let length = bigEndian(UInt32(payload.count))
        var bytes = length + [kind.rawValue]
        bytes.reserveCapacity(recordLength(payloadLength: payload.count, version: version))
        bytes += payload
        bytes += SHA256.hash(bytes).prefix(digestLength)
        if version >= 3 { bytes += length + [endMark] }
        return bytes
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    static func lengthField(in bytes: [UInt8], at offset: Int) -> Int {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
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
        /// The record's bytes are all there, but its checksum, second length or end mark is wrong.
        case bad
    }

    /// The one record parser: what starts at `offset` of `bytes`, an image of `version`.
    static func scanRecord(in bytes: [UInt8], at offset: Int, version: UInt8) -> RecordScan {
        guard bytes.count - offset >= recordHeaderLength else { return .incomplete }
        let length = lengthField(in: bytes, at: offset)
        let payloadEnd = offset + recordHeaderLength + length
        let end = offset + recordLength(payloadLength: length, version: version)
        guard end <= bytes.count else { return .incomplete }
        if version >= 3 {
            guard bytes[end - 1] == endMark, lengthField(in: bytes, at: end - 5) == length else { return .bad }
        }
        let digest = SHA256.hash(Array(bytes[offset..<payloadEnd])).prefix(digestLength)
        guard digest.elementsEqual(bytes[payloadEnd..<payloadEnd + digestLength]) else { return .bad }
        return .record(Record(kind: bytes[offset + 4], payload: (offset + recordHeaderLength)..<payloadEnd, end: end))
    }

    // MARK: - Decoding

    /// Why a file starting with `header` (its first ``headerLength`` bytes, or all of a shorter
    /// file) is not a card image this build reads; nil for an image, or an empty file.
    static func headerProblem(_ header: some Collection<UInt8>) -> CardImageError.Reason? {
        guard !header.isEmpty else { return nil }
        guard header.count >= headerLength, header.starts(with: magic) else { return .notACardImage }
        let version = header[header.index(header.startIndex, offsetBy: magic.count)]
        return readableVersions.contains(version) ? nil : .unsupportedVersion(version)
    }

    /// A decoded image: the state after every valid record, and where the valid records end.
    struct Decoded {
        var state: CardState
        /// The image's format version.
        var version: UInt8
        /// Bytes of the image that hold valid records; anything after is a torn tail.
        var validLength: Int
        /// Bytes of the snapshot record.
        var snapshotLength: Int
        /// Whether a journal record retires a secret (a reset, a deleted credential, a changed
        /// PIN) that is still in the file: the next write rewrites the image without it.
        var holdsRetiredSecrets: Bool
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
        if let problem = headerProblem(bytes.prefix(headerLength)) { throw fail(problem) }
        let version = bytes[magic.count]
        guard bytes.count <= maximumImageLength else { throw fail(.tooLarge(bytes.count)) }
        var offset = headerLength
        var state: CardState?
        var snapshotLength = 0
        var retires = false
        records: while offset < bytes.count {
            let record: Record
            switch scanRecord(in: bytes, at: offset, version: version) {
            case .incomplete, .bad:
                switch tail(of: bytes, at: offset, version: version, afterSnapshot: state != nil) {
                case .torn: break records  // an append cut short: never acknowledged
                case .damaged(let why): throw fail(.damaged(why))
                }
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
            case (.mutations, .some):
                // In place: a copy of the state per record would copy every credential.
                for mutation in try mutations(in: payload, at: offset, path: path) {
                    retires = retires || mutation.retiresSecret(of: state!)
                    state!.apply(mutation)
                }
            default:
                throw fail(.malformed("unexpected record kind \(record.kind) at byte \(offset)"))
            }
            offset = record.end
        }
        guard let state else { throw fail(.damaged("no complete snapshot record")) }
        return Decoded(state: state, version: version, validLength: offset, snapshotLength: snapshotLength,
                       holdsRetiredSecrets: retires)
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
