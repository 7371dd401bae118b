import ArculusCard
import Foundation

/// `arculus-card profile`: list the built-in card profiles, or print one as JSON to copy and edit.
struct ProfileCommand: Subcommand {
    static let name = "profile"
    static let summary = "List the built-in card profiles or print one as JSON"
    static var declaration: CommandDeclaration {
        CommandDeclaration(
            usage: ["arculus-card profile list", "arculus-card profile show [--switches] NAME|FILE"],
            about: """
            A profile is a kind of card: what getInfo reports, the SELECT answer, the ATR, the card's
            limits, and its behaviour where CTAP and ISO 7816 leave room (the switches of the JSON
            objects 'behaviour' and 'departures'; the JSON holds those set away from their defaults).
            'show' prints it as JSON; save that to a file, edit it (e.g. to match a card you own)
            and pass the file to 'serve --profile FILE'. 'show FILE' validates a profile file, and
            names on stderr every departure from the text it turns on.

            Built-in profiles: \(CardProfile.builtInNames.joined(separator: ", ")) (default \(CardProfile.default.name)).
            """,
            options: [
                .flag("--switches", "Print every switch instead: its value, its default, and for a departure",
                      "the rule it breaks (README \"Card profiles\" explains each)."),
            ])
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try declaration.parse(arguments)
        switch options.positionals.first {
        case "list" where options.positionals.count == 1:
            for profile in CardProfile.builtIn {
                let marker = profile.name == CardProfile.default.name ? " (default)" : ""
                Console.output("\(profile.name.padding(16)) \(profile.description)\(marker)")
            }
            return ExitStatus.success
        case "show" where options.positionals.count == 2:
            let profile = try CardProfile.named(options.positionals[1])
            if options.flag("--switches") {
                Console.output(switchListing(profile))
                return ExitStatus.success
            }
            Console.output(String(decoding: profile.jsonData(), as: UTF8.self))
            for departure in profile.departuresOn {
                Console.error("profile \(profile.name): departure \(departure.field) is on: \(departure.summary) (breaks \(departure.room))")
            }
            return ExitStatus.success
        default:
            throw UsageError("expected 'list' or 'show NAME|FILE'")
        }
    }

    /// Every switch of `profile`, one a line: field, value, default when it differs, and for a
    /// departure that it is one and the rule it breaks.
    static func switchListing(_ profile: CardProfile) -> String {
        var lines: [String] = []
        for entry in CardProfile.switches {
            let value = entry.value(in: profile)
            var line = "\(entry.field.padding(48)) \(value)"
            if entry.isSet(in: profile) { line += "  (default \(entry.defaultValue))" }
            if entry.isDeparture { line += "  [departure: breaks \(entry.room)]" }
            lines.append(line)
        }
        return lines.joined(separator: "\n")
    }
}
