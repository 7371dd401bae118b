import CBOR
import FIDOWire

/// Where in a request or response a difference is, written the way people read CTAP:
/// `response.authData{2}.flags`, `response.options{4}.clientPin`, `request.allowList{3}[0].id`.
/// Integer keys the specification names show the name and the number; others only the number.
public struct FieldPath: Hashable, Sendable, CustomStringConvertible {
    /// One step.
    public enum Segment: Hashable, Sendable {
        /// A map key, with the specification's name for it when there is one.
        case key(CBORValue, name: String?)
        /// An array position.
        case index(Int)
        /// A named part of a structure that is not CBOR (authenticator data, a U2F message).
        case field(String)
    }

    /// `request`, `response`, `status`, `sw`, …
    public var root: String
    /// The steps from the root.
    public var segments: [Segment]

    /// A path from `root` through `segments`.
    public init(_ root: String, _ segments: [Segment] = []) {
        self.root = root
        self.segments = segments
    }

    /// This path one step further.
    func appending(_ segment: Segment) -> FieldPath {
        FieldPath(root, segments + [segment])
    }

    /// The integer key of the first segment (a top-level CTAP parameter), if it is one.
    var topLevelKey: Int? {
        guard case .key(let key, _)? = segments.first else { return nil }
        return key.intValue
    }

    /// The keys and fields after the first segment, as plain strings, for rule matching.
    var innerNames: [String] {
        segments.dropFirst().map { segment in
            switch segment {
            case .key(let key, _): key.textValue ?? key.diagnosticNotation
            case .index: "[]"
            case .field(let name): name
            }
        }
    }

    /// The path as reports print it.
    public var description: String {
        var text = root
        for segment in segments {
            switch segment {
            case .key(let key, let name):
                if let name, key.intValue != nil {
                    text += ".\(name){\(key.diagnosticNotation)}"
                } else if case .text(let word) = key {
                    // A map's text key is the card's or the file's: one line, escaped.
                    text += "." + DisplayText.escaped(word)
                } else {
                    text += "{\(key.diagnosticNotation)}"
                }
            case .index(let index):
                text += "[\(index)]"
            case .field(let name):
                text += "." + DisplayText.escaped(name)
            }
        }
        return text
    }
}
