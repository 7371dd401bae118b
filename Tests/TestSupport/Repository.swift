import Foundation

/// Where the tests find the repository's files, and the command line the build made.
public enum Repository {
    /// The repository's root, from this file's path (`<root>/Tests/TestSupport/Repository.swift`).
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // root
    /// The Fixtures folder.
    public static let fixtures = root.appendingPathComponent("Fixtures")

    /// The `arculus-card` the tests run: `ARCULUS_CARD` when set (as test.sh sets it), else the
    /// one built beside this test bundle, in whatever build folder `swift test` used (a plain
    /// `.build/debug`, or test.sh's instrumented `.build/coverage`).
    public static let cardBinary: URL = {
        if let path = ProcessInfo.processInfo.environment["ARCULUS_CARD"], !path.isEmpty {
            return URL(fileURLWithPath: path)
        }
        let runner = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        return runner.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("arculus-card")
    }()
}
