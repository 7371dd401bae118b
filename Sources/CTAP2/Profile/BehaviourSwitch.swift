import FIDOWire

/// One switch of a profile's behaviour (``CardBehaviour``) or departures (``CardDepartures``): its
/// JSON name, what it changes, the values it takes, its default, and the sentence of the text that
/// leaves the card the choice — or, for a departure, the rule it breaks. ``CardProfile/switches``
/// is the catalogue; `profile show --switches`, the README's table and the probe's hints read it.
public struct BehaviourSwitch: Sendable {
    /// The JSON object of a profile a switch lives in.
    public enum Group: String, Sendable {
        /// Choices the text leaves open.
        case behaviour
        /// Departures from the text.
        case departures
    }

    /// The object the switch lives in.
    public let group: Group
    /// The switch's name inside its object, e.g. `unknownClass`.
    public let name: String
    /// What part of the card it concerns (`ISO 7816`, `SELECT`, `chaining`, `CTAP`, …).
    public let concern: String
    /// What the switch changes, in a sentence.
    public let summary: String
    /// The values it takes, as a person writes them.
    public let values: String
    /// For a choice: the sentence that leaves the room. For a departure: the rule it breaks.
    public let room: String
    /// The default value (the emulator's behaviour before the switch existed).
    public let defaultValue: SwitchValue
    let read: @Sendable (CardProfile) -> SwitchValue
    let write: @Sendable (inout CardProfile, SwitchValue) -> Bool

    /// `behaviour.NAME` or `departures.NAME`: how the field is named in errors and listings.
    public var field: String { "\(group.rawValue).\(name)" }
    /// Whether the switch is a departure from the text.
    public var isDeparture: Bool { group == .departures }

    /// The switch's value in `profile`.
    public func value(in profile: CardProfile) -> SwitchValue { read(profile) }

    /// Whether `profile` has the switch away from its default.
    public func isSet(in profile: CardProfile) -> Bool { read(profile) != defaultValue }

    /// Sets the switch; false (and `profile` unchanged) when it does not take `value`.
    public func set(_ value: SwitchValue, in profile: inout CardProfile) -> Bool { write(&profile, value) }
}

/// A switch's value as JSON has it: a boolean, an integer, a text (a status word such as `6D00`,
/// a choice such as `refuse`), a list of texts, or null. Anything else a file holds is `.other`,
/// so that the error can name the field rather than the decoder's path.
public enum SwitchValue: Codable, Equatable, Sendable, CustomStringConvertible {
    case bool(Bool)
    case number(Int)
    case text(String)
    case list([String])
    case null
    case other

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .text(value) }
        else if let value = try? container.decode([String].self) { self = .list(value) }
        else { self = .other }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .text(let value): try container.encode(value)
        case .list(let value): try container.encode(value)
        case .null, .other: try container.encodeNil()
        }
    }

    /// As a person writes it in a profile.
    public var description: String {
        switch self {
        case .bool(let value): "\(value)"
        case .number(let value): "\(value)"
        case .text(let value): value
        case .list(let value): "[" + value.joined(separator: ", ") + "]"
        case .null: "null"
        case .other: "(not a boolean, number, text or list of texts)"
        }
    }
}

/// A profile whose switches cannot be read: the field and what is wrong with it.
public struct ProfileSwitchError: Error, CustomStringConvertible, Equatable {
    /// `behaviour.NAME` or `departures.NAME`.
    public let field: String
    public let reason: String

    public var description: String { "\(field): \(reason)" }
}

/// The Swift types a switch holds, each to and from its JSON form.
protocol SwitchCodable: Equatable, Sendable {
    init?(switchValue: SwitchValue)
    var switchValue: SwitchValue { get }
}

/// A switch type whose values its type alone names (true or false, a text enum's cases, an error
/// status word): the catalogue's `values` and the check of a value, written once for the type.
protocol NamedSwitchValues: SwitchCodable {
    /// The values a switch of this type takes, as a person writes them.
    static var switchValues: String { get }
    /// Whether a switch of this type takes this value.
    var isSwitchValue: Bool { get }
}

extension NamedSwitchValues {
    var isSwitchValue: Bool { true }
}

