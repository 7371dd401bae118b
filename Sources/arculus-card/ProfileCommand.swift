import ArculusCard
import Foundation

/// `arculus-card profile`: list the built-in card profiles, or print one as JSON to copy and edit.
struct ProfileCommand: Subcommand {
    static let name = "profile"
    static let summary = "List the built-in card profiles or print one as JSON"
    static var declaration: CommandDeclaration {
        CommandDeclaration(
            usage: ["arculus-card profile list", "arculus-card profile show NAME|FILE"],
            about: """
            A profile is a kind of card: what getInfo reports, the SELECT answer, the ATR and the card's
            limits. 'show' prints it as JSON; save that to a file, edit it (e.g. to match a card you own)
            and pass the file to 'serve --profile FILE'. 'show FILE' validates a profile file.

            Built-in profiles: \(CardProfile.builtInNames.joined(separator: ", ")) (default \(CardProfile.default.name)).
            """)
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
            Console.output(String(decoding: profile.jsonData(), as: UTF8.self))
            return ExitStatus.success
        default:
            throw UsageError("expected 'list' or 'show NAME|FILE'")
        }
    }
}
