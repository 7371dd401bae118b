import ArculusCard
import CardProbe
import FIDOWire
import Foundation
import POSIXSupport

/// `probe profile CARD.json --out PROFILE.json`: the profile learned from a card's fingerprint
/// (``ProfileLearning``), each switch named with the entry that showed it, then the battery run
/// against it to say what still differs.
extension ProbeCommand {
    static func learnProfile(_ options: CommandLineOptions) throws -> Int32 {
        guard options.positionals.count == 2 else { throw UsageError("profile wants one fingerprint file") }
        guard let output = options.value("--out") else { throw UsageError("profile needs --out FILE") }
        let path = options.positionals[1]
        let card = try BadProbeInput.reading { () throws(FingerprintError) in try Fingerprint(path: path) }
        let rules = try rules(options)
        let specOnly = options.flag("--spec-only")
        let learning = try ProfileLearning.learn(from: card, file: path, specOnly: specOnly)
        let profile = learning.profile
        Console.output("learned profile \(profile.name) from \(path): \(DisplayText.escaped(profile.versions.joined(separator: ", "))), AAGUID \(profile.aaguid)")
        Console.output("identity: getInfo, SELECT answer \(DisplayText.escaped(profile.selectResponse)), ATR \(DisplayText.escaped(profile.atr))")
        for feature in learning.features { Console.output("learned \(DisplayText.escaped(feature))") }
        for line in learning.switches {
            let rule = line.isDeparture ? CardProfile.behaviourSwitch(line.field).map { " — a departure: \($0.room)" } ?? "" : ""
            Console.output("set \(DisplayText.escaped(line.line))\(rule)")
        }
        if specOnly {
            let all = try ProfileLearning.learn(from: card, file: path).switches.filter(\.isDeparture)
            for line in all { Console.output("left out (--spec-only): \(DisplayText.escaped(line.line))") }
        }
        for reason in learning.refused { Console.output("could not set \(DisplayText.escaped(reason))") }
        if !learning.fromBase.isEmpty {
            Console.output("not reported by the card, taken from \(CardProfile.default.name): \(learning.fromBase.joined(separator: ", "))")
        }
        for feature in learning.dropped { Console.output("the profile could not hold: \(DisplayText.escaped(feature))") }
        let (_, diff) = try compare(card, learning, path: path, rules: rules, timing: !options.flag("--no-timing"))
        let report = DiffReport(diff: diff, labels: ("your card", "the emulator"), hint: { ProfileHint.hint(for: $0, learning: learning) })
        report.print(header: "the emulator with this profile against your card")
        try NewFile.replace(output, with: Array(profile.jsonData()), mode: 0o644)
        _ = try CardProfile.load(path: output)
        Console.output("wrote profile \(profile.name) to \(output) (serve it with 'arculus-card serve --profile \(output)')")
        return ExitStatus.success
    }
}
