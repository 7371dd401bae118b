#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CTAP2
import POSIXSupport

/// A card image: the card's non-volatile memory in one file (``CardImageFormat``), as a snapshot
/// followed by a journal.
///
/// Every change is a journal record appended and `fdatasync`ed before ``commit(_:onto:)`` returns, so
/// before the card answers, and persisting a change costs the same however many credentials the
/// card holds. The image is rewritten as one snapshot (compacted) when the journal outgrows the
/// snapshot, and right after a change that retires a secret (a reset, a deleted credential, a new
/// PIN: ``CardMutation/retiresSecret(of:)``), so that the old secret is not left in the file. A
/// compaction writes a temporary file of a fresh name beside the image (created with `O_EXCL`,
/// owner-only), fsyncs it, locks it, renames it over the image and fsyncs the directory.
///
/// A kill at any instant leaves either the state before or after the change: an append cut
/// short leaves a torn tail, which loading ignores (that change was never acknowledged) and the
/// next write truncates; a damaged record is refused, never taken for a torn one. A write that
/// fails is cut back off, so that the file loads as it was.
///
/// The lock is an exclusive `flock` on the image file itself, so every path to it — a symbolic
/// link, `..` — meets the same lock, and no file is made beside the image to hold it. A
/// symbolic link to an image is followed: the image is compacted in its own directory and the
/// link stays a link. An image with several names (hard links) is refused, since a compaction
/// would leave the other names on the old file. Before it is locked or read whole, a file must be
/// a regular file, no larger than ``CardImageFormat/maximumImageLength``, and empty (a new card)
/// or start with the image's magic number: nothing is written to, locked or created beside a
/// file that is not a card image. All file access goes through a ``CardImageFileSystem``.
public final class CardImageFile: CardStorage {
    /// What the image's path may hold when it is opened.
    public enum Opening: Sendable {
        /// An image, or nothing (a new card is created at the path) or an empty file (it becomes one).
        case openOrCreate
        /// Nothing: a new card is created at the path (``CardImageError/Reason/alreadyExists`` otherwise).
        case createNew
    }

    /// The image path, as given (it names the image in errors).
    public let path: String
    /// Where the image is: `path` with every symbolic link resolved. Compactions write beside it.
    public let location: String
    /// Journal bytes beyond which the image is compacted (at least the snapshot's size).
    public var compactionThreshold = 64 * 1024
    /// Whether this open created the file (nothing was at the path): a caller whose set-up then
    /// fails removes it again (``removeImage()``).
    public let isNew: Bool

    private let fileSystem: CardImageFileSystem
    /// The image, open for reading and writing, and locked.
    private var descriptor: Int32
    /// Which file `descriptor` is: the one `location` must still name.
    private var identity: FileStatus.Identity
    /// This open created the file and nothing was saved in it yet: it goes when the image is closed.
    private var createdEmpty: Bool
    /// Whether the image holds a card (loaded from a non-empty file, or saved): only then can a
    /// change be committed. The state itself is the card's; a commit is given it.
    private var holdsCard = false
    /// The file's format version (an older one is rewritten before the first append).
    private var version = CardImageFormat.formatVersion
    /// Bytes of the file that hold valid records; anything after is a torn tail.
    private var validLength = 0
    private var fileLength = 0
    private var snapshotLength = 0
    private var journalLength = 0
    /// A record in the file retires a secret: the next chance rewrites the image without it.
    private var holdsRetiredSecrets = false
    private var upkeepFailure: CardImageError?

    /// Opens (without reading the records of) the image at `path` and takes its lock; creates a
    /// new, empty one as `opening` allows.
    public convenience init(path: String, opening: Opening = .openOrCreate) throws(CardImageError) {
        try self.init(path: path, opening: opening, fileSystem: POSIXFileSystem())
    }

