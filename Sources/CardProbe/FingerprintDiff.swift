import JSONSupport

/// The structural difference of two fingerprints, entry by entry, in the user's terms: an
/// entry whose status differs is one difference ("answers X, Y"); an entry with the same status
/// differs in its fields ("getInfo, versions: …"); timing differs beyond the rules' tolerance.
///
/// ```swift
/// let diff = try FingerprintDiff(card, emulator, rules: rules)
/// for difference in diff.differences { print(difference.sentence(("your card", "the emulator"))) }
/// ```
public struct FingerprintDiff: Equatable, Sendable {
    /// The differences the rules do not accept.
    public private(set) var differences: [Difference] = []
    /// The differences the rules accept.
    public private(set) var accepted: [Difference] = []
    /// What was not compared, in words (the writing part when only one side ran it, timing when
    /// one side has none).
    public private(set) var notCompared: [String] = []

    /// Whether nothing differs (accepted differences aside).
    public var isEmpty: Bool { differences.isEmpty }

    /// Compares `left` with `right` under `rules`.
    ///
    /// - Throws: ``FingerprintDiffError`` when the two come from different batteries.
    public init(_ left: Fingerprint, _ right: Fingerprint, rules: DiffRules = DiffRules()) throws(FingerprintDiffError) {
        guard left.battery.version == right.battery.version else {
            throw .differentBatteries(left.battery.version, right.battery.version)
        }
        var found: [Difference] = []
        if left.atr != right.atr {
            found.append(Difference(kind: .card, path: "card/atr", subject: "the ATR", field: "", left: left.atr, right: right.atr))
        }
        let writesOnOneSide = left.battery.writes != right.battery.writes
        if writesOnOneSide {
            notCompared.append("the writing part: only \(left.battery.writes ? "the first" : "the second") ran it (--allow-writes)")
        }
        for id in Set(left.probes.keys).union(right.probes.keys).sorted() {
            switch (left.probes[id], right.probes[id]) {
            case (let a?, let b?):
                Self.compare(a.answer, b.answer, path: "probes/\(id)/answer", subject: a.description, field: [], into: &found)
            case (let a?, nil):
                if !(writesOnOneSide && id.hasPrefix("write.")) {
                    found.append(Difference(kind: .missing, path: "probes/\(id)", subject: a.description, field: "", left: "ran", right: ""))
                }
            case (nil, let b?):
                if !(writesOnOneSide && id.hasPrefix("write.")) {
                    found.append(Difference(kind: .missing, path: "probes/\(id)", subject: b.description, field: "", left: "", right: "ran"))
                }
            case (nil, nil): break
            }
        }
        switch (left.timing, right.timing) {
        case (let a?, let b?): Self.compare(timing: a, b, rules: rules, into: &found)
        case (nil, nil): break
        default: notCompared.append("timing: only \(left.timing != nil ? "the first" : "the second") was timed")
        }
        for difference in found {
            if rules.ignores(difference.path) { accepted.append(difference) } else { differences.append(difference) }
        }
    }

    /// One entry's answers: the status first; fields only when it is the same.
    private static func compare(_ a: JSONValue, _ b: JSONValue, path: String, subject: String, field: [String],
                                into found: inout [Difference]) {
        if case .array(let x) = a, case .array(let y) = b, x.count == y.count, field.isEmpty {
            for index in x.indices {
                compare(x[index], y[index], path: "\(path)/\(index)", subject: "\(subject), step \(index + 1)", field: [], into: &found)
            }
            return
        }
        if field.isEmpty, let statusA = Difference.status(a), let statusB = Difference.status(b), statusA != statusB {
            found.append(Difference(kind: .status, path: path, subject: subject, field: "", left: statusA, right: statusB))
            return
        }
        guard a != b else { return }
        if !field.isEmpty, let pairs = elementwise(a, b) {
            for (index, (x, y)) in pairs.enumerated() {
                compare(x, y, path: "\(path)/\(index)", subject: subject, field: field + ["[\(index)]"], present: (true, true), into: &found)
            }
            return
        }
        switch (a, b) {
        case (.object(let x), .object(let y)):
            for key in Set(x.keys).union(y.keys).sorted() {
                compare(x[key] ?? .null, y[key] ?? .null, path: "\(path)/\(key)", subject: subject, field: field + [key],
                        present: (x[key] != nil, y[key] != nil), into: &found)
            }
        default:
            found.append(Difference(kind: field.isEmpty ? .status : .field, path: path, subject: subject,
                                    field: Self.fieldName(field), left: Difference.words(a), right: Difference.words(b)))
        }
    }

