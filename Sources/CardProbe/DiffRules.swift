/// The differences a team accepts between its card and the emulator: a rules file for
/// ``FingerprintDiff``. One rule a line; `#` starts a comment:
///
/// ```
/// ignore probes/write.makeCredential*/answer/body/attStmt   # our attestation root, not the vendor's
/// ignore card/atr
/// timing * ratio 3 slack 20          # round trips within 3× or 20 ms of each other are the same
/// timing getAssertion* ratio 1.5
/// ignore timing                      # or: timing is not compared at all
/// ```
///
/// `ignore PATH` accepts every difference at PATH or below it; a path is what the diff prints in
/// brackets, and `*` matches any run of characters, `?` one. `timing KIND ratio R [slack MS]`
/// accepts round trips of kinds matching KIND whose slower median and 90th percentile are at most
/// R times the faster, or MS milliseconds apart; the first matching rule counts. Without one, the
/// default is `timing * ratio 2 slack 20`.
public struct DiffRules: Equatable, Sendable {
    /// Tolerance for one timing kind.
    public struct TimingTolerance: Equatable, Sendable {
        public var kinds: String
        public var ratio: Double
        public var slackMilliseconds: Double

        public init(kinds: String, ratio: Double, slackMilliseconds: Double) {
            self.kinds = kinds
            self.ratio = ratio
            self.slackMilliseconds = slackMilliseconds
        }

        /// Whether two round-trip times (ms) are within the tolerance.
        func accepts(_ a: Double, _ b: Double) -> Bool {
            abs(a - b) <= slackMilliseconds || max(a, b) <= ratio * min(a, b)
        }
    }

    /// Paths under which differences are accepted.
    public var ignored: [String] = []
    /// Timing tolerances, first match wins; ``defaultTiming`` after them.
    public var timing: [TimingTolerance] = []

    /// The tolerance for timing kinds no rule names.
    public static let defaultTiming = TimingTolerance(kinds: "*", ratio: 2, slackMilliseconds: 20)

    /// No rules: every difference counts, timing within the default tolerance.
    public init() {}

    /// Reads a rules file's text; `name` is how errors name it.
    public init(text: String, name: String) throws(DiffRulesError) {
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard let verb = words.first else { continue }
            let number = index + 1
            switch verb {
            case "ignore" where words.count == 2:
                ignored.append(words[1])
            case "timing" where words.count >= 4 && words[2] == "ratio":
                guard let ratio = Double(words[3]), ratio >= 1 else {
                    throw .bad(file: name, line: number, "the ratio is a number of at least 1, not '\(words[3])'")
                }
                var slack = 0.0
                if words.count == 6, words[4] == "slack", let value = Double(words[5]), value >= 0 {
                    slack = value
                } else if words.count != 4 {
                    throw .bad(file: name, line: number, "expected 'timing KIND ratio R [slack MS]'")
                }
                timing.append(TimingTolerance(kinds: words[1], ratio: ratio, slackMilliseconds: slack))
            default:
                throw .bad(file: name, line: number, "expected 'ignore PATH' or 'timing KIND ratio R [slack MS]', not '\(line.trimmingCharacters())'")
            }
        }
    }

    /// Whether a difference at `path` is accepted by an `ignore` rule.
    public func ignores(_ path: String) -> Bool {
        let components = path.split(separator: "/").map(String.init)
        let prefixes = components.indices.map { components[...$0].joined(separator: "/") }
        return ignored.contains { glob in prefixes.contains { Glob.matches(glob, $0) } }
    }

    /// The tolerance for timing kind `kind`.
    public func tolerance(for kind: String) -> TimingTolerance {
        timing.first { Glob.matches($0.kinds, kind) } ?? Self.defaultTiming
    }
}

/// A rules file that cannot be read.
public enum DiffRulesError: Error, Equatable, Sendable, CustomStringConvertible {
    case bad(file: String, line: Int, String)

    public var description: String {
        switch self {
        case .bad(let file, let line, let reason): "\(file):\(line): \(reason)"
        }
    }
}

/// `*` (any run of characters) and `?` (one) patterns.
enum Glob {
    static func matches(_ pattern: String, _ text: String) -> Bool {
        matches(Array(pattern), Array(text))
    }

    private static func matches(_ pattern: [Character], _ text: [Character]) -> Bool {
        var p = 0, t = 0, star = -1, mark = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == "?" || pattern[p] == text[t] {
                p += 1
                t += 1
            } else if p < pattern.count, pattern[p] == "*" {
                star = p
                mark = t
                p += 1
            } else if star >= 0 {
                p = star + 1
                mark += 1
                t = mark
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == "*" { p += 1 }
        return p == pattern.count
    }
}

extension Substring {
    func trimmingCharacters() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
