/// A subcommand of `arculus-card` declared once: its usage lines, what it does, its actions and
/// options with their help, and the sections after. ``help`` is written from the declaration and
/// ``parse(_:)`` reads a command line by it, so an option cannot be accepted without being in the
/// help, nor be in the help without being accepted (`CommandDeclarationTests` holds both), as
/// swift-argument-parser does with its property wrappers.
struct CommandDeclaration: Sendable {
    /// One option line of the help: what it shows, the option names it declares, and its help.
    struct Option: Sendable {
        /// How the help shows it: `--card FILE`, `--slot N, --vpcd HOST:PORT`.
        let label: String
        /// The names it declares, each with whether it takes a value and may repeat.
        let names: [(name: String, takesValue: Bool, repeats: Bool)]
        /// Its help lines.
        let help: [String]

        /// `--name VALUE`.
        static func valued(_ name: String, _ value: String, _ help: String...) -> Option {
            Option(label: "\(name) \(value)", names: [(name, true, false)], help: help)
        }

        /// `--name VALUE`, given once per value.
        static func repeating(_ name: String, _ value: String, _ help: String...) -> Option {
            Option(label: "\(name) \(value)", names: [(name, true, true)], help: help)
        }

        /// `--name`, a flag.
        static func flag(_ name: String, _ help: String...) -> Option {
            Option(label: name, names: [(name, false, false)], help: help)
        }

        /// Several options on one help line (`--slot N, --vpcd HOST:PORT`).
        static func together(_ options: [Option], _ help: String...) -> Option {
            Option(label: options.map(\.label).joined(separator: ", "), names: options.flatMap(\.names), help: help)
        }
    }

    /// One action of a command (`fault add`), its help, and the options that belong to it.
    struct Action: Sendable {
        /// `fault add [--command NAME] EFFECT [--once | --persistent]`.
        let title: String
        let help: [String]
        /// Options of its own, shown under it.
        var options: [Option] = []
        /// Help lines after its options.
        var after: [String] = []
        /// Which of the command's options it takes, when it reads its command line alone
        /// (``CommandDeclaration/parse(_:action:)``); nil: all.
        var accepts: [String]?
        /// The words that select it (`fault add`); nil: the title's first word.
        var selector: String?

        /// The words that select it.
        var words: String { selector ?? title.split(separator: " ").first.map(String.init) ?? title }
    }

    /// More options under a title of their own, after the command's first options section.
    struct OptionGroup: Sendable {
        let title: String
        let options: [Option]
    }

    /// A section of free text after the options (OUTPUT, EXAMPLES …), its body as printed.
    struct Section: Sendable {
        let title: String
        let body: String
    }

    var usage: [String]
    var about: String
    var actionsTitle = "COMMANDS"
    var actions: [Action] = []
    var optionsTitle = "OPTIONS"
    var options: [Option] = []
    var moreOptions: [OptionGroup] = []
    var sections: [Section] = []
    /// Where option and action help starts.
    var column = 23

    /// The command's own options, in every group.
    var commandOptions: [Option] { options + moreOptions.flatMap(\.options) }

    /// Every option the command accepts: its own and its actions'.
    var allOptions: [Option] { commandOptions + actions.flatMap(\.options) }

    /// Reads `arguments` by the declared options (strictly: ``CommandLineOptions``).
    func parse(_ arguments: [String]) throws -> CommandLineOptions {
        try Self.parse(arguments, by: allOptions.flatMap(\.names))
    }

    /// Reads the arguments after an action's name by the options that action takes: its own and
    /// those of the command's it ``Action/accepts``.
    func parse(_ arguments: [String], action word: String) throws -> CommandLineOptions {
        try Self.parse(arguments, by: optionNames(of: word))
    }

    /// The option names the action selected by `words` takes: its own and the command's it
    /// ``Action/accepts``.
    func optionNames(of words: String) -> [(name: String, takesValue: Bool, repeats: Bool)] {
        guard let action = actions.first(where: { $0.words == words }) else {
            preconditionFailure("the declaration has no action '\(words)'")
        }
        let shared = commandOptions.flatMap(\.names).filter { action.accepts?.contains($0.name) ?? true }
        return action.options.flatMap(\.names) + shared
    }

    private static func parse(_ arguments: [String], by names: [(name: String, takesValue: Bool, repeats: Bool)]) throws -> CommandLineOptions {
        var valued: Set<String> = []
        var flags: Set<String> = []
        var repeatable: Set<String> = []
        for (name, takesValue, repeats) in names {
            if repeats { repeatable.insert(name) } else if takesValue { valued.insert(name) } else { flags.insert(name) }
        }
        return try CommandLineOptions(arguments, valued: valued, flags: flags, repeatable: repeatable)
    }

    /// The `--help` text.
    var help: String {
        var text = "USAGE: " + usage.joined(separator: "\n       ") + "\n\n" + about + "\n"
        if !actions.isEmpty {
            text += "\n\(actionsTitle):\n"
            for action in actions {
                text += lines(action.title, action.help, indent: 2)
                for option in action.options { text += lines(option.label, option.help, indent: 4) }
                text += action.after.map { String(repeating: " ", count: column) + $0 + "\n" }.joined()
            }
        }
        let groups = [OptionGroup(title: optionsTitle, options: options)] + moreOptions
        for (index, group) in groups.enumerated() where !group.options.isEmpty || index == groups.count - 1 {
            text += "\n\(group.title):\n"
            for option in group.options { text += lines(option.label, option.help, indent: 2) }
            if index == groups.count - 1 { text += lines("-h, --help", ["Show this help."], indent: 2) }
        }
        for section in sections { text += "\n\(section.title):\n\(section.body)\n" }
        return text
    }

    /// `label` at `indent` with its help from ``column`` (or under it, when the label is longer).
    private func lines(_ label: String, _ help: [String], indent: Int) -> String {
        let start = String(repeating: " ", count: indent) + label
        let helpIndent = String(repeating: " ", count: column + indent - 2)
        guard let first = help.first else { return start + "\n" }
        var text: String
        if start.count + 1 < helpIndent.count {
            text = start.padding(helpIndent.count) + first + "\n"
        } else {
            text = start + "\n" + helpIndent + first + "\n"
        }
        for line in help.dropFirst() { text += helpIndent + line + "\n" }
        return text
    }
}

extension Subcommand {
    /// Every subcommand's help is written from its declaration.
    static var help: String { declaration.help }
}