    /// Opens the image at `path` on `fileSystem` and takes its lock.
    init(path: String, opening: Opening = .openOrCreate, fileSystem: CardImageFileSystem) throws(CardImageError) {
        self.path = path
        self.fileSystem = fileSystem
        let opened = try Self.acquire(path, opening, fileSystem)
        location = opened.location
        descriptor = opened.descriptor
        identity = opened.status.identity
        createdEmpty = opened.created
        isNew = opened.created
        removeStaleTemporaries()
    }

    deinit {
        if createdEmpty, let entry = try? fileSystem.status(atPath: location), entry.identity == identity, entry.size == 0 {
            // Never became a card (the card could not be made): leave nothing behind.
            fileSystem.unlink(location)
        }
        fileSystem.close(descriptor)
    }

    /// Removes the image: its name, if it is still this file's (a card that must not be left
    /// behind, e.g. when setting it up failed). Later writes fail.
    public func removeImage() {
        guard let entry = try? fileSystem.status(atPath: location), entry.identity == identity else { return }
        fileSystem.unlink(location)
        try? fileSystem.fsyncDirectory(NewFile.directory(of: location))
    }

    /// The bytes of the card image at `path`, for a copy (a transcript's `FILE.image`, a replay's
    /// scratch card): read-only and without the lock, so another process may be writing it. The
    /// same checks as an open: a regular file (a link is followed), at most
    /// ``CardImageFormat/maximumImageLength``, empty or starting with the magic of a version
    /// this build reads; nil when nothing is at `path`.
    public static func contents(ofImageAt path: String) throws(CardImageError) -> [UInt8]? {
        func fail(_ reason: CardImageError.Reason) -> CardImageError { CardImageError(path: path, reason: reason) }
        let descriptor = systemOpen(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            if errno == ENOENT { return nil }
            throw fail(.io("cannot open it: \(SystemCallError("open"))"))
        }
        defer { _ = systemClose(descriptor) }
        return try checkedRead(descriptor, on: POSIXFileSystem(), upTo: \.size, fail: fail).bytes
    }

    // MARK: - CardStorage

    public func load() throws(CardImageError) -> CardState? {
        let bytes: [UInt8]
        do {
            let size = try fileSystem.status(of: descriptor).size
            guard size <= CardImageFormat.maximumImageLength else { throw error(.tooLarge(size)) }
            bytes = try fileSystem.pread(descriptor, upTo: size, at: 0)
        } catch let failure as CardImageError {
            throw failure
        } catch {
            throw self.error(.io("cannot read: \(error)"))
        }
        fileLength = bytes.count
        guard !bytes.isEmpty else {
            // An empty file (one just created, or made with `touch`): a new card.
            holdsCard = false
            validLength = 0
            return nil
        }
        let image = try CardImageFormat.decode(bytes, path: path)
        holdsCard = true
        version = image.version
        validLength = image.validLength
        snapshotLength = image.snapshotLength
        journalLength = image.journalLength
        holdsRetiredSecrets = image.holdsRetiredSecrets
        return image.state
    }

