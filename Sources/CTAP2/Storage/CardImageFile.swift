#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CBOR
import CardCrypto

/// A card image: the card's non-volatile memory in one file, as a snapshot followed by a journal.
///
/// Layout: the magic `ARCIMG\0` and a format-version byte, then records. Each record is a
/// 4-byte big-endian payload length, a kind byte (`S` snapshot, `M` mutations), the payload
/// (CBOR) and the first 16 bytes of SHA-256 over length, kind and payload. The first record is
/// the snapshot of the whole `CardState`; every later one is a change (`CardMutation`s) appended
/// and `fdatasync`ed before the card answers, so persisting a change costs the same however many
/// credentials the card holds. When the journal outgrows the snapshot the image is compacted:
/// a new snapshot goes to a temporary file that is fsync'ed and renamed over the image, then the
/// directory is fsync'ed.
///
/// A kill at any instant leaves either the state before or after the change: an append cut
/// short leaves an incomplete last record, which loading ignores (that change was never
/// acknowledged) and the next write truncates; so does a tail of garbage or zeros after the last
/// good record (a file system may extend the file before the data lands). A bad record with a
/// good record after it is damage, reported with the file name, never silently dropped. A sibling
/// `.lock` file held with `flock` keeps a second process out. Files are created owner-only.
public final class CardImageFile: CardStorage {
    /// The image path.
    public let path: String
    /// Journal bytes beyond which the image is compacted (at least the snapshot's size).
    public var compactionThreshold = 64 * 1024

    private var lockDescriptor: Int32 = -1
    private var appendDescriptor: Int32 = -1
    /// The current state, as stored (kept to write snapshots when compacting).
    private var state: CardState?
    /// Bytes of the file that hold valid records; anything after is a torn tail.
    private var validLength = 0
    private var fileLength = 0
    private var snapshotLength = 0
    private var journalLength = 0

    static let magic: [UInt8] = Array("ARCIMG".utf8) + [0x00]
    static let formatVersion: UInt8 = 2
    static let headerLength = magic.count + 1
    static let digestLength = 16

