import Foundation

/// PASS or MISS beside a target.
enum Verdict: String {
    case pass = "PASS"
    case miss = "MISS"
    case skipped = "SKIP"
}

/// One line of the results table (text and markdown share it).
struct ReportRow {
    var section: String
    var operation: String
    var card: String
    var storage: String
    /// The measured value, median [min–max].
    var value: String
    var bound: String
    var boundValue: String
    var ratio: String
    var target: String
    var verdict: Verdict?
}

/// The whole report: environment, rows, notes.
struct Report {
    var environment: [String] = []
    var rows: [ReportRow] = []
    var notes: [String] = []

    /// Aligned text, one block per section.
    var text: String {
        var lines = environment
        let headers = ["operation", "card", "storage", "measured", "bound", "bound value", "ratio", "target", ""]
        var sections: [String] = []
        for row in rows where !sections.contains(row.section) { sections.append(row.section) }
        for section in sections {
            let sectionRows = rows.filter { $0.section == section }
            let cells = [headers] + sectionRows.map(Self.cells)
            var widths = Array(repeating: 0, count: headers.count)
            for line in cells { for (index, cell) in line.enumerated() { widths[index] = max(widths[index], cell.count) } }
            lines.append("")
            lines.append(section)
            for line in cells {
                let padded = line.enumerated().map { index, cell in
                    cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                }
                lines.append("  " + padded.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
            }
        }
        if !notes.isEmpty {
            lines.append("")
            lines.append(contentsOf: notes)
        }
        let verdicts = rows.compactMap(\.verdict)
        lines.append("")
        lines.append("targets: \(verdicts.filter { $0 == .pass }.count) PASS, \(verdicts.filter { $0 == .miss }.count) MISS"
                     + (verdicts.contains(.skipped) ? ", \(verdicts.filter { $0 == .skipped }.count) SKIP" : ""))
        return lines.joined(separator: "\n") + "\n"
    }

    /// The README's table: one row per operation and storage, with its bound and the
    /// 10k-credential card side by side (see `BenchRun.readmeRows`).
    var readmeRows: [[String]] = []
    static let readmeHeader = ["operation", "storage", "near-empty card (median [min–max])", "bound", "bound value", "ratio",
                               "target", "", "10k-credential card", "10k ÷ near-empty (time)", "target", ""]
    /// Small extra tables (title, header, rows) after the main one.
    var readmeExtras: [(title: String, header: [String], rows: [[String]])] = []

    /// The markdown for the README: date and machine, the results table, notes.
    var markdown: String {
        var lines = environment.map { "> " + $0 }
        lines.append("")
        lines += Self.table(Self.readmeHeader, readmeRows)
        for extra in readmeExtras {
            lines.append("")
            lines.append(extra.title)
            lines.append("")
            lines += Self.table(extra.header, extra.rows)
        }
        let verdicts = rows.compactMap(\.verdict)
        lines.append("")
        lines.append("Targets: \(verdicts.filter { $0 == .pass }.count) PASS, \(verdicts.filter { $0 == .miss }.count) MISS"
                     + (verdicts.contains(.skipped) ? ", \(verdicts.filter { $0 == .skipped }.count) SKIP" : "")
                     + " (every row of the detailed text report, `./bench.sh`, counted).")
        if !notes.isEmpty {
            lines.append("")
            lines.append(contentsOf: notes.map { "- " + $0 })
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func table(_ header: [String], _ rows: [[String]]) -> [String] {
        func line(_ cells: [String]) -> String {
            "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
        }
        return [line(header), line(header.map { _ in "---" })] + rows.map(line)
    }

    private static func cells(_ row: ReportRow) -> [String] {
        [row.operation, row.card, row.storage, row.value, row.bound, row.boundValue, row.ratio, row.target,
         row.verdict?.rawValue ?? ""]
    }
}

/// Number formatting for the report.
enum Format {
    /// 12,345 — three significant digits at most below 1,000.
    static func rate(_ value: Double) -> String {
        guard value.isFinite else { return "—" }
        if value >= 1000 { return grouped(Int(value.rounded())) }
        if value >= 100 { return String(format: "%.0f", value) }
        if value >= 10 { return String(format: "%.1f", value) }
        return String(format: "%.2f", value)
    }

    static func grouped(_ value: Int) -> String {
        let digits = String(value)
        var out = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(character)
        }
        return out
    }

    /// `median [min–max]` of rates, with a unit suffix.
    static func rates(_ samples: Samples, unit: String = "/s") -> String {
        "\(rate(samples.median))\(unit) [\(rate(samples.minimum))–\(rate(samples.maximum))]"
    }

    /// `median [min–max]` of durations given in seconds, shown in µs or ms.
    static func durations(_ samples: Samples, milliseconds: Bool = false) -> String {
        let scale = milliseconds ? 1e3 : 1e6
        let unit = milliseconds ? " ms" : " µs"
        return "\(rate(samples.median * scale))\(unit) [\(rate(samples.minimum * scale))–\(rate(samples.maximum * scale))]"
    }

    static func ratio(_ samples: Samples) -> String {
        String(format: "%.2f [%.2f–%.2f]", samples.median, samples.minimum, samples.maximum)
    }
}
