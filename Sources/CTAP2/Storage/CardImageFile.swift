#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CardCrypto

/// A card image: the card's non-volatile memory in one file.
///
/// Layout: the 8-byte magic `ARCIMG\0` + format version, a 4-byte big-endian payload length, the
/// payload (`CardState` as CBOR) and a SHA-256 over everything before it. Writes go to a temporary
/// file that is fsync'ed and renamed over the image, then the directory is fsync'ed, so a kill at
/// any instant leaves either the old or the new image. A sibling `.lock` file held with `flock`
/// keeps a second process from opening the same image. Files are created owner-only (0600).
public final class CardImageFile: CardStorage {
    /// The image path.
    public let path: String
    private var lockDescriptor: Int32 = -1

    static let magic: [UInt8] = Array("ARCIMG".utf8) + [0x00]
    static let formatVersion: UInt8 = 1

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
        if lockDescriptor >= 0 {
            flock(lockDescriptor, LOCK_UN)
            close(lockDescriptor)
        }
    }

    public func load() throws(CardImageError) -> CardState? {
        let bytes: [UInt8]
        switch readFile() {
        case .success(let data): bytes = data
        case .failure(let failure) where failure.code == ENOENT: return nil
        case .failure(let failure): throw error(.io("cannot read: \(String(cString: strerror(failure.code)))"))
        }
        return try Self.decode(bytes, path: path)
    }

    public func save(_ state: CardState) throws(CardImageError) {
        let bytes = Self.encode(state)
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw error(.io("cannot create \(temporary): \(Self.errnoText())")) }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                write(descriptor, buffer.baseAddress! + written, buffer.count - written)
            }
            if result < 0 {
                if errno == EINTR { continue }
                let reason = Self.errnoText()
                close(descriptor)
                unlink(temporary)
                throw error(.io("cannot write \(temporary): \(reason)"))
            }
            written += result
        }
        guard fsync(descriptor) == 0 else {
            let reason = Self.errnoText()
            close(descriptor)
            unlink(temporary)
            throw error(.io("fsync failed: \(reason)"))
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else {
            let reason = Self.errnoText()
            unlink(temporary)
            throw error(.io("cannot rename into place: \(reason)"))
        }
        syncDirectory()
    }

    /// The bytes of an image holding `state`.
    public static func encode(_ state: CardState) -> [UInt8] {
        let payload = state.encoded()
        var bytes = magic
        bytes.append(formatVersion)
        let length = UInt32(payload.count)
        bytes += [UInt8(length >> 24), UInt8(length >> 16 & 0xFF), UInt8(length >> 8 & 0xFF), UInt8(length & 0xFF)]
        bytes += payload
        bytes += SHA256.hash(bytes)
        return bytes
    }

    /// Parses image bytes; `path` only names the file in errors.
    public static func decode(_ bytes: [UInt8], path: String) throws(CardImageError) -> CardState {
        func fail(_ reason: CardImageError.Reason) -> CardImageError { CardImageError(path: path, reason: reason) }
        guard bytes.count >= magic.count + 1, Array(bytes[0..<magic.count]) == magic else {
            throw fail(bytes.isEmpty ? .damaged("the file is empty") : .notACardImage)
        }
        let version = bytes[magic.count]
        guard version == formatVersion else { throw fail(.unsupportedVersion(version)) }
        let headerLength = magic.count + 1 + 4
        guard bytes.count >= headerLength + 32 else { throw fail(.damaged("truncated header")) }
        let length = bytes[magic.count + 1..<headerLength].reduce(0) { $0 << 8 | Int($1) }
        guard bytes.count == headerLength + length + 32 else {
            throw fail(.damaged("length field says \(length) payload bytes, file has \(bytes.count - headerLength - 32)"))
        }
        let digest = SHA256.hash(Array(bytes[0..<headerLength + length]))
        guard digest == Array(bytes[(headerLength + length)...]) else { throw fail(.damaged("checksum mismatch")) }
        do {
            return try CardState(decoding: bytes[headerLength..<headerLength + length])
        } catch {
            throw fail(error)
        }
    }

    private func error(_ reason: CardImageError.Reason) -> CardImageError {
        CardImageError(path: path, reason: reason)
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
