import Foundation

/// A fresh directory under the system's temporary directory, removed with everything in it when
/// the value goes away (keep it alive with `withExtendedLifetime` while its files are used).
public final class TemporaryDirectory {
    /// The directory's path.
    public let path: String

    /// Creates the directory; `label` starts its name, so a leftover says which tests made it.
    public init(_ label: String = "arculus-tests") throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        path = base.path
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// The path of `name` in the directory.
    public func file(_ name: String) -> String { path + "/" + name }

    /// The names in the directory, sorted.
    public func contents() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }
}
