import CTAP2
import POSIXSupport

/// A card image: the card's non-volatile memory in one file (``CardImageFormat``), as a snapshot
/// followed by a journal.
///
/// Every change is a journal record appended and `fdatasync`ed before ``commit(_:)`` returns, so
/// before the card answers, and persisting a change costs the same however many credentials the
/// card holds. When the journal outgrows the snapshot the image is compacted: a new snapshot goes
/// to a temporary file that is fsync'ed, renamed over the image, and then the directory is
/// fsync'ed (``save(_:)``).
///
/// A kill at any instant leaves either the state before or after the change: an append cut
/// short leaves a torn tail, which loading ignores (that change was never acknowledged) and the
/// next write truncates. A write that fails is cut back off, so that the file loads as it was. A
/// sibling `.lock` file held with `flock` keeps a second process out. Files are created
/// owner-only. All file access goes through a ``CardImageFileSystem``.
public final class CardImageFile: CardStorage {
    /// The image path.
    public let path: String
    /// Journal bytes beyond which the image is compacted (at least the snapshot's size).
    public var compactionThreshold = 64 * 1024

    private let fileSystem: CardImageFileSystem
    private let lockDescriptor: Int32
    /// Open on the image for appending, from the first commit until the next save.
    private var appendDescriptor: Int32?
    /// The current state, as stored (kept to write snapshots when compacting).
    private var state: CardState?
    /// Bytes of the file that hold valid records; anything after is a torn tail.
    private var validLength = 0
    private var fileLength = 0
    private var snapshotLength = 0
    private var journalLength = 0

    /// Opens (without reading) the image at `path` and takes its lock.
    public convenience init(path: String) throws(CardImageError) {
        try self.init(path: path, fileSystem: POSIXFileSystem())
    }

    /// Opens the image at `path` on `fileSystem` and takes its lock.
    init(path: String, fileSystem: CardImageFileSystem) throws(CardImageError) {
        self.path = path
        self.fileSystem = fileSystem
        let lockPath = path + ".lock"
        let descriptor: Int32?
        do {
            descriptor = try fileSystem.lock(lockPath)
        } catch {
            throw CardImageError(path: path, reason: .io("cannot lock \(lockPath): \(error)"))
        }
        guard let descriptor else { throw CardImageError(path: path, reason: .locked) }
        lockDescriptor = descriptor
    }

    deinit {
        if let appendDescriptor { fileSystem.close(appendDescriptor) }
        fileSystem.unlock(lockDescriptor)
    }

    // MARK: - CardStorage

    public func load() throws(CardImageError) -> CardState? {
        let bytes: [UInt8]
        do {
            guard let contents = try fileSystem.readFile(path) else { return nil }
            bytes = contents
        } catch {
            throw self.error(.io("cannot read: \(error)"))
        }
        let image = try CardImageFormat.decode(bytes, path: path)
        state = image.state
        validLength = image.validLength
        fileLength = bytes.count
        snapshotLength = image.snapshotLength
        journalLength = image.journalLength
        return image.state
    }

    public func save(_ state: CardState) throws(CardImageError) {
        let bytes = CardImageFormat.encode(state)
        let temporary = path + ".tmp"
        let descriptor: Int32
        do {
            descriptor = try fileSystem.open(temporary, creating: true)
        } catch {
            throw self.error(.io("cannot create \(temporary): \(error)"))
        }
        do {
            try fileSystem.pwrite(descriptor, bytes, at: 0)
            // Durable before the rename: else a power cut could leave the new name on no data.
            try fileSystem.fsync(descriptor)
        } catch {
            fileSystem.close(descriptor)
            fileSystem.unlink(temporary)
            throw self.error(.io("cannot write \(temporary): \(error)"))
        }
        fileSystem.close(descriptor)
        do {
            try fileSystem.rename(temporary, to: path)
        } catch {
            fileSystem.unlink(temporary)
            throw self.error(.io("cannot rename \(temporary) into place: \(error)"))
        }
        // The name now points at the new file, whatever happens next.
        if let appendDescriptor {
            fileSystem.close(appendDescriptor)
            self.appendDescriptor = nil
        }
        self.state = state
        validLength = bytes.count
        fileLength = bytes.count
        snapshotLength = bytes.count - CardImageFormat.headerLength
        journalLength = 0
        do {
            try fileSystem.fsyncDirectory(directory)
        } catch {
            throw self.error(.io("the new image is in place but a power cut may undo it; cannot sync \(directory): \(error)"))
        }
    }

    public func commit(_ mutations: [CardMutation]) throws(CardImageError) {
        guard state != nil else { throw error(.io("commit before the card image was created")) }
        let descriptor = try openForAppending()
        if fileLength > validLength {
            // A torn record from an earlier kill or failed write: drop it before appending.
            do {
                try fileSystem.ftruncate(descriptor, to: validLength)
            } catch {
                throw self.error(.io("cannot truncate a torn record: \(error)"))
            }
            fileLength = validLength
        }
        let record = CardImageFormat.journalRecord(mutations)
        do {
            try fileSystem.pwrite(descriptor, record, at: validLength)
            try fileSystem.fdatasync(descriptor)
        } catch {
            cutBack(descriptor, from: validLength + record.count)
            throw self.error(.io("cannot append a change: \(error)"))
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

    // MARK: - I/O

    private func error(_ reason: CardImageError.Reason) -> CardImageError {
        CardImageError(path: path, reason: reason)
    }

    private func openForAppending() throws(CardImageError) -> Int32 {
        if let appendDescriptor { return appendDescriptor }
        do {
            let descriptor = try fileSystem.open(path, creating: false)
            appendDescriptor = descriptor
            return descriptor
        } catch {
            throw self.error(.io("cannot open for writing: \(error)"))
        }
    }

    /// After a failed append: takes the record (all or part of it) off again, so that the file
    /// loads as the state the host was told it still has. Should that fail too, the record stays
    /// a torn tail the next commit truncates first.
    private func cutBack(_ descriptor: Int32, from length: Int) {
        fileLength = length
        guard (try? fileSystem.ftruncate(descriptor, to: validLength)) != nil else { return }
        fileLength = validLength
        try? fileSystem.fdatasync(descriptor)
    }

    /// The directory holding the image, whose entry the rename changes.
    private var directory: String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }
}
