import ArculusCard
import ArculusFidoConnectors
import CardProbe
import CTAPClient
import FIDOWire
import Foundation
import POSIXSupport

/// The battery against the emulator in process: `probe --profile`, `probe fixtures`,
/// `probe --emulate`.
extension ProbeCommand {
    /// Probes an emulated card of `profile` in memory, with the PIN state `pin` when given.
    static func probeInProcess(_ profile: CardProfile, pin: (isSet: Bool, retries: Int?) = (false, nil), writes: Bool,
                               timing: Bool, source: String) throws -> (fingerprint: Fingerprint, cost: CardProber.Cost) {
        let card = try VirtualCard(profile: profile)
        if pin.isSet {
            try card.setPIN(String(repeating: "7", count: max(8, profile.minPINLength)))
            if let retries = pin.retries { try card.setPINRetries(retries) }
        }
        let transport = VirtualCardTransport(card: card)
        return try CardProber(includeWrites: writes, measuresTiming: timing).runCounting(on: transport, atr: try profile.atrBytes,
                                                                                         source: source)
    }

    /// `probed N entries (A APDUs, P power cycles) in T s`.
    static func costLine(_ fingerprint: Fingerprint, _ cost: CardProber.Cost, took: Duration) -> String {
        let seconds = Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18
        return "probed \(fingerprint.battery.entries) entries (\(cost.apdus) APDUs, \(cost.powerCycles) power cycles) in "
            + String(format: "%.2f s", seconds)
    }

    /// `probe --profile P --out FILE`.
    static func probeEmulator(_ options: CommandLineOptions) throws -> Int32 {
        guard let profile = try options.profile("--profile") else { throw UsageError("--profile wants a profile") }
        guard let output = options.value("--out") else { throw UsageError("--profile needs --out FILE") }
        let clock = ContinuousClock()
        let start = clock.now
        let (fingerprint, cost) = try probeInProcess(profile, writes: options.flag("--allow-writes"), timing: !options.flag("--no-timing"),
                                                     source: "the emulator (in process), profile \(profile.name)")
        try NewFile.replace(output, with: Array(fingerprint.text.utf8), mode: 0o644)
        Console.error(costLine(fingerprint, cost, took: start.duration(to: clock.now)))
        Console.output("wrote the fingerprint of the emulator with profile \(profile.name) to \(output)")
        return ExitStatus.success
    }

    /// `probe fixtures [--dir DIR] [--check]`.
    static func fixtures(_ options: CommandLineOptions) throws -> Int32 {
        let directory = options.value("--dir") ?? "Fixtures/fingerprints"
        if options.flag("--check"), (try? POSIX.status(atPath: directory))??.kind != .directory {
            let hint = options.value("--dir") == nil ? " (run it in the repository, or give --dir)" : ""
            Console.error("arculus-card probe: the fixtures are not there: \(directory) is no directory\(hint)")
            return ExitStatus.failure
        }
        var stale: [String] = []
        for profile in CardProfile.builtIn {
            let path = "\(directory)/\(profile.name).fingerprint.json"
            let (fingerprint, _) = try probeInProcess(profile, writes: true, timing: false,
                                                      source: "the emulator (in process), profile \(profile.name)")
            if options.flag("--check") {
                do {
                    if try InputFile.text(path) != fingerprint.text { stale.append(path) }
                } catch {
                    Console.error("\(path): \(error.reason)")
                    stale.append(path)
                }
            } else {
                try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
                try NewFile.replace(path, with: Array(fingerprint.text.utf8), mode: 0o644)
                Console.output("wrote \(path)")
            }
        }
        guard !stale.isEmpty else {
            if options.flag("--check") { Console.output("the fixtures in \(directory) are the emulator's fingerprints") }
            return ExitStatus.success
        }
        for path in stale { Console.error("\(path) is not the emulator's fingerprint: run 'arculus-card probe fixtures'") }
        return ExitStatus.failure
    }

    /// `probe --emulate CARD.json`: the profile learned from the fingerprint (``ProfileLearning``),
    /// the battery against it, the diff.
    static func emulate(_ options: CommandLineOptions) throws -> Int32 {
        guard let path = options.value("--emulate") else { throw UsageError("--emulate wants a fingerprint file") }
        let card = try BadProbeInput.reading { () throws(FingerprintError) in try Fingerprint(path: path) }
        let rules = try rules(options)
        let learning = try ProfileLearning.learn(from: card, file: path)
        let (emulated, diff) = try compare(card, learning, path: path, rules: rules, timing: !options.flag("--no-timing"))
        if let output = options.value("--out") { try NewFile.replace(output, with: Array(emulated.text.utf8), mode: 0o644) }
        for line in learning.switches { Console.output("the emulator's profile sets \(DisplayText.escaped(line.line))") }
        for feature in learning.dropped { Console.output("the emulator's profile could not hold: \(DisplayText.escaped(feature))") }
        let report = DiffReport(diff: diff, labels: ("your card", "the emulator"), hint: { ProfileHint.hint(for: $0, learning: learning) })
        report.print(header: "your card (\(path)) against the emulator (profile \(learning.profile.name))")
        return diff.isEmpty ? ExitStatus.success : ExitStatus.failure
    }

    /// The battery against the emulator with the learned profile (and the card's PIN state; the
    /// writing part when the card's fingerprint has it), and the diff of the card against it.
    static func compare(_ card: Fingerprint, _ learning: ProfileLearning, path: String, rules: DiffRules,
                        timing: Bool) throws -> (Fingerprint, FingerprintDiff) {
        var (emulated, _) = try probeInProcess(learning.profile, pin: card.pinState, writes: card.battery.writes,
                                               timing: card.timing != nil && timing,
                                               source: "the emulator (in process), profile \(learning.profile.name) from \(path)")
        emulated.profile = ProfileNote(name: learning.profile.name, dropped: learning.dropped)
        let diff = try BadProbeInput.reading { () throws(FingerprintDiffError) in try FingerprintDiff(card, emulated, rules: rules) }
        return (emulated, diff)
    }
}