    /// Opens (without reading) the image at `path` and takes its lock.
    public init(path: String) throws(CardImageError) {
        self.path = path
        let lockPath = path + ".lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CardImageError(path: path, reason: .io("cannot open lock file \(lockPath): \(Self.errnoText())"))
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw CardImageError(path: path, reason: .locked)
        }
        lockDescriptor = descriptor
    }

    deinit {
        if appendDescriptor >= 0 { close(appendDescriptor) }
        if lockDescriptor >= 0 {
            flock(lockDescriptor, LOCK_UN)
            close(lockDescriptor)
        }
    }

    // MARK: - CardStorage

    public func load() throws(CardImageError) -> CardState? {
        let bytes: [UInt8]
        switch readFile() {
        case .success(let data): bytes = data
        case .failure(let failure) where failure.code == ENOENT: return nil
        case .failure(let failure): throw error(.io("cannot read: \(String(cString: strerror(failure.code)))"))
        }
        let image = try Self.decode(bytes, path: path)
        state = image.state
        validLength = image.validLength
        fileLength = bytes.count
        snapshotLength = image.snapshotLength
        journalLength = image.validLength - Self.headerLength - image.snapshotLength
        return image.state
    }

    public func save(_ state: CardState) throws(CardImageError) {
        let bytes = Self.encode(state)
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw error(.io("cannot create \(temporary): \(Self.errnoText())")) }
        if let reason = Self.writeAll(bytes, to: descriptor, at: 0) ?? (fsync(descriptor) == 0 ? nil : Self.errnoText()) {
            close(descriptor)
            unlink(temporary)
            throw error(.io("cannot write \(temporary): \(reason)"))
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let reason = Self.errnoText()
            unlink(temporary)
            throw error(.io("cannot rename into place: \(reason)"))
        }
        syncDirectory()
        if appendDescriptor >= 0 {
            close(appendDescriptor)
            appendDescriptor = -1
        }
        self.state = state
        validLength = bytes.count
        fileLength = bytes.count
        snapshotLength = bytes.count - Self.headerLength
        journalLength = 0
    }

    public func commit(_ mutations: [CardMutation]) throws(CardImageError) {
        guard state != nil else { throw error(.io("commit before the card image was created")) }
        if appendDescriptor < 0 {
            appendDescriptor = open(path, O_WRONLY | O_CLOEXEC)
            guard appendDescriptor >= 0 else { throw error(.io("cannot open for writing: \(Self.errnoText())")) }
        }
        if fileLength > validLength {
            // A torn record from an earlier kill: drop it before appending.
            guard ftruncate(appendDescriptor, off_t(validLength)) == 0 else {
                throw error(.io("cannot truncate a torn record: \(Self.errnoText())"))
            }
            fileLength = validLength
        }
        let record = Self.record(kind: .mutations, payload: CBOREncoder.encode(.array(mutations.map { $0.encoded() })))
        if let reason = Self.writeAll(record, to: appendDescriptor, at: validLength)
            ?? (fdatasync(appendDescriptor) == 0 ? nil : Self.errnoText()) {
            // Leave the valid prefix as it was; the partial record is a torn tail.
            fileLength = validLength + record.count
            throw error(.io("cannot append a change: \(reason)"))
        }
        validLength += record.count
        fileLength = validLength
        journalLength += record.count
        // In place: a copy of the state would copy every credential (O(n) per change).
        for mutation in mutations { state!.apply(mutation) }
        // The change is durable from here on, so the command must answer as done even when the
        // compaction fails (no room or no permission for the temporary file): reporting an error
        // would tell the host "not done" about a change the card keeps. The next change retries.
        if journalLength > max(compactionThreshold, snapshotLength), let state {
            try? save(state)
        }
    }

    // MARK: - Format

    enum RecordKind: UInt8 {
        case snapshot = 0x53  // "S"
        case mutations = 0x4D // "M"
    }

    /// The bytes of a freshly compacted image holding `state`.
    public static func encode(_ state: CardState) -> [UInt8] {
        magic + [formatVersion] + record(kind: .snapshot, payload: state.encoded())
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

    /// A decoded image: the state after every valid record, and where the valid records end.
    struct Decoded {
        var state: CardState
        var validLength: Int
        var snapshotLength: Int
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
        while offset < bytes.count {
            guard bytes.count - offset >= 5 else { break }
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            let end = offset + 5 + length + digestLength
            guard end <= bytes.count else { break }  // an append cut short: never acknowledged
            let body = Array(bytes[offset..<offset + 5 + length])
            guard Array(SHA256.hash(body).prefix(digestLength)) == Array(bytes[(end - digestLength)..<end]) else {
                // What a crashed append leaves (garbage or zeros to the end of the file) is a torn
                // tail; a bad record with a good one after it is damage.
                if hasValidRecord(in: bytes, after: offset) {
                    throw fail(.damaged("the record at byte \(offset) fails its checksum"))
                }
                break
            }
            let payload = bytes[(offset + 5)..<(offset + 5 + length)]
            switch (RecordKind(rawValue: bytes[offset + 4]), state) {
            case (.snapshot, nil):
                do {
                    state = try CardState(decoding: payload)
                } catch {
                    throw fail(error)
                }
                snapshotLength = end - offset
            case (.mutations, var current?):
                let value: CBORValue
                do {
                    value = try CBORDecoder.decode(payload)
                } catch {
                    throw fail(.malformed("journal record at byte \(offset) is not CBOR: \(error)"))
                }
                guard let list = value.arrayValue else { throw fail(.malformed("journal record at byte \(offset) is not a list")) }
                for item in list {
                    do {
                        current.apply(try CardMutation(decoding: item))
                    } catch {
                        throw fail(error)
                    }
                }
                state = current
            default:
                throw fail(.malformed("unexpected record kind \(bytes[offset + 4]) at byte \(offset)"))
            }
            offset = end
        }
        guard let state else { throw fail(.damaged("no complete snapshot record")) }
        return Decoded(state: state, validLength: offset, snapshotLength: snapshotLength)
    }

    /// Whether a complete record with a valid checksum starts anywhere after `offset`.
    private static func hasValidRecord(in bytes: [UInt8], after offset: Int) -> Bool {
        var start = offset + 1
        while start + 5 + digestLength <= bytes.count {
            let length = bytes[start..<start + 4].reduce(0) { $0 << 8 | Int($1) }
            let end = start + 5 + length + digestLength
            if end <= bytes.count, RecordKind(rawValue: bytes[start + 4]) != nil,
               Array(SHA256.hash(Array(bytes[start..<start + 5 + length])).prefix(digestLength))
                == Array(bytes[(end - digestLength)..<end]) {
                return true
            }
            start += 1
        }
        return false
    }

    // MARK: - I/O

    private func error(_ reason: CardImageError.Reason) -> CardImageError {
        CardImageError(path: path, reason: reason)
    }

    /// Writes all of `bytes` at `offset`; nil on success, else the reason.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, at offset: Int) -> String? {
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                pwrite(descriptor, buffer.baseAddress! + written, buffer.count - written, off_t(offset + written))
            }
            if result < 0 {
                if errno == EINTR { continue }
                return errnoText()
            }
            written += result
        }
        return nil
    }

    private func readFile() -> Result<[UInt8], SystemError> {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(SystemError(code: errno)) }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(SystemError(code: errno))
            }
            if count == 0 { break }
            bytes += chunk[0..<count]
        }
        return .success(bytes)
    }

    /// Makes the rename itself durable.
    private func syncDirectory() {
        var directory = path
        if let slash = directory.lastIndex(of: "/") {
            directory = String(directory[..<slash])
            if directory.isEmpty { directory = "/" }
        } else {
            directory = "."
        }
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// An errno value as an error.
    struct SystemError: Error { let code: Int32 }

    private static func errnoText() -> String { String(cString: strerror(errno)) }
}
