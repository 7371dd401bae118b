import FIDOWire
import JSONSupport

/// One way two fingerprints differ, in the user's terms.
public struct Difference: Equatable, Sendable {
    /// What differs.
    public enum Kind: Equatable, Sendable {
        /// The entry's answer: a CTAP status, a status word, or whether it answered at all.
        case status
        /// A field of the answer (the status being the same).
        case field
        /// The entry ran on one side only.
        case missing
        /// A command kind's round-trip time.
        case timing
        /// What the reader reports of the card (the ATR).
        case card
    }

    public var kind: Kind
    /// Where, for rules files: `probes/<id>/answer/body/versions`, `timing/getInfo/p50Ms`, `card/atr`.
    public var path: String
    /// The entry's description, or what the part is ("the ATR").
    public var subject: String
    /// The field within the answer (`versions`, `authData.flags`); empty for a status.
    public var field: String
    /// Each side's value, in words.
    public var left: String
    public var right: String

    /// The difference as a sentence: `getAssertion without clientDataHash: your card answers
    /// CTAP2_ERR_MISSING_PARAMETER, the emulator CTAP2_ERR_INVALID_CBOR`. What came from the
    /// fingerprints (every part but the labels) is escaped (``DisplayText``): one line, whatever
    /// a card or a file put in it.
    public func sentence(_ labels: (String, String)) -> String {
        let (subject, field, left, right) = (DisplayText.escaped(subject), DisplayText.escaped(field),
                                             DisplayText.escaped(left), DisplayText.escaped(right))
        return switch kind {
        case .status: "\(subject): \(labels.0) answers \(left), \(labels.1) \(right)"
        case .field: "\(subject), \(field): \(labels.0) \(left), \(labels.1) \(right)"
        case .missing: "\(subject): only \(left.isEmpty ? labels.1 : labels.0) ran this entry"
        case .timing, .card: "\(subject): \(labels.0) \(left), \(labels.1) \(right)"
        }
    }

    /// A value as the sentences write it: text without quotes, anything else as compact JSON;
    /// `absent` for nothing.
    static func words(_ value: JSONValue?) -> String {
        guard let value else { return "absent" }
        let text = value.stringValue ?? value.text
        return text.count <= 160 ? text : text.prefix(157) + "…"
    }

    /// Two differing values as the sentences write them: like ``words(_:)``, but two texts made of
    /// the same `, `-separated parts (a certificate's subject or issuer: `C=US, O=…, CN=…`) keep
    /// only the parts that differ, so that the difference is not lost behind a shared beginning.
    static func contrast(_ a: JSONValue?, _ b: JSONValue?) -> (String, String) {
        guard let x = a?.stringValue, let y = b?.stringValue else { return (words(a), words(b)) }
        let (partsX, partsY) = (x.components(separatedBy: ", "), y.components(separatedBy: ", "))
        guard partsX.count == partsY.count, partsX.count > 1 else { return (words(a), words(b)) }
        let differing = partsX.indices.filter { partsX[$0] != partsY[$0] }
        guard differing.count < partsX.count else { return (words(a), words(b)) }
        func kept(_ parts: [String]) -> String {
            words(.string((differing.first == 0 ? "" : "…") + differing.map { parts[$0] }.joined(separator: ", ")))
        }
        return (kept(partsX), kept(partsY))
    }

    /// An answer's status in words: the CTAP status, the status word with its meaning, or why
    /// there was no answer; nil for an answer that has none of these (a sequence).
    static func status(_ answer: JSONValue) -> String? {
        if let skipped = answer["skipped"]?.stringValue { return "nothing: \(skipped)" }
        if let refused = answer["token refused"] { return "no token, " + (status(refused) ?? Difference.words(refused)) }
        if let ctap = answer["ctap"]?.stringValue { return ctap }
        guard let sw = answer["sw"]?.stringValue else { return nil }
        guard sw != "9000" else { return sw }
        let meaning = UInt16(sw, radix: 16).flatMap { StatusWord(rawValue: $0).meaning }
        return meaning.map { "\(sw) (\($0))" } ?? sw
    }
}