extension Bool: NamedSwitchValues {
    init?(switchValue: SwitchValue) {
        guard case .bool(let value) = switchValue else { return nil }
        self = value
    }
    var switchValue: SwitchValue { .bool(self) }
    static let switchValues = "true or false"
}

extension Int: SwitchCodable {
    init?(switchValue: SwitchValue) {
        guard case .number(let value) = switchValue else { return nil }
        self = value
    }
    var switchValue: SwitchValue { .number(self) }
}

extension Optional: SwitchCodable where Wrapped == Int {
    init?(switchValue: SwitchValue) {
        switch switchValue {
        case .null: self = .none
        case .number(let value): self = .some(value)
        default: return nil
        }
    }
    var switchValue: SwitchValue { map { .number($0) } ?? .null }
}

extension Array: SwitchCodable where Element == String {
    init?(switchValue: SwitchValue) {
        guard case .list(let value) = switchValue else { return nil }
        self = value
    }
    var switchValue: SwitchValue { .list(self) }
}

extension StatusWord: NamedSwitchValues {
    /// Four hex digits, e.g. `6D00`.
    init?(switchValue: SwitchValue) {
        guard case .text(let text) = switchValue, text.count == 4, let raw = UInt16(text, radix: 16) else { return nil }
        self.init(rawValue: raw)
    }
    var switchValue: SwitchValue { .text(description) }

    /// A status-word switch takes an error word a card may choose (a switch that takes more, such
    /// as `9000`, names its values and check itself).
    static let switchValues = "an error status word, 4 hex digits (SW1 64–6F but 6C)"
    var isSwitchValue: Bool { isChoosableError }

    /// An error status word a card may choose (ISO/IEC 7816-4 §5.6: SW1 `64`–`6F`), but not
    /// `61xx`/`6Cxx`, whose SW2 is a count the front computes.
    var isChoosableError: Bool { (0x64...0x6F).contains(sw1) && sw1 != 0x6C }
}

/// A switch whose values are the cases of a text enum.
protocol TextChoice: RawRepresentable<String>, CaseIterable, NamedSwitchValues {}

extension TextChoice {
    init?(switchValue: SwitchValue) {
        guard case .text(let text) = switchValue, let value = Self(rawValue: text) else { return nil }
        self = value
    }
    var switchValue: SwitchValue { .text(rawValue) }
    static var switchValues: String { allCases.map(\.rawValue).joined(separator: " or ") }
}

extension CardBehaviour.ChainInterruption: TextChoice {}
extension CardBehaviour.ParameterCheck: TextChoice {}
extension CardBehaviour.SingleAccountUser: TextChoice {}
extension CardBehaviour.UVMMethods: TextChoice {}
extension CardBehaviour.SelectNoData: TextChoice {}
extension CardBehaviour.PartialAID: TextChoice {}
extension CardBehaviour.PINRetriesWithoutPIN: TextChoice {}
extension CardBehaviour.PINUvAuthParamWithoutPIN: TextChoice {}
extension CardBehaviour.U2FUnlisted: TextChoice {}
extension CardBehaviour.U2FVersionData: TextChoice {}
extension CardBehaviour.RemainingCredentials: TextChoice {}
extension CardBehaviour.SignatureCounter: TextChoice {}
extension CardBehaviour.ParametersToNone: TextChoice {}
extension CardBehaviour.UVTokenWithoutUV: TextChoice {}
extension CardBehaviour.ConfigUnknownSubcommand: TextChoice {}
extension CardBehaviour.JudgingOrder: TextChoice {}
extension CardBehaviour.ParametersAbsent: TextChoice {}
extension CardBehaviour.LongMemberKey: TextChoice {}
extension CardBehaviour.ProtocolCheck: TextChoice {}
extension CardBehaviour.CredentialManagementWithoutPIN: TextChoice {}

/// A switch whose value is one named choice or an error status word a card may choose
/// (`selects` or `6700`, `staysSelected` or `6D00`, …): its JSON form written once.
protocol ChoiceOrWord: SwitchCodable {
    /// The choice's JSON name.
    static var choice: String { get }
    /// The value for the choice (nil) or for an error word.
    init(word: StatusWord?)
    /// nil for the choice, else the word.
    var word: StatusWord? { get }
}

