import Foundation
import JSONSupport
import POSIXSupport

extension Fingerprint {
    /// The fingerprint as a JSON value.
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            "format": .string(Self.format), "formatVersion": .integer(Self.formatVersion),
            "battery": ["version": .integer(battery.version), "entries": .integer(battery.entries), "writes": .bool(battery.writes)],
            "card": ["atr": .string(atr)],
            "source": .string(source),
            "probes": .object(probes.mapValues { ["description": .string($0.description), "request": $0.request, "answer": $0.answer] }),
        ]
        if let timing {
            object["timing"] = .object(timing.mapValues { ["n": .integer($0.count), "p50Ms": .number($0.p50), "p90Ms": .number($0.p90)] })
        }
        if let profile {
            object["profile"] = ["name": .string(profile.name), "dropped": .array(profile.dropped.map(JSONValue.string))]
        }
        return .object(object)
    }

    /// The file's text: sorted keys, the top level, the entries and each entry's members on lines
    /// of their own, anything short on one line (a diff then shows one line per change).
    public var text: String { PrettyJSON.text(json) }

    /// Reads a fingerprint file; `name` is how errors name it.
    public init(data: Data, name: String) throws(FingerprintError) {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: data)
        } catch {
            throw .notJSON(file: name, excerpt: String(decoding: data.prefix(40), as: UTF8.self))
        }
        try self.init(json: value, name: name)
    }

    /// Reads a fingerprint file at `path`.
    public init(path: String) throws(FingerprintError) {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path)
        } catch {
            throw .unreadable(file: path, reason: error.reason)
        }
        try self.init(data: Data(bytes), name: path)
    }

    /// Refuses a fingerprint of another battery version than this build runs (what the
    /// emulator is compared with, or learned from, is this build's battery); `name` names it.
    public func requireCurrentBattery(name: String) throws(FingerprintError) {
        guard battery.version == CardProber.batteryVersion else { throw .otherBattery(file: name, version: battery.version) }
    }

    /// Reads a fingerprint's JSON value.
    public init(json value: JSONValue, name: String) throws(FingerprintError) {
        guard value["format"]?.stringValue == Self.format else { throw .notAFingerprint(file: name) }
        guard let version = value["formatVersion"]?.intValue else {
            throw .malformed(file: name, path: "formatVersion", reason: "is missing")
        }
        guard version == Self.formatVersion else { throw .unsupportedFormat(file: name, version: version) }
        func require<T>(_ found: T?, _ path: String, _ what: String) throws(FingerprintError) -> T {
            guard let found else { throw .malformed(file: name, path: path, reason: "is missing or not \(what)") }
            return found
        }
        let battery = try require(value["battery"], "battery", "an object")
        let stamp = BatteryStamp(version: try require(battery["version"]?.intValue, "battery.version", "a number"),
                                 entries: try require(battery["entries"]?.intValue, "battery.entries", "a number"),
                                 writes: try require(battery["writes"]?.boolValue, "battery.writes", "true or false"))
        let atr = try require(value["card"]?["atr"]?.stringValue, "card.atr", "text")
        let entries = try require(value["probes"]?.objectValue, "probes", "an object")
        var probes: [String: ProbeResult] = [:]
        for (id, entry) in entries {
            probes[id] = ProbeResult(
                description: try require(entry["description"]?.stringValue, "probes.\(id).description", "text"),
                request: try require(entry["request"], "probes.\(id).request", "a value"),
                answer: try require(entry["answer"], "probes.\(id).answer", "a value"))
        }
        var timing: [String: TimingSummary]?
        if let kinds = value["timing"] {
            let object = try require(kinds.objectValue, "timing", "an object")
            var summaries: [String: TimingSummary] = [:]
            for (kind, summary) in object {
                summaries[kind] = TimingSummary(count: try require(summary["n"]?.intValue, "timing.\(kind).n", "a number"),
                                                p50: try require(summary["p50Ms"]?.numberValue, "timing.\(kind).p50Ms", "a number"),
                                                p90: try require(summary["p90Ms"]?.numberValue, "timing.\(kind).p90Ms", "a number"))
            }
            timing = summaries
        }
        var profile: ProfileNote?
        if let note = value["profile"] {
            let dropped = try require(note["dropped"]?.arrayValue, "profile.dropped", "a list")
            profile = ProfileNote(name: try require(note["name"]?.stringValue, "profile.name", "text"),
                                  dropped: try dropped.map { item throws(FingerprintError) in
                                      try require(item.stringValue, "profile.dropped", "a list of text")
                                  })
        }
        self.init(battery: stamp, atr: atr, source: value["source"]?.stringValue ?? "", probes: probes, timing: timing,
                  profile: profile)
    }
}

/// JSON text for people and diffs: keys sorted, containers near the top on lines of their own,
/// short ones on one line.
enum PrettyJSON {
    static func text(_ value: JSONValue) -> String {
        var out = ""
        write(value, depth: 0, into: &out)
        return out + "\n"
    }

    private static let width = 110

    private static func write(_ value: JSONValue, depth: Int, into out: inout String) {
        let compact = value.text
        let indent = String(repeating: "  ", count: depth)
        switch value {
        case .object(let members) where !members.isEmpty && (depth < 3 || compact.count + indent.count > width):
            out += "{\n"
            for (index, key) in members.keys.sorted().enumerated() {
                out += indent + "  " + JSONValue.string(key).text + " : "
                write(members[key] ?? .null, depth: depth + 1, into: &out)
                out += index == members.count - 1 ? "\n" : ",\n"
            }
            out += indent + "}"
        case .array(let items) where !items.isEmpty && compact.count + indent.count > width:
            out += "[\n"
            for (index, item) in items.enumerated() {
                out += indent + "  "
                write(item, depth: depth + 1, into: &out)
                out += index == items.count - 1 ? "\n" : ",\n"
            }
            out += indent + "]"
        default:
            out += compact
        }
    }
}
