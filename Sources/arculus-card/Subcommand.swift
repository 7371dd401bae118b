/// One subcommand of `arculus-card`, e.g. `serve`.
protocol Subcommand: Sendable {
    /// The word that selects it: `arculus-card <name> ...`.
    static var name: String { get }
    /// One line for the tool's overview.
    static var summary: String { get }
    /// The command declared once: usage, actions and options with their help (``CommandDeclaration``).
    static var declaration: CommandDeclaration { get }
    /// The whole `--help` text, written from ``declaration``.
    static var help: String { get }
    /// Runs with the arguments after the subcommand's name; returns the exit status. Throw
    /// ``UsageError`` for a bad command line, ``HelpRequest`` (``CommandLineOptions`` does) when
    /// `-h`/`--help` stands where an option may.
    static func run(_ arguments: [String]) throws -> Int32
}

/// A command line that cannot be run; the message says what is wrong.
struct UsageError: Error, Equatable, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

/// `-h` or `--help` where an option may stand: the dispatcher prints the subcommand's help.
struct HelpRequest: Error {}

/// Exit statuses (sysexits.h).
enum ExitStatus {
    static let success: Int32 = 0
    static let failure: Int32 = 1
    static let usage: Int32 = 64
    /// EX_UNAVAILABLE: what the command needs is not there (serve: a card did not come onto its reader).
    static let unavailable: Int32 = 69
}