    public func save(_ state: CardState) throws(CardImageError) {
        // A rename gives the path a new file: other names of the old one would stay on the old card.
        if let links = try? fileSystem.status(of: descriptor).links, links > 1 { throw error(.hardLinked(links)) }
        let bytes = CardImageFormat.encode(state)
        let temporary: (descriptor: Int32, path: String)
        do {
            temporary = try fileSystem.createTemporary(beside: location)
        } catch {
            throw self.error(.io("cannot create a temporary file beside it: \(error)"))
        }
        func abandon() {
            fileSystem.close(temporary.descriptor)
            fileSystem.unlink(temporary.path)
        }
        let newIdentity: FileStatus.Identity
        do {
            try fileSystem.pwrite(temporary.descriptor, bytes, at: 0)
            // Durable before the rename: else a power cut could leave the new name on no data.
            try fileSystem.fsync(temporary.descriptor)
            newIdentity = try fileSystem.status(of: temporary.descriptor).identity
        } catch {
            abandon()
            throw self.error(.io("cannot write the new image: \(error)"))
        }
        // Locked before it has the image's name: an opener that reaches the new file finds it held.
        do {
            guard try fileSystem.tryLock(temporary.descriptor) else {
                abandon()
                throw self.error(.io("cannot lock the new image: another process holds it"))
            }
        } catch let failure as CardImageError {
            throw failure
        } catch {
            abandon()
            throw self.error(.io("cannot lock the new image: \(error)"))
        }
        do {
            try fileSystem.rename(temporary.path, to: location)
        } catch {
            abandon()
            throw self.error(.io("cannot rename the new image into place: \(error)"))
        }
        // The name now points at the new file, whatever happens next; closing the old one lets its lock go.
        fileSystem.close(descriptor)
        descriptor = temporary.descriptor
        identity = newIdentity
        createdEmpty = false
        holdsCard = true
        version = CardImageFormat.formatVersion
        validLength = bytes.count
        fileLength = bytes.count
        snapshotLength = bytes.count - CardImageFormat.headerLength
        journalLength = 0
        holdsRetiredSecrets = false
        let directory = NewFile.directory(of: location)
        do {
            try fileSystem.fsyncDirectory(directory)
        } catch {
            throw self.error(.io("the new image is in place but a power cut may undo it; cannot sync \(directory): \(error)"))
        }
    }

    /// Appends `mutations`, the changes to `current` (the state this image holds, as the card
    /// holds it), as one journal record; then compacts when due. A snapshot — the upgrade of an
    /// older format, a change too long for an append, a compaction — is written from `current`
    /// (with the change applied, for the last two): only then is the change applied here too, on
    /// a scratch copy, as encoding the snapshot visits every credential anyway.
    public func commit(_ mutations: [CardMutation], onto current: CardState) throws(CardImageError) {
        guard holdsCard else { throw error(.io("commit before the card image was created")) }
        upkeepFailure = nil
        // An image of an older format gets this format's snapshot before this format's record.
        if version != CardImageFormat.formatVersion { try save(current) }
        try checkUnchanged()
        if fileLength > validLength {
            // A torn record from an earlier kill or failed write: drop it before appending.
            do {
                try fileSystem.ftruncate(descriptor, to: validLength)
            } catch {
                throw self.error(.io("cannot truncate a torn record: \(error)"))
            }
            fileLength = validLength
        }
        let retires = mutations.contains { $0.retiresSecret(of: current) }
        let record = CardImageFormat.journalRecord(mutations)
        guard record.count <= CardImageFormat.maximumAppendLength else {
            // Longer than an append may be (a torn tail is never longer): a snapshot instead.
            try save(Self.applying(mutations, to: current))
            return
        }
        do {
            try fileSystem.pwrite(descriptor, record, at: validLength)
            try fileSystem.fdatasync(descriptor)
        } catch {
            cutBack(from: validLength + record.count)
            throw self.error(.io("cannot append a change: \(error)"))
        }
        validLength += record.count
        fileLength = validLength
        journalLength += record.count
        holdsRetiredSecrets = holdsRetiredSecrets || retires
        // The change is durable from here on, so the command must answer as done even when the
        // compaction fails (no room or no permission for the temporary file): reporting an error
        // would tell the host "not done" about a change the card keeps. It is reported as upkeep
        // that failed (``takeUpkeepFailure()``), and the next change retries.
        if holdsRetiredSecrets || journalLength > max(compactionThreshold, snapshotLength) {
            do {
                try save(Self.applying(mutations, to: current))
            } catch {
                upkeepFailure = error
            }
        }
    }

    public func takeUpkeepFailure() -> CardImageError? {
        defer { upkeepFailure = nil }
        return upkeepFailure
    }

    /// `state` after `mutations`: the state a snapshot of a committed change holds.
    private static func applying(_ mutations: [CardMutation], to state: CardState) -> CardState {
        var next = state
        for mutation in mutations { next.apply(mutation) }
        return next
    }

    // MARK: - Opening

