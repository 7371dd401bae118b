import ArculusCard
import CardProbe
import JSONSupport

/// How one switch of the catalogue (``CardProfile/switches``) is learned from a fingerprint:
/// the battery entries that show it (its evidence) and how their answers read as a value. One
/// learner per switch (``SwitchLearner/all``); a test holds the list to the catalogue, so a
/// switch without a learner, or a learner whose evidence the battery does not send, fails it.
///
/// A learner reads the card's answers only: it returns nil when its evidence is missing (a
/// fingerprint without the writing part, an entry whose SELECT failed) or says nothing the
/// switch can hold, and the switch keeps its default.
struct SwitchLearner: Sendable {
    /// The catalogue field it sets (`behaviour.NAME` or `departures.NAME`).
    let field: String
    /// The entries whose answers show the switch, by ID.
    let evidence: [String]
    /// The value the answers show, with the entry that showed it.
    let read: @Sendable (LearningEvidence) -> Observation?

    init(_ field: String, _ evidence: [String], read: @escaping @Sendable (LearningEvidence) -> Observation?) {
        self.field = field
        self.evidence = evidence
        self.read = read
    }

    /// A learner of a choice that one entry's CTAP status shows: each status a card may answer,
    /// the choice it shows and the answer in words; another status (or `applies` false) shows nothing.
    static func byStatus(_ field: String, entry id: String,
                         applies: @escaping @Sendable (LearningEvidence) -> Bool = { _ in true },
                         _ choices: [(status: String, choice: String, shown: String)]) -> SwitchLearner {
        SwitchLearner(field, [id]) { evidence in
            guard applies(evidence), let status = evidence.ctap(id),
                  let match = choices.first(where: { $0.status == status }) else { return nil }
            return Observation(.text(match.choice), id, match.shown)
        }
    }

    /// What a learner read: the value, the entry that showed it, and the answer in words.
    struct Observation: Sendable {
        let value: SwitchValue
        let entry: String
        let shown: String
    }
}

/// What a learner read (``SwitchLearner/Observation``).
typealias Observation = SwitchLearner.Observation

/// A fingerprint's answers as the learners read them, beside the profile learned so far (the
/// card's identity, and the switches learned before): a learner can depend on what the card is
/// (CTAP 2.0 or 2.1, U2F or not) and on the switches before it in ``SwitchLearner/all``.
struct LearningEvidence {
    let fingerprint: Fingerprint
    /// The profile so far.
    var profile: CardProfile
    /// getInfo as the emulator answers it with a profile (to learn what the card leaves out).
    let emulatorInfo: (CardProfile) -> JSONValue?

    /// Whether the card had a PIN when it was probed (the read-only entries that show the
    /// no-PIN switches say nothing then).
    var hadPIN: Bool { fingerprint.pinState.isSet }
    /// Whether the writing part ran.
    var wrote: Bool { fingerprint.battery.writes }

    /// Entry `id`'s answer; nil when absent, or when the SELECT before it failed (its answer
    /// then shows that, not the entry).
    func answer(_ id: String) -> JSONValue? {
        guard let answer = fingerprint.probes[id]?.answer, answer["setup"] == nil else { return nil }
        return answer
    }

    /// Step `step` of a sequence's answer (0-based), or the answer itself for `nil`.
    func answer(_ id: String, step: Int?) -> JSONValue? {
        guard let step else { return answer(id) }
        guard let steps = answer(id)?.arrayValue, steps.indices.contains(step) else { return nil }
        return steps[step]
    }

    /// The status word of entry `id` (step `step`).
    func statusWord(_ id: String, step: Int? = nil) -> String? { answer(id, step: step)?["sw"]?.stringValue }

    /// The CTAP status of entry `id`, by name.
    func ctap(_ id: String, step: Int? = nil) -> String? { answer(id, step: step)?["ctap"]?.stringValue }

    /// The entry's status word as a switch value when it is an error word a card may choose
    /// (SW1 `64`–`6F` but `6C`), with `9000` too when `success` allows it.
    func errorWord(_ id: String, step: Int? = nil, success: Bool = false) -> Observation? {
        guard let word = statusWord(id, step: step), let raw = UInt16(word, radix: 16) else { return nil }
        let sw1 = raw >> 8
        guard (0x64...0x6F).contains(sw1) && sw1 != 0x6C || (success && raw == 0x9000) else { return nil }
        return Observation(value: .text(word), entry: id, shown: "answers \(word)")
    }

    /// The data length `bytes(N)` (or text) of entry `id`'s answer.
    func dataLength(_ id: String, step: Int? = nil) -> Int? {
        guard let answer = answer(id, step: step) else { return nil }
        if let text = answer["text"]?.stringValue { return text.utf8.count }
        guard let data = answer["data"]?.stringValue else { return 0 }
        if data.hasPrefix("bytes("), let count = Int(data.dropFirst(6).prefix { $0.isNumber }) { return count }
        if data.hasPrefix("h'") { return (data.count - 3) / 2 }
        return nil
    }

    /// The battery's write entries in the order they ran.
    static let writeOrder = CardProber(includeWrites: true).entryIDs.filter { $0.hasPrefix("write.") }
}

extension SwitchLearner.Observation {
    /// A value read from `entry`, whose answer was `shown`.
    init(_ value: SwitchValue, _ entry: String, _ shown: String) {
        self.init(value: value, entry: entry, shown: shown)
    }
}
