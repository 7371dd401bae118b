import ArculusCard
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a card image or profile path must be before the card is given it, so that a setting
/// or option naming a device (`/dev/zero`), a directory or a huge file is refused with its
/// reason instead of read without end, and nothing is created beside a path that is not known
/// to be a card image. (The image's own format is the card's to check.)
public enum CardFileCheck {
    /// The largest profile file read (1 MiB): a profile is a few kilobytes of JSON.
    public static let profileLimit = 1 << 20

    /// Why `path` cannot be a card image, or nil: it must be a regular file (symbolic links
    /// followed), or not exist yet (the card creates it).
    public static func imageProblem(_ path: String) -> String? {
        guard !path.isEmpty else { return "is empty; give a card image file (it is created when missing)" }
        var status = stat()
        guard stat(path, &status) == 0 else {
            return errno == ENOENT ? nil : "cannot be examined: \(String(cString: strerror(errno)))"
        }
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            return "is \(kind(status.st_mode)), not a card image file; give a file (it is created when missing)"
        }
        return nil
    }

    /// Why `nameOrPath` names no profile file that may be read, or nil: a built-in profile's
    /// name, or a regular file of at most ``profileLimit`` bytes.
    public static func profileProblem(_ nameOrPath: String) -> String? {
        if CardProfile.builtIn.contains(where: { $0.name == nameOrPath }) { return nil }
        var status = stat()
        guard stat(nameOrPath, &status) == 0 else { return nil }  // CardProfile names what is wrong with a missing one
        guard (status.st_mode & S_IFMT) == S_IFREG else { return "is \(kind(status.st_mode)), not a profile JSON file" }
        guard status.st_size <= Int64(profileLimit) else {
            return "is \(status.st_size) bytes; a profile JSON file is at most \(profileLimit) (1 MiB)"
        }
        return nil
    }

    private static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFIFO: "a named pipe"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }
}