    /// The image file, open, checked and locked.
    private struct Opened {
        let descriptor: Int32
        let location: String
        let status: FileStatus
        let created: Bool
    }

    private static func acquire(_ path: String, _ opening: Opening,
                                _ fileSystem: CardImageFileSystem) throws(CardImageError) -> Opened {
        func fail(_ reason: CardImageError.Reason) -> CardImageError { CardImageError(path: path, reason: reason) }
        // A compaction elsewhere can put a new file at the name between the open and the lock;
        // each such race costs one more round.
        for _ in 0..<16 {
            guard let opened = try open(path, opening, fileSystem) else { continue }
            func giveUp(_ reason: CardImageError.Reason) -> CardImageError {
                fileSystem.close(opened.descriptor)
                return fail(reason)
            }
            let locked: Bool
            do {
                locked = try fileSystem.tryLock(opened.descriptor)
            } catch {
                throw giveUp(.io("cannot lock it: \(error)"))
            }
            guard locked else { throw giveUp(.locked) }
            guard (try? fileSystem.status(atPath: opened.location))?.identity == opened.status.identity else {
                fileSystem.close(opened.descriptor)
                continue
            }
            guard opened.status.links <= 1 else { throw giveUp(.hardLinked(opened.status.links)) }
            return opened
        }
        throw fail(.io("it keeps being replaced while it is opened"))
    }

    /// The file at `path`, open and checked to be a card image or empty (not yet locked); nil
    /// when it changed under the open (try again).
    private static func open(_ path: String, _ opening: Opening,
                             _ fileSystem: CardImageFileSystem) throws(CardImageError) -> Opened? {
        func fail(_ reason: CardImageError.Reason) -> CardImageError { CardImageError(path: path, reason: reason) }
        let location: String
        let descriptor: Int32
        let created: Bool
        if opening == .openOrCreate, let resolved = fileSystem.resolve(path) {
            let opened: Int32?
            do {
                opened = try fileSystem.openExisting(resolved)
            } catch where error.code == ELOOP {
                return nil  // a link took its place after it was resolved
            } catch where [EACCES, EPERM, EROFS, ETXTBSY].contains(error.code) {
                throw fail(.notWritable("\(error)"))
            } catch where error.code == EISDIR {
                throw fail(.notARegularFile(FileStatus.Kind.directory.rawValue))
            } catch {
                throw fail(.io("cannot open it: \(error)"))
            }
            guard let opened else { return nil }  // gone since it was resolved
            location = resolved
            descriptor = opened
            created = false
        } else {
            if opening == .openOrCreate, (try? fileSystem.status(atPath: path))?.kind == .symbolicLink {
                throw fail(.danglingSymbolicLink)
            }
            do {
                descriptor = try fileSystem.createNew(path)
            } catch where error.code == EEXIST {
                if opening == .createNew { throw fail(.alreadyExists) }
                return nil  // someone else just made it
            } catch {
                throw fail(creationFailure(error, directory: NewFile.directory(of: path)))
            }
            location = fileSystem.resolve(path) ?? path
            created = true
        }
        func giveUp(_ reason: CardImageError.Reason) -> CardImageError {
            fileSystem.close(descriptor)
            return fail(reason)
        }
        // Nothing is locked or written before the file is known to be a card image (or empty).
        let status = try checkedRead(descriptor, on: fileSystem, upTo: { _ in CardImageFormat.headerLength }, fail: giveUp).status
        return Opened(descriptor: descriptor, location: location, status: status, created: created)
    }

