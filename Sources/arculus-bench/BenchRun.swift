#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// One benchmark run: sets up the cards, runs the suites in order and turns their samples into
/// the report.
struct BenchRun {
    let options: BenchOptions
    var report = Report()
    /// In-process seconds per operation (near-empty card, memory), by operation name: what the
    /// card itself spends of a pcscd round trip.
    var inProcessSeconds: [String: Double] = [:]

    /// The targets (medians of one run).
    static let cardGrowthLimit = 1.5
    /// getInfo through pcscd: time ≤ this × the minimal responder's.
    static let pcscGetInfoLimit = 1.1
    /// Through pcscd: serve's round trip − the responder's ≤ the card's own time in process + this.
    static let bridgeAllowance = 10e-6
    static let serveStartLimit = 0.5
    /// Two cards busy at once: ≥ this × the throughput of one.
    static let twoCardsTarget = 1.8

    init(options: BenchOptions) {
        self.options = options
    }

    /// Progress goes to stderr, so that stdout is only the report.
    func progress(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    mutating func run() throws {
        let started = monotonicNanoseconds()
        mkdir(options.directory, 0o755)
        let directory = options.directory.hasPrefix("/")
            ? options.directory : FileManager.default.currentDirectoryPath + "/" + options.directory
        let plan = RoundPlan(rounds: options.rounds, seconds: options.seconds, minimumOperations: 3)
        report.environment = environmentLines(directory: directory, shown: options.directory)
        for line in report.environment { progress(line) }

        progress("building the cards (near-empty and \(Format.grouped(BenchCard.fullCredentialCount)) credentials, memory and image file)…")
        var cards: [BenchCard] = []
        for storage in BenchCard.Storage.allCases where options.storage.map({ $0 == "file" ? storage == .file : storage == .memory }) ?? true {
            for size in BenchCard.Size.allCases {
                let start = monotonicNanoseconds()
                cards.append(try BenchCard(size: size, storage: storage, directory: directory))
                if size == .full {
                    let seconds = Double(monotonicNanoseconds() - start) / 1e9
                    var size = stat()
                    let imageSize = storage == .file && stat("\(directory)/full.img", &size) == 0
                        ? ", image \(Format.rate(Double(size.st_size) / 1e6)) MB" : ""
                    report.notes.append("the 10k-credential card (\(storage.rawValue)) was built, saved and opened in \(String(format: "%.2f", seconds)) s\(imageSize)")
                }
            }
        }
        let probe = try JournalAppendProbe(directory: directory)

        if options.only == nil && !options.pcscOnly {
            progress("CardCrypto primitives…")
            var primitiveRows: [[String]] = []
            for (name, rates) in try PrimitivesSuite(plan: plan).run() {
                primitiveRows.append([name, Format.rates(rates)])
                report.rows.append(ReportRow(section: "CardCrypto primitives (OpenSSL through CardCrypto; context, no targets)",
                                             operation: name, card: "", storage: "", value: Format.rates(rates),
                                             bound: "", boundValue: "", ratio: "", target: "", verdict: nil))
            }
            report.readmeExtras.append((title: "CardCrypto primitives (context for the bounds):",
                                        header: ["operation", "ops/s (median [min–max])"], rows: primitiveRows))
        }

        progress("in-process rows (\(plan.rounds) rounds × \(plan.seconds) s, round-robin with their bounds):")
        let operations = try InProcessSuite(plan: plan, cards: cards, probe: probe, progress: progress,
                                            only: options.pcscOnly ? "as APDUs" : options.only).run()
        addInProcessRows(operations)
        cards.removeAll()
        for name in ["near-empty.img", "full.img"] {
            unlink("\(directory)/\(name)")
        }

        if options.only != nil { return }
        if !options.pcscOnly {
            try runReplay(plan: plan)
        }
        if options.skipPCSC {
            report.notes.append("pcscd rows skipped (--no-pcsc)")
        } else {
            runPCSC(directory: directory)
        }
        report.environment.append("whole run: \(String(format: "%.0f", Double(monotonicNanoseconds() - started) / 1e9)) s; load average at the end \(Self.loadAverage())")
    }

    private mutating func runReplay(plan: RoundPlan) throws {
        progress("transcript replay…")
        let replay = try ReplaySuite(plan: plan).run()
        report.rows.append(ReportRow(
            section: "Transcript replay (APDUs/s)", operation: "TranscriptReplay, byte-exact, \(replay.apduCount)-APDU seeded session",
            card: "seeded", storage: "memory", value: Format.rates(replay.engine, unit: " APDUs/s"),
            bound: "same APDUs straight through VirtualCard.transmit", boundValue: Format.rates(replay.direct, unit: " APDUs/s"),
            ratio: Format.ratio(replay.engine.pairwise(replay.direct, /)), target: "", verdict: nil))
        report.readmeRows.append([
            "transcript replay (TranscriptReplay, byte-exact, \(replay.apduCount) APDUs)", "memory",
            Format.rates(replay.engine, unit: " APDUs/s"), "same APDUs through VirtualCard.transmit alone",
            Format.rates(replay.direct, unit: " APDUs/s"), Format.ratio(replay.engine.pairwise(replay.direct, /)), "", "", "", "", "", "",
        ])
        report.notes.append("replay: the benchmark records a \(replay.apduCount)-APDU session of a seeded card (SELECT, getInfo, PIN set + tokens, 3 discoverable + 4 non-discoverable registrations, 28 + 3 assertions with getNextAssertion, U2F register + 4 authenticates; GET RESPONSE chains) as a Transcript, writes and re-parses its text, and replays it with Sources/Transcript's TranscriptReplay (a new card from the headers per replay, every response compared byte for byte); the bound feeds the same commands straight to a fresh seeded card. Seeded cards sign with RFC 6979 nonces computed with OpenSSL BIGNUMs, slower than OpenSSL's own ECDSA (see the primitives)")
    }

    // MARK: - In-process rows

    private mutating func addInProcessRows(_ results: [OperationResult]) {
        let section = "In-process (ops/s; bound = OpenSSL via CardCrypto, measured round-robin in the same run)"
        for result in results {
            let spec = result.spec
            for (size, storage, rates) in result.cards {
                var row = ReportRow(section: section, operation: spec.name, card: size.rawValue, storage: storage.rawValue,
                                    value: Format.rates(rates), bound: "—", boundValue: "", ratio: "", target: "", verdict: nil)
                if let bound = result.bound(for: storage) {
                    row.bound = Self.boundName(spec, storage: storage)
                    row.boundValue = Format.rates(bound)
                    let ratios = rates.pairwise(bound, /)
                    row.ratio = Format.ratio(ratios)
                    if let target = spec.boundTarget(for: storage) {
                        row.target = String(format: "≥ %.2f × bound", target)
                        row.verdict = ratios.median >= target ? .pass : .miss
                    }
                }
                report.rows.append(row)
            }
        }

        let growth = "10,000 credentials over 1,000 RPs vs near-empty (time per op, 10k ÷ near-empty)"
        for result in results {
            for storage in BenchCard.Storage.allCases {
                guard let empty = result.rates(.nearEmpty, storage), let full = result.rates(.full, storage) else { continue }
                let ratios = empty.pairwise(full, /)
                report.rows.append(ReportRow(
                    section: growth, operation: result.spec.name, card: "10k ÷ near-empty", storage: storage.rawValue,
                    value: Format.rates(full), bound: "near-empty card", boundValue: Format.rates(empty),
                    ratio: Format.ratio(ratios), target: String(format: "≤ %.1f × time", Self.cardGrowthLimit),
                    verdict: ratios.median <= Self.cardGrowthLimit ? .pass : .miss))
            }
        }

        let fileSection = "Image file vs memory (ops/s, file ÷ memory)"
        for result in results {
            guard let target = result.spec.fileVsMemoryTarget else { continue }
            for size in BenchCard.Size.allCases {
                guard let memory = result.rates(size, .memory), let file = result.rates(size, .file) else { continue }
                let ratios = file.pairwise(memory, /)
                let verdict: Verdict = ratios.median >= target ? .pass : .miss
                report.rows.append(ReportRow(
                    section: fileSection, operation: result.spec.name, card: size.rawValue, storage: "file ÷ memory",
                    value: Format.rates(file), bound: "same card in memory", boundValue: Format.rates(memory),
                    ratio: Format.ratio(ratios), target: String(format: "≥ %.2f × memory", target), verdict: verdict))
                if size == .nearEmpty {
                    report.readmeRows.append([result.spec.name, "image file ÷ memory", Format.rates(file), "same card in memory",
                                              Format.rates(memory), Format.ratio(ratios), String(format: "≥ %.2f", target),
                                              verdict.rawValue, "", "", "", ""])
                }
            }
        }

        let durability = "Cost of durability (µs per op: image file − memory; fdatasync'ed journal appends)"
        for result in results where result.spec.journalWrites > 0 {
            guard let fsync = result.fsync else { continue }
            for size in BenchCard.Size.allCases {
                guard let memory = result.rates(size, .memory), let file = result.rates(size, .file) else { continue }
                let extra = memory.pairwise(file) { 1 / $1 - 1 / $0 }
                let floor = fsync.map { Double(result.spec.journalWrites) / $0 }
                report.rows.append(ReportRow(
                    section: durability, operation: result.spec.name, card: size.rawValue, storage: "file − memory",
                    value: Format.durations(extra), bound: "\(result.spec.journalWrites) × append+fdatasync",
                    boundValue: Format.durations(floor), ratio: Format.ratio(extra.pairwise(floor, /)),
                    target: "", verdict: nil))
            }
        }

        for result in results {
            if let rates = result.rates(.nearEmpty, .memory) { inProcessSeconds[result.spec.name] = 1 / rates.median }
            for storage in BenchCard.Storage.allCases {
                guard let empty = result.rates(.nearEmpty, storage) else { continue }
                var cells = [result.spec.name, storage.rawValue, Format.rates(empty), "—", "", "", "", ""]
                if let bound = result.bound(for: storage) {
                    let ratios = empty.pairwise(bound, /)
                    cells[3] = Self.boundName(result.spec, storage: storage)
                    cells[4] = Format.rates(bound)
                    cells[5] = Format.ratio(ratios)
                    if let target = result.spec.boundTarget(for: storage) {
                        cells[6] = String(format: "≥ %.2f", target)
                        cells[7] = (ratios.median >= target ? Verdict.pass : .miss).rawValue
                    }
                }
                if let full = result.rates(.full, storage) {
                    let growth = empty.pairwise(full, /)
                    cells += [Format.rates(full), Format.ratio(growth), String(format: "≤ %.1f", Self.cardGrowthLimit),
                              (growth.median <= Self.cardGrowthLimit ? Verdict.pass : .miss).rawValue]
                } else {
                    cells += ["", "", "", ""]
                }
                report.readmeRows.append(cells)
            }
        }

        var described: Set<String> = []
        for result in results {
            guard let text = result.spec.boundDescription, !described.contains(text) else { continue }
            described.insert(text)
            let users = results.filter { $0.spec.boundDescription == text }.map(\.spec.name)
            report.notes.append("bound of \(users.joined(separator: "; ")): \(text); on an image file, plus the measured append (\(JournalAppendProbe.recordLength) bytes) + fdatasync per journal write (times add)")
        }
        if let fsync = results.first(where: { $0.fsync != nil })?.fsync {
            report.notes.append("one \(JournalAppendProbe.recordLength)-byte append + fdatasync on this disk: \(Format.durations(fsync.map { 1 / $0 })) (first operation's rounds); getPinUvAuthToken writes twice (retries decremented before the PIN check, then restored)")
        }
    }

    private static func boundName(_ spec: OperationSpec, storage: BenchCard.Storage) -> String {
        var name: String
        switch spec.boundDescription {
        case Bounds.makeCredentialText?: name = "keygen + ECDSA sign"
        case Bounds.tokenText?: name = "ECDH"
        default: name = "ECDSA sign"
        }
        if storage == .file && spec.journalWrites > 0 {
            name += spec.journalWrites == 1 ? " + fdatasync" : " + \(spec.journalWrites) × fdatasync"
        }
        return name
    }

    // MARK: - Environment

    /// `shown` names the image directory as the user gave it (relative to the working directory,
    /// so the README table names no path of the machine it ran on).
    private func environmentLines(directory: String, shown: String) -> [String] {
        var name = utsname()
        uname(&name)
        let machine = withUnsafeBytes(of: name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        let cpuinfo = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)) ?? ""
        let model = cpuinfo.split(separator: "\n").first { $0.hasPrefix("model name") }
            .map { $0.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" } ?? "unknown CPU"
        let cores = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        let date = ISO8601DateFormatter().string(from: Date())
        return [
            "arculus-bench \(options.quick ? "--quick " : "")on \(date): \(machine), \(model), \(cores) cores; load average at the start \(Self.loadAverage())",
            "\(options.rounds) rounds per row (median [min–max]); in-process rounds \(options.seconds) s, pcscd rounds \(options.pcscSeconds) s; card images in \(shown) (\(JournalAppendProbe.fileSystem(of: directory)))",
        ]
    }

    static func loadAverage() -> String {
        let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
        return text.split(separator: " ").prefix(3).joined(separator: " ")
    }
}
