import CardProbe
import FIDOWire

/// A fingerprint diff as `probe diff` and `probe --emulate` print it: one line per difference,
/// its path in brackets, an optional hint under it, then what the rules accepted and what was
/// not compared.
struct DiffReport {
    let diff: FingerprintDiff
    let labels: (String, String)
    /// A line to print under a difference (which profile field would express it), or nil.
    var hint: (Difference) -> String? = { _ in nil }

    func print(header: String) {
        let count = diff.differences.count
        Console.output("\(header): " + (count == 0 ? "no differences" : "\(count) difference\(count == 1 ? "" : "s")"))
        for difference in diff.differences {
            Console.output("- \(difference.sentence(labels))  [\(DisplayText.escaped(difference.path))]")
            if let line = hint(difference) { Console.output("    \(DisplayText.escaped(line))") }
        }
        if !diff.accepted.isEmpty {
            let shown = diff.accepted.map(\.path).prefix(3).joined(separator: ", ") + (diff.accepted.count > 3 ? ", …" : "")
            Console.output("accepted by the rules: \(diff.accepted.count) (\(DisplayText.escaped(shown)))")
        }
        for note in diff.notCompared { Console.output("not compared: \(DisplayText.escaped(note))") }
    }
}
