/// A hand-rolled reader of `--name value`, `--name=value` and `--flag` options.
///
/// Strict, so that a typo is an error rather than a silently different run: unknown
/// options, a missing value, an option given twice (unless it may repeat) and stray words are
/// all ``UsageError``s.
///
/// `-h` and `--help` ask for help only where an option may stand: the word after a valued
/// option is its value whatever it looks like (`--pin -h` is the PIN `-h`), and a word after
/// `--` is a positional. Help wins over any other mistake on the line (``HelpRequest``).
struct CommandLineOptions {
    private var values: [String: [String]] = [:]
    private var flags: Set<String> = []
    /// Words that are not options (the subcommand decides whether it takes any).
    private(set) var positionals: [String] = []

    /// Reads `arguments`.
    ///
    /// - Parameters:
    ///   - valued: option names (with their dashes) that take a value.
    ///   - flags: option names that take none.
    ///   - repeatable: valued options that may be given more than once (read with ``values(_:)``).
    init(_ arguments: [String], valued: Set<String>, flags allowedFlags: Set<String>,
         repeatable: Set<String> = []) throws {
        var firstError: UsageError?
        var helpRequested = false
        var index = 0
        var onlyPositionals = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                onlyPositionals = true
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            var error: UsageError?
            if name == "-h" || name == "--help" {
                helpRequested = true
            } else if valued.contains(name) || repeatable.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else if index < arguments.count {
                    value = arguments[index]
                    index += 1
                } else {
                    firstError = firstError ?? UsageError("\(name) needs a value")
                    continue
                }
                if values[name] != nil && !repeatable.contains(name) { error = UsageError("\(name) is given twice") }
                values[name, default: []].append(value)
            } else if allowedFlags.contains(name) {
                if inlineValue != nil { error = UsageError("\(name) takes no value") }
                if flags.contains(name) { error = UsageError("\(name) is given twice") }
                flags.insert(name)
            } else {
                error = UsageError("unknown option \(name)")
            }
            if firstError == nil { firstError = error }
        }
        if helpRequested { throw HelpRequest() }
        if let firstError { throw firstError }
    }

    /// Whether `arguments`, whose options are not known (an unknown action's), ask for help:
    /// `-h` or `--help` anywhere before `--`.
    static func asksForHelp(_ arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains { $0 == "-h" || $0 == "--help" }
    }

    /// The value of a valued option, or nil when absent.
    func value(_ name: String) -> String? { values[name]?.first }

    /// Every value of a repeatable option, in order.
    func values(_ name: String) -> [String] { values[name] ?? [] }

    /// Whether a flag was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }

    /// Every option given (valued or flag), for commands that take a subset of the options they parse.
    var given: Set<String> { Set(values.keys).union(flags) }

    /// Refuses any given option outside `allowed` (or `always`) and any positional beyond
    /// `words`, naming what stands out; `what` names the command in the message.
    func allow(_ allowed: Set<String>, words: Int, what: String) throws(UsageError) {
        if let stray = given.subtracting(allowed).sorted().first {
            throw UsageError("\(stray) does not apply to '\(what)'")
        }
        if positionals.count > words { throw UsageError("unexpected argument '\(positionals[words])'") }
    }
}
