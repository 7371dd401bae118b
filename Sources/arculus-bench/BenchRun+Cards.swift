#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArculusCard
import PCSC

/// The rows of serve's memory and of several cards busy at once.
extension BenchRun {
    static let memorySection = "serve's memory (resident size; private: the part no other process shares)"

    /// Serve's memory holding the 10,000-credential card (an image file), after a SELECT and a
    /// getInfo; nil (with a note) when it could not be measured.
    func fullCardMemory(_ context: PCSCContext, _ reader: VPCDReader, _ suite: PCSCSuite, directory: String) -> ProcessMemory? {
        let path = directory + "/serve-10k.img"
        defer { unlink(path) }
        do {
            unlink(path)
            var state = BenchCard.fullState()
            state.profile.name = "arculus-bench"
            state.profile.atr = suite.serveATR.hexString.uppercased()
            try CardImageFile(path: path).save(state)
            let process = try ChildProcess(path: suite.serveBinary, arguments: [
                "serve", "--card", path, "--no-control", "--vpcd", "127.0.0.1:\(reader.port)"], logPath: suite.logPath)
            defer { process.stop() }
            _ = try reader.waitPresent(context, process: process, atr: suite.serveATR, logPath: suite.logPath)
            let card = try reader.connect(context)
            _ = try card.transmit(Platform.select)
            _ = try PCSCSuite.timedRoundTrip(card, try Platform.nfcctapMessage(Platform.getInfo))
            let memory = ProcessMemory(pid: process.pid)
            try? card.disconnect()
            process.stop()
            _ = try reader.waitGone(context, atr: suite.serveATR, seconds: 5)
            return memory
        } catch {
            progress("serve's memory on the 10k-credential card not measured: \(error)")
            return nil
        }
    }

    mutating func addMemoryRows(_ results: PCSCSuite.Results, fullCard: ProcessMemory?) {
        let resident = Samples(results.serveMemory.map { Double($0.residentKiB) })
        let privately = Samples(results.serveMemory.map { Double($0.privateKiB) })
        guard !resident.isEmpty else { return }
        addMemoryRow("serve, a near-empty card in memory", resident: resident.median, private: privately.median)
        if let fullCard {
            addMemoryRow("serve, the 10,000-credential card (image file, 1,000 RPs)", resident: Double(fullCard.residentKiB),
                         private: Double(fullCard.privateKiB))
        }
    }

    private mutating func addMemoryRow(_ name: String, resident: Double, private privateKiB: Double, note: String = "") {
        let value = "\(ProcessMemory.megabytes(resident)) resident, \(ProcessMemory.megabytes(privateKiB)) private"
        report.rows.append(ReportRow(section: Self.memorySection, operation: name, card: "", storage: "", value: value,
                                     bound: note, boundValue: "", ratio: "", target: "", verdict: nil))
        report.readmeRows.append([name, "memory", value, note, "", "", "", "", "", "", "", ""])
    }

    mutating func addMultiCardRows(_ results: MultiCardSuite.Results, oneCard: PCSCSuite.Results) {
        for design in MultiCardSuite.Design.allCases {
            guard let rates = results.rates[design], let one = rates[1].map(Samples.init) else { continue }
            for count in results.counts {
                guard let measured = rates[count].map(Samples.init) else { continue }
                let ratios = measured.pairwise(one, /)
                let targeted = count == 2
                let verdict: Verdict? = targeted ? (ratios.median >= Self.twoCardsTarget ? .pass : .miss) : nil
                let name = "getAssertion, \(count) card\(count == 1 ? "" : "s") busy, \(design.rawValue)"
                let target = targeted ? String(format: "≥ %.1f × 1 card", Self.twoCardsTarget) : ""
                report.rows.append(ReportRow(
                    section: Self.multiSection, operation: name, card: "", storage: "", value: Format.rates(measured),
                    bound: count == 1 ? "" : "1 card busy, same design", boundValue: count == 1 ? "" : Format.rates(one),
                    ratio: count == 1 ? "" : Format.ratio(ratios), target: target, verdict: verdict))
                report.readmeRows.append([name, "pcscd + vpcd", Format.rates(measured), count == 1 ? "" : "1 card busy",
                                          count == 1 ? "" : Format.rates(one), count == 1 ? "" : Format.ratio(ratios),
                                          targeted ? String(format: "≥ %.1f", Self.twoCardsTarget) : "", verdict?.rawValue ?? "",
                                          "", "", "", ""])
            }
        }
        let cards = results.counts.last ?? 1
        guard cards > 1 else { return }
        let single = Samples(oneCard.serveMemory.map { Double($0.residentKiB) })
        if !single.isEmpty {
            let furtherResident = (Double(results.oneProcessMemory.residentKiB) - single.median) / Double(cards - 1)
            addMemoryRow("each further card in one serve (serve --cards \(cards), memory cards)", resident: furtherResident,
                         private: furtherResident, note: "(\(cards)-card serve − 1-card serve) ÷ \(cards - 1)")
        }
        let perCard = results.perCardMemory
        if !perCard.isEmpty {
            addMemoryRow("each further card as a serve of its own", resident: Double(perCard.map(\.residentKiB).reduce(0, +)) / Double(perCard.count),
                         private: Double(perCard.map(\.privateKiB).reduce(0, +)) / Double(perCard.count),
                         note: "what one more process costs: its private memory (its resident size counts the shared libraries)")
        }
        report.notes.append("several cards: each card has a client thread of its own in the benchmark (its own PC/SC context and exclusive connection) doing getAssertion round trips for the round's time; rounds of 1, 2 and 4 busy cards interleave; the ratio is the aggregate rate over 1 card's, per round")
    }
}
