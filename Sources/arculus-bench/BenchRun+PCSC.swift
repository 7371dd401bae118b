#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArculusCard
import Foundation
import PCSC

/// The rows through pcscd: round trips beside the minimal responder, serve's start-up and
/// memory, several cards busy at once.
extension BenchRun {
    static let pcscSection = "Through pcscd + vpcd (Swift PCSC client; median µs per round trip in each round)"
    static let multiSection = "Several cards busy at once through pcscd (getAssertion round trips/s, all cards together)"

    mutating func runPCSC(directory: String) {
        let serveBinary = options.serveBinary
            ?? (ChildProcess.currentExecutable as NSString).deletingLastPathComponent + "/arculus-card"
        let plan = RoundPlan(rounds: options.rounds, seconds: options.pcscSeconds, minimumOperations: 3)
        let logPath = directory + "/pcsc-processes.log"
        let context: PCSCContext
        let readers: [VPCDReader]
        do {
            context = try PCSCContext()
            readers = try VPCDReader.available(in: context)
        } catch {
            skipPCSC("pcscd is not reachable: \(error)")
            return
        }
        let reader = VPCDReader.slot(options.slot, port: options.vpcdPort, among: readers)
        guard readers.contains(reader) || (try? context.readers().contains(reader.name)) == true else {
            skipPCSC("pcscd has no reader '\(reader.name)' (vpcd readers: \(readers.isEmpty ? "none" : readers.map(\.name).joined(separator: ", "))); is vsmartcard-vpcd installed?")
            return
        }
        let others = readers.filter { $0 != reader && (try? $0.waitEmpty(context, seconds: 0.2)) == true }
        progress("through pcscd + vpcd ('\(reader.name)'; serve and the minimal responder \(others.isEmpty ? "take turns" : "at once, the responder on '\(others[0].name)'")):")
        var suite = PCSCSuite(reader: reader, responderReader: others.first, plan: plan, serveBinary: serveBinary,
                              logPath: logPath, progress: progress)
        let results: PCSCSuite.Results
        switch suite.run(context) {
        case .success(let measured):
            results = measured
            addPCSCRows(results)
            addMemoryRows(results, fullCard: fullCardMemory(context, reader, suite, directory: directory))
            runPage(suite, context)
        case .failure(let error):
            skipPCSC(error.description)
            return
        }

        // The longest run of free readers on consecutive ports, up to four.
        let free = readers.filter { (try? $0.waitEmpty(context, seconds: 0.2)) == true }
        var run: [VPCDReader] = []
        for candidate in free where run.count < 4 {
            if let last = run.last, last.port + 1 != candidate.port { run = [] }
            run.append(candidate)
            if run.count == 4 { break }
        }
        guard run.count >= 2 else {
            report.notes.append("several cards at once: SKIPPED, it needs two free vpcd readers on consecutive ports (\(free.count) free); `./setup.sh --readers 4` or `VPCD_READERS=4 Tests/isolated.sh ./bench.sh`")
            return
        }
        progress("several cards busy at once (\(run.map(\.name).joined(separator: ", "))):")
        do {
            let multi = try MultiCardSuite(readers: run, plan: plan, serveBinary: serveBinary, logPath: logPath,
                                           profilePath: suite.profilePath, atr: suite.serveATR, progress: progress).run()
            addMultiCardRows(multi, oneCard: results)
        } catch {
            report.notes.append("several cards at once: SKIPPED: \(error)")
        }
    }

    private mutating func skipPCSC(_ reason: String) {
        progress("pcscd rows skipped: \(reason)")
        report.notes.append("pcscd rows SKIPPED: \(reason)")
        for name in ["getInfo round trip", "getAssertion round trip", "serve start → card present"] {
            report.rows.append(ReportRow(section: Self.pcscSection, operation: name, card: "", storage: "", value: "skipped",
                                         bound: "", boundValue: "", ratio: "", target: "", verdict: .skipped))
            report.readmeRows.append([name, "pcscd + vpcd", "skipped (see notes)", "", "", "", "", "SKIP", "", "", "", ""])
        }
    }

    // MARK: - Round trips