extension ChoiceOrWord {
    init?(switchValue: SwitchValue) {
        if switchValue == .text(Self.choice) { self.init(word: nil); return }
        guard let word = StatusWord(switchValue: switchValue), word.isChoosableError else { return nil }
        self.init(word: word)
    }
    var switchValue: SwitchValue { word?.switchValue ?? .text(Self.choice) }
}

extension CardBehaviour.SelectWithoutAID: ChoiceOrWord {
    static let choice = "selects"
    init(word: StatusWord?) { self = word.map(Self.status) ?? .selects }
    var word: StatusWord? { if case .status(let word) = self { word } else { nil } }
}

extension CardBehaviour.AfterRefusedSelect: ChoiceOrWord {
    static let choice = "notSelected"
    init(word: StatusWord?) { self = word.map(Self.answer) ?? .notSelected }
    var word: StatusWord? { if case .answer(let word) = self { word } else { nil } }
}

extension CardBehaviour.ChainOverflow: ChoiceOrWord {
    static let choice = "requestTooLarge"
    init(word: StatusWord?) { self = word.map(Self.refused) ?? .requestTooLarge }
    var word: StatusWord? { if case .refused(let word) = self { word } else { nil } }
}

extension CardBehaviour.AfterReset: ChoiceOrWord {
    static let choice = "staysSelected"
    init(word: StatusWord?) { self = word.map(Self.deselected) ?? .staysSelected }
    var word: StatusWord? { if case .deselected(let word) = self { word } else { nil } }
}

/// An option a card may leave out of getInfo: nil for not listed, else its value.
struct ListedOption: SwitchCodable {
    var value: Bool?
    init(_ value: Bool?) { self.value = value }
    init?(switchValue: SwitchValue) {
        switch switchValue {
        case .null: value = nil
        case .bool(let flag): value = flag
        default: return nil
        }
    }
    var switchValue: SwitchValue { value.map { .bool($0) } ?? .null }
}

extension BehaviourSwitch {
    /// A switch held at `keyPath`, taking the values `accepts` allows.
    init<V: SwitchCodable>(_ group: Group, _ name: String, _ keyPath: WritableKeyPath<CardProfile, V> & Sendable,
                           concern: String, values: String, summary: String, room: String,
                           accepts: @escaping @Sendable (V) -> Bool = { _ in true }) {
        self.group = group
        self.name = name
        self.concern = concern
        self.values = values
        self.summary = summary
        self.room = room
        defaultValue = CardProfile.switchDefaults[keyPath: keyPath].switchValue
        read = { $0[keyPath: keyPath].switchValue }
        write = { profile, value in
            guard let typed = V(switchValue: value), accepts(typed) else { return false }
            profile[keyPath: keyPath] = typed
            return true
        }
    }

    /// A number switch taking the whole numbers in `range`.
    init(_ group: Group, _ name: String, _ keyPath: WritableKeyPath<CardProfile, Int> & Sendable,
         concern: String, range: ClosedRange<Int>, summary: String, room: String) {
        self.init(group, name, keyPath, concern: concern, values: Self.words(range), summary: summary, room: room,
                  accepts: { range.contains($0) })
    }

    /// A number switch taking the whole numbers in `range`, or null, which means `null`.
    init(_ group: Group, _ name: String, _ keyPath: WritableKeyPath<CardProfile, Int?> & Sendable,
         concern: String, nullMeans null: String, range: ClosedRange<Int>, summary: String, room: String) {
        self.init(group, name, keyPath, concern: concern, values: "null (\(null)) or " + Self.words(range), summary: summary,
                  room: room, accepts: { $0.map(range.contains) ?? true })
    }

    /// `1…256`.
    private static func words(_ range: ClosedRange<Int>) -> String { "\(range.lowerBound)…\(range.upperBound)" }

    /// A switch held at `keyPath` whose values and check are its type's.
    init<V: NamedSwitchValues>(_ group: Group, _ name: String, _ keyPath: WritableKeyPath<CardProfile, V> & Sendable,
                               concern: String, summary: String, room: String) {
        self.init(group, name, keyPath, concern: concern, values: V.switchValues, summary: summary, room: room,
                  accepts: { $0.isSwitchValue })
    }
}
