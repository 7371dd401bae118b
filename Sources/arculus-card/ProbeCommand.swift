import ArculusCard
import CardProbe
import Foundation
import POSIXSupport

/// `arculus-card probe`: compare fingerprints (`diff`), run the battery against the emulator
/// loaded with a card's fingerprint (`--emulate`) or a profile (`--profile`), and rewrite the
/// built-in profiles' fixtures (`fixtures`). `pcsc probe` takes a card's fingerprint.
enum ProbeCommand: Subcommand {
    static let name = "probe"
    static let summary = "Is the emulator my card? Fingerprints: diff them, learn a profile, emulate one, fixtures"

    static var declaration: CommandDeclaration {
        CommandDeclaration(
            usage: ["arculus-card probe diff A.json B.json [--rules FILE] [--as \"LABEL A,LABEL B\"]",
                    "arculus-card probe profile CARD.json --out PROFILE.json [--spec-only] [--rules FILE] [--no-timing]",
                    "arculus-card probe --emulate CARD.json [--rules FILE] [--out FILE] [--no-timing]",
                    "arculus-card probe --profile NAME|FILE --out FILE [--allow-writes] [--no-timing]",
                    "arculus-card probe fixtures [--dir DIR] [--check]",
                    "(and 'arculus-card pcsc probe --reader NAME --out CARD.json [--allow-writes]')"],
            about: """
            A fingerprint is what a card answered to the probe's fixed battery (\(CardProber().entryCount) read-only
            entries, \(CardProber(includeWrites: true).entryCount - CardProber().entryCount) more with --allow-writes), kept as structure: status words, CTAP
            statuses, the shape of each answer, and round-trip times per command kind.
            """,
            actionsTitle: "ACTIONS",
            actions: [
                .init(title: "diff", help: ["Compare two fingerprints entry by entry and print each difference in",
                                            "the user's terms, with its path in brackets (for a rules file)."]),
                .init(title: "profile FILE", help: [
                    "Learn the card's profile from its fingerprint: its identity (getInfo,",
                    "SELECT answer, ATR, attestation format) and its behaviour, every switch",
                    "and departure the battery shows (--spec-only leaves the departures out),",
                    "each named with the entry that showed it. Then run the battery against",
                    "the emulator with it and print what still differs. 'serve --profile'",
                    "serves the file it writes ('pcsc capture-profile' takes the identity only)."]),
                .init(title: "--emulate FILE", help: [
                    "Load the emulator with the profile learned from the fingerprint (as",
                    "'probe profile' learns it; the card's PIN state too), run the same",
                    "battery against it in process, and print the diff: your card against the",
                    "emulator. Each difference says which profile field or switch expresses",
                    "it, or that none does. What the profile could not hold is listed too."]),
                .init(title: "--profile P", help: ["Run the battery against the emulator with profile P (a built-in name",
                                                   "or a file), in process, and write its fingerprint."]),
                .init(title: "fixtures", help: [
                    "Write the fingerprints of the built-in profiles (\(CardProfile.builtInNames.joined(separator: ", "))) to",
                    "DIR/<profile>.fingerprint.json, with the writing part and without",
                    "timing: the files CI checks against a probe over pcscd + vpcd."]),
            ],
            options: [
                .valued("--rules", "FILE", "Differences to accept. One rule a line, '#' comments:",
                        "  ignore PATH                        accept differences at PATH or below",
                        "  timing KIND ratio R [slack MS]     round trips within R× or MS ms",
                        "PATH as printed in brackets; '*' matches any run of characters. Without",
                        "a timing rule: timing * ratio 2 slack 20."),
                .valued("--emulate", "FILE", "The fingerprint of your card (the --emulate action)."),
                .valued("--profile", "NAME|FILE", "The profile (the --profile action)."),
                .valued("--as", "\"A,B\"", "(diff) How to name the two sides. Default: the files' names."),
                .valued("--out", "FILE", "Where to write the fingerprint (--emulate: the emulator's; profile: the profile)."),
                .flag("--spec-only", "(profile) Leave out the departures: the card as the text allows it."),
                .flag("--allow-writes", "(--profile) Run the writing part too (the emulated card is in memory)."),
                .flag("--no-timing", "Do not time round trips (no timing section; a diff then skips timing)."),
                .valued("--dir", "DIR", "(fixtures) Default: Fixtures/fingerprints."),
                .flag("--check", "(fixtures) Compare instead of writing; exit 1 when a fixture differs."),
            ],
            sections: [
                .init(title: "EXIT STATUS", body: """
                  0 the fingerprints are the same (accepted differences aside), 1 they differ,
                  2 a file is not a fingerprint or rules file this build reads, 64 a bad command line.
                """),
                .init(title: "EXAMPLES", body: """
                  arculus-card pcsc probe --reader 'ACS ACR1252' --out my-card.fingerprint.json
                  arculus-card probe profile my-card.fingerprint.json --out my-card.profile.json
                  arculus-card serve --profile my-card.profile.json
                  arculus-card probe --emulate my-card.fingerprint.json --rules accepted.rules
                  arculus-card probe diff Fixtures/fingerprints/arculus-fido2.fingerprint.json \\
                      Fixtures/fingerprints/arculus-fido21.fingerprint.json
                """),
            ],
            column: 19)
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try declaration.parse(arguments)
        do {
            switch options.positionals.first {
            case "diff":
                try options.allow(["--rules", "--as"], words: 3, what: "probe diff")
                guard options.positionals.count == 3 else { throw UsageError("diff wants two fingerprint files") }
                return try diff(options)
            case "profile":
                try options.allow(["--out", "--spec-only", "--rules", "--no-timing"], words: 2, what: "probe profile")
                return try learnProfile(options)
            case "fixtures":
                try options.allow(["--dir", "--check"], words: 1, what: "probe fixtures")
                return try fixtures(options)
            case nil where options.value("--emulate") != nil:
                try options.allow(["--emulate", "--rules", "--out", "--no-timing"], words: 0, what: "probe --emulate")
                return try emulate(options)
            case nil where options.value("--profile") != nil:
                try options.allow(["--profile", "--out", "--allow-writes", "--no-timing"], words: 0, what: "probe --profile")
                return try probeEmulator(options)
            case nil:
                throw UsageError("expected diff, profile, fixtures, --emulate FILE or --profile NAME")
            case let word?:
                throw UsageError("unknown action '\(word)': expected diff, profile, fixtures, --emulate FILE or --profile NAME")
            }
        } catch let error as BadProbeInput {
            Console.error("arculus-card probe: \(error.description)")
            return ProbeCommand.badInput
        }
    }

