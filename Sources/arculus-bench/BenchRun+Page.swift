import PCSC

/// The card page's rows: PC/SC getAssertion round trips per second with `serve --ui`, with no
/// page open and with one open, each beside the same run without `--ui`.
extension BenchRun {
    static let pageSection = "The card page (serve --ui) through pcscd + vpcd (getAssertion round trips/s)"
    /// With `--ui` and no page open the card must keep this share of its rate (at most 5 % off:
    /// the rounds' own spread on a shared machine).
    static let pageIdleLimit = 0.95

    mutating func runPage(_ suite: PCSCSuite, _ context: PCSCContext) {
        progress("the card page (serve --ui), same reader:")
        switch suite.runPage(context) {
        case .success(let results): addPageRows(results)
        case .failure(let error): report.notes.append("card page rows SKIPPED: \(error)")
        }
    }

    private mutating func addPageRows(_ results: PCSCSuite.PageResults) {
        let plain = Samples(results.plain)
        for (name, rates, limit) in [("getAssertion, serve --ui, no page open", results.idle, Optional(Self.pageIdleLimit)),
                                     ("getAssertion, serve --ui, one page open (event stream)", results.watched, nil)] {
            let samples = Samples(rates)
            let ratios = samples.pairwise(plain, /)
            let verdict: Verdict? = limit.map { ratios.median >= $0 ? .pass : .miss }
            let target = limit.map { String(format: "≥ %.2f × rate", $0) } ?? "measured"
            report.rows.append(ReportRow(
                section: Self.pageSection, operation: name, card: "arculus-card serve --ui", storage: "memory",
                value: Format.rates(samples), bound: "same, serve without --ui", boundValue: Format.rates(plain),
                ratio: Format.ratio(ratios), target: target, verdict: verdict))
            report.readmeRows.append([name, "pcscd + vpcd (round trips/s)", Format.rates(samples), "same, serve without --ui",
                                      Format.rates(plain), Format.ratio(ratios), limit.map { String(format: "≥ %.2f (rate)", $0) } ?? "",
                                      verdict?.rawValue ?? "", "", "", "", ""])
        }
        let bytes = Samples(results.streamBytes.map(Double.init)).median
        report.notes.append("card page rows: \(results.plain.count) rounds, each starting serve without --ui, with --ui and no page, and with --ui and one event-stream client (what an open page holds: every trace row and state push, \(Int(bytes)) bytes in a round's median), taking turns on one reader in an order rotating per round; the ratios are each round's rate over the same round's rate without --ui")
    }
}