    /// The status of the file open at `descriptor` and its first bytes (`length` of them for that
    /// status), checked as a card image's: a regular file of at most
    /// ``CardImageFormat/maximumImageLength`` bytes, empty or starting with the magic of a version
    /// this build reads. `fail` makes the error for a file that is none or cannot be read.
    private static func checkedRead(_ descriptor: Int32, on fileSystem: CardImageFileSystem, upTo length: (FileStatus) -> Int,
                                    fail: (CardImageError.Reason) -> CardImageError)
        throws(CardImageError) -> (status: FileStatus, bytes: [UInt8]) {
        let status: FileStatus
        let bytes: [UInt8]
        do {
            status = try fileSystem.status(of: descriptor)
            if let problem = problem(of: status) { throw fail(problem) }
            bytes = try fileSystem.pread(descriptor, upTo: length(status), at: 0)
        } catch let failure as CardImageError {
            throw failure
        } catch {
            throw fail(.io("cannot read it: \(error)"))
        }
        if let problem = CardImageFormat.headerProblem(bytes.prefix(CardImageFormat.headerLength)) { throw fail(problem) }
        return (status, bytes)
    }

    /// Why the file `status` describes cannot be a card image (a device, too large), if it cannot.
    private static func problem(of status: FileStatus) -> CardImageError.Reason? {
        guard status.kind == .regularFile else { return .notARegularFile(status.kind.rawValue) }
        guard status.size <= CardImageFormat.maximumImageLength else { return .tooLarge(status.size) }
        return nil
    }

    /// Why a new image cannot be made in `directory`, in words a person can act on.
    private static func creationFailure(_ error: SystemCallError, directory: String) -> CardImageError.Reason {
        switch error.code {
        case EACCES, EPERM: .io("cannot create it: the directory \(directory) is not writable by this process (\(error))")
        case ENOENT: .io("cannot create it: there is no directory \(directory) (\(error))")
        case ENOTDIR: .io("cannot create it: \(directory) is not a directory (\(error))")
        case EROFS: .io("cannot create it: \(directory) is on a read-only file system (\(error))")
        default: .io("cannot create it: \(error)")
        }
    }

    /// Removes temporary files a compaction left when a crash interrupted it. Only this image's
    /// lock holder compacts, and that is this process now; only regular files of the image's
    /// owner are removed, never a link or another user's file.
    private func removeStaleTemporaries() {
        let directory = NewFile.directory(of: location)
        let name = String(location.split(separator: "/").last ?? "")
        guard let owner = try? fileSystem.status(of: descriptor).owner,
              let entries = fileSystem.directoryEntries(directory) else { return }
        for entry in entries where NewFile.isTemporaryName(entry, for: name) {
            let stale = directory + "/" + entry
            if let status = try? fileSystem.status(atPath: stale), status.kind == .regularFile, status.owner == owner {
                fileSystem.unlink(stale)
            }
        }
    }

    // MARK: - Writing

    private func error(_ reason: CardImageError.Reason) -> CardImageError {
        CardImageError(path: path, reason: reason)
    }

    /// Before an append: the file is the one this process opened, as long as it last left it —
    /// so that a record never lands at a stale offset, after another writer's.
    private func checkUnchanged() throws(CardImageError) {
        let size: Int
        do {
            size = try fileSystem.status(of: descriptor).size
        } catch {
            throw self.error(.io("cannot check the file before writing: \(error)"))
        }
        guard size == fileLength else {
            throw self.error(.io("the file is \(size) bytes, not the \(fileLength) this process left: another program wrote to it; not writing (reopen the image to see what it holds)"))
        }
        guard (try? fileSystem.status(atPath: location))?.identity == identity else {
            throw self.error(.io("\(location) is no longer the file this process opened (it was replaced or removed); not writing to the old one"))
        }
    }

    /// After a failed append: takes the record (all or part of it) off again, so that the file
    /// loads as the state the host was told it still has. Should that fail too, the record stays
    /// a torn tail the next commit truncates first.
    private func cutBack(from length: Int) {
        // What is in the file now (a write that failed may have written part of the record).
        fileLength = (try? fileSystem.status(of: descriptor).size) ?? length
        guard (try? fileSystem.ftruncate(descriptor, to: validLength)) != nil else { return }
        fileLength = validLength
        try? fileSystem.fdatasync(descriptor)
    }
}

// The C calls whose names the class's own methods hide.
private func systemOpen(_ path: String, _ flags: Int32) -> Int32 { open(path, flags) }
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