    /// The exit status for a file that is not a fingerprint or rules file this build reads.
    static let badInput: Int32 = 2

    /// `probe diff A B`.
    private static func diff(_ options: CommandLineOptions) throws -> Int32 {
        let (first, second) = (options.positionals[1], options.positionals[2])
        let left = try BadProbeInput.reading { () throws(FingerprintError) in try Fingerprint(path: first) }
        let right = try BadProbeInput.reading { () throws(FingerprintError) in try Fingerprint(path: second) }
        let labels = try labels(options.value("--as"), first, second)
        let rules = try rules(options)
        let result = try BadProbeInput.reading { () throws(FingerprintDiffError) in try FingerprintDiff(left, right, rules: rules) }
        DiffReport(diff: result, labels: labels).print(header: "\(labels.0) against \(labels.1)")
        return result.isEmpty ? ExitStatus.success : ExitStatus.failure
    }

    /// `--rules FILE`, read; no rules when absent.
    static func rules(_ options: CommandLineOptions) throws -> DiffRules {
        guard let path = options.value("--rules") else { return DiffRules() }
        // Read to the end rather than by the file's size, so that a pipe (`--rules <(…)`) reads too.
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path)
        } catch {
            throw BadProbeInput("cannot read rules file \(path): \(error.reason)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw BadProbeInput("rules file \(path) is not UTF-8 text") }
        return try BadProbeInput.reading { () throws(DiffRulesError) in try DiffRules(text: text, name: path) }
    }

    /// `--as "A,B"`, else the files' names without `.fingerprint.json`.
    private static func labels(_ given: String?, _ first: String, _ second: String) throws(UsageError) -> (String, String) {
        if let given {
            let parts = given.split(separator: ",", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { throw UsageError("--as wants two names: \"your card,the emulator\"") }
            return (parts[0], parts[1])
        }
        func stem(_ path: String) -> String {
            let name = URL(fileURLWithPath: path).lastPathComponent
            for suffix in [".fingerprint.json", ".json"] where name.hasSuffix(suffix) { return String(name.dropLast(suffix.count)) }
            return name
        }
        let (a, b) = (stem(first), stem(second))
        return a == b ? (first, second) : (a, b)
    }
}

/// A file the probe cannot use (exit 2): not a fingerprint, a fingerprint of another battery, a
/// rules file with a bad line.
struct BadProbeInput: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }

    /// Runs `body`, turning its error into a ``BadProbeInput``.
    static func reading<T, E: Error & CustomStringConvertible>(_ body: () throws(E) -> T) throws(BadProbeInput) -> T {
        do {
            return try body()
        } catch {
            throw BadProbeInput(error.description)
        }
    }
}