    private static func compare(_ a: JSONValue, _ b: JSONValue, path: String, subject: String, field: [String],
                                present: (Bool, Bool), into found: inout [Difference]) {
        guard present.0, present.1 else {
            found.append(Difference(kind: .field, path: path, subject: subject, field: fieldName(field),
                                    left: present.0 ? Difference.words(a) : "absent", right: present.1 ? Difference.words(b) : "absent"))
            return
        }
        guard a != b else { return }
        if case .object = a, case .object = b {
            compare(a, b, path: path, subject: subject, field: field, into: &found)
        } else if elementwise(a, b) != nil {
            compare(a, b, path: path, subject: subject, field: field, into: &found)
        } else {
            let (left, right) = Difference.contrast(a, b)
            found.append(Difference(kind: .field, path: path, subject: subject, field: fieldName(field), left: left, right: right))
        }
    }

    /// Two lists of objects of one length (a certificate chain, a list of answers) compare item
    /// by item, so that a difference names the item and its member (`x5c[0].subject`); other
    /// lists (versions, extensions) compare whole.
    private static func elementwise(_ a: JSONValue, _ b: JSONValue) -> [(JSONValue, JSONValue)]? {
        guard case .array(let x) = a, case .array(let y) = b, x.count == y.count, !x.isEmpty,
              (x + y).allSatisfy({ $0.objectValue != nil }) else { return nil }
        return Array(zip(x, y))
    }

    /// `body.versions` → `versions`: the body is what a field is in, by default; a list's item
    /// is `x5c[0]`.
    private static func fieldName(_ field: [String]) -> String {
        var name = ""
        for part in field.first == "body" ? Array(field.dropFirst()) : field {
            name += part.hasPrefix("[") || name.isEmpty ? part : "." + part
        }
        return name
    }

    private static func compare(timing a: [String: TimingSummary], _ b: [String: TimingSummary], rules: DiffRules,
                                into found: inout [Difference]) {
        for kind in Set(a.keys).intersection(b.keys).sorted() {
            guard let x = a[kind], let y = b[kind] else { continue }
            let tolerance = rules.tolerance(for: kind)
            for (name, left, right) in [("p50Ms", x.p50, y.p50), ("p90Ms", x.p90, y.p90)] where !tolerance.accepts(left, right) {
                let percentile = name == "p50Ms" ? "median" : "90th percentile"
                found.append(Difference(kind: .timing, path: "timing/\(kind)/\(name)", subject: "\(kind) round trip, \(percentile)",
                                        field: "", left: Self.milliseconds(left), right: Self.milliseconds(right)))
            }
        }
    }

    /// `302 ms`, `1.5 ms`; below 1 ms in whole microseconds (`40 µs`), never `0.0 ms`.
    static func milliseconds(_ value: Double) -> String {
        if value < 1 { return "\(max(1, Int((value * 1000).rounded()))) µs" }
        return value >= 10 ? "\(Int(value.rounded())) ms" : "\((value * 100).rounded() / 100) ms"
    }
}

/// Two fingerprints that cannot be compared.
public enum FingerprintDiffError: Error, Equatable, Sendable, CustomStringConvertible {
    case differentBatteries(Int, Int)

    public var description: String {
        switch self {
        case .differentBatteries(let a, let b):
            "the fingerprints come from different batteries (version \(a) and \(b)): probe both cards with the same build"
        }
    }
}