    private mutating func addPCSCRows(_ results: PCSCSuite.Results) {
        let pairs: [(String, [Double], [Double], Int, String)] = [
            ("getInfo round trip (NFCCTAP_MSG)", results.cardGetInfo, results.responderGetInfo, results.getInfoBytes,
             "getInfo as APDUs (NFCCTAP_MSG via VirtualCard.transmit)"),
            ("getAssertion round trip (NFCCTAP_MSG, allowList of 1)", results.cardGetAssertion, results.responderGetAssertion,
             results.getAssertionBytes, "getAssertion as APDUs (NFCCTAP_MSG via VirtualCard.transmit)"),
        ]
        let storage = results.responderReader.map { "'\(results.reader)'; responder on '\($0)' at once" } ?? "'\(results.reader)', in turn"
        for (name, card, responder, bytes, inProcessName) in pairs {
            let cardSamples = Samples(card), responderSamples = Samples(responder)
            let ratios = cardSamples.pairwise(responderSamples, /)
            let isGetInfo = name.hasPrefix("getInfo")
            let ratioVerdict: Verdict? = isGetInfo ? (ratios.median <= Self.pcscGetInfoLimit ? .pass : .miss) : nil
            let ratioTarget = isGetInfo ? String(format: "≤ %.1f × time", Self.pcscGetInfoLimit) : ""
            report.rows.append(ReportRow(
                section: Self.pcscSection, operation: "\(name), \(bytes)-byte answer", card: "arculus-card serve", storage: storage,
                value: Format.durations(cardSamples), bound: "minimal responder, same answer",
                boundValue: Format.durations(responderSamples), ratio: Format.ratio(ratios), target: ratioTarget, verdict: ratioVerdict))
            report.readmeRows.append([
                "\(name), \(bytes)-byte answer", "pcscd + vpcd (µs per round trip)", Format.durations(cardSamples),
                "minimal responder, same answer", Format.durations(responderSamples), Format.ratio(ratios),
                isGetInfo ? String(format: "≤ %.1f (time)", Self.pcscGetInfoLimit) : "", ratioVerdict?.rawValue ?? "", "", "", "", "",
            ])
            guard let own = inProcessSeconds[inProcessName] else { continue }
            let difference = cardSamples.pairwise(responderSamples, -)
            let limit = own + Self.bridgeAllowance
            let verdict: Verdict = difference.median <= limit ? .pass : .miss
            func micro(_ seconds: Double) -> String { String(format: "%.0f µs", seconds * 1e6) }
            report.rows.append(ReportRow(
                section: Self.pcscSection, operation: "\(name): serve − responder", card: "arculus-card serve", storage: storage,
                value: Format.durations(difference), bound: "card's own time in process (\(inProcessName))",
                boundValue: micro(own), ratio: String(format: "%+.0f µs", (difference.median - own) * 1e6),
                target: "≤ own + \(micro(Self.bridgeAllowance))", verdict: verdict))
            report.readmeRows.append([
                "\(name): serve − responder", "pcscd + vpcd (µs per round trip)", Format.durations(difference),
                "card's own time in process + 10 µs", micro(limit), String(format: "bridge %+.0f µs", (difference.median - own) * 1e6),
                "≤ own + 10 µs", verdict.rawValue, "", "", "", "",
            ])
            var note = "\(name): serve − responder = \(micro(difference.median)) per round trip (median of the rounds' differences); the card's own work, in process (\(inProcessName), near-empty card, memory), is \(micro(own)) of it, the vpcd bridge and scheduling the other \(micro(difference.median - own))"
            if !isGetInfo, let cold = inProcessSeconds[InProcessSuite.coldAssertionName] {
                note += "; with every cache emptied before each operation, as when serve wakes for an APDU, the same work takes \(micro(cold)) in process (\(InProcessSuite.coldAssertionName))"
            }
            report.notes.append(note)
        }
        let serve = Samples(results.serveStart), responder = Samples(results.responderStart)
        if results.contendedStarts > 0 {
            report.notes.append("\(results.contendedStarts) start(s) not counted: another process's card (another ATR) was in the reader while ours waited, so the wait measured that card's stay; the reader is shared with something else on this machine")
        }
        // Starts are independent (a random moment of pcscd's poll period each), and some may not
        // have counted: compare medians, not rounds.
        let startRatio = String(format: "%.2f", serve.median / responder.median)
        let startVerdict: Verdict = serve.isEmpty ? .skipped : serve.median < Self.serveStartLimit ? .pass : .miss
        report.rows.append(ReportRow(
            section: Self.pcscSection, operation: "serve start → card present (SCardGetStatusChange)", card: "arculus-card serve",
            storage: "memory", value: Format.durations(serve, milliseconds: true), bound: "minimal responder start → present",
            boundValue: Format.durations(responder, milliseconds: true), ratio: startRatio,
            target: String(format: "< %.0f ms", Self.serveStartLimit * 1000), verdict: startVerdict))
        report.readmeRows.append([
            "arculus-card serve: start → card present", "pcscd + vpcd", Format.durations(serve, milliseconds: true),
            "minimal responder: start → present", Format.durations(responder, milliseconds: true), startRatio,
            String(format: "< %.0f ms", Self.serveStartLimit * 1000), startVerdict.rawValue, "", "", "", "",
        ])
        let pairing = results.responderReader.map {
            "serve on '\(results.reader)' and the responder on '\($0)' at once, their round trips alternating APDU by APDU (so each pair sees the same machine load)"
        } ?? "serve and responder taking turns on '\(results.reader)', a round each (no second free reader: with one, both run at once)"
        report.notes.append("pcscd rows: \(results.cardGetInfo.count) rounds, \(pairing), each process started at a random moment of pcscd's 0.4 s presence poll; the responder (arculus-bench --responder) answers with the card's own answers, byte for byte, so only the card's work differs; pcscd notices a new card on its presence poll (vpcd get-ATR, about every 0.4 s), which bounds start → present from below")
    }
}
