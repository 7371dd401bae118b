/// A hand-rolled reader of `--name value`, `--name=value` and `--flag` options.
///
/// Strict, so that a typo is an error rather than a silently different run: unknown
/// options, a missing value, an option given twice and stray words are all ``UsageError``s.
struct CommandLineOptions {
    private var values: [String: String] = [:]
    private var flags: Set<String> = []
    /// Words that are not options (the subcommand decides whether it takes any).
    private(set) var positionals: [String] = []

    /// Reads `arguments`.
    ///
    /// - Parameters:
    ///   - valued: option names (with their dashes) that take a value.
    ///   - flags: option names that take none.
    init(_ arguments: [String], valued: Set<String>, flags allowedFlags: Set<String>) throws(UsageError) {
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
            if valued.contains(name) {
                let value: String
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < arguments.count else { throw UsageError("\(name) needs a value") }
                    value = arguments[index]
                    index += 1
                }
                guard values[name] == nil else { throw UsageError("\(name) is given twice") }
                values[name] = value
            } else if allowedFlags.contains(name) {
                guard inlineValue == nil else { throw UsageError("\(name) takes no value") }
                guard !flags.contains(name) else { throw UsageError("\(name) is given twice") }
                flags.insert(name)
            } else {
                throw UsageError("unknown option \(name)")
            }
        }
    }

    /// The value of a valued option, or nil when absent.
    func value(_ name: String) -> String? { values[name] }

    /// Whether a flag was given.
    func flag(_ name: String) -> Bool { flags.contains(name) }
}
