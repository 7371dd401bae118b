/// The text of an SDK error, with the SDK's own names kept as references rather than spelled
/// out, so that the command line can print the same message in its own terms
/// (`sdk change-pin`, `--old-pin`) where Swift prints `changePin(oldPin:newPin:)`, `oldPin`.
///
/// Written as a string with interpolations:
/// ```swift
/// let advice: ArculusFidoMessage = "change it with \(call: .changePin), or erase the card with \(call: .resetDevice)"
/// ```
public struct ArculusFidoMessage: Equatable, Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// A piece of the text.
    public enum Segment: Equatable, Sendable {
        case text(String)
        /// The operation a message is about, at its start: `registerCardOnly` / `sdk register-card-only`.
        case subject(ArculusFidoOperation)
        /// An operation to run instead: `setPin(pin:)` / `sdk set-pin`.
        case call(ArculusFidoOperation)
        /// A parameter of an operation: `rpId` / `--rp-id`.
        case parameter(ArculusFidoParameter, of: ArculusFidoOperation?)
    }

    public private(set) var segments: [Segment]

    public init(segments: [Segment]) {
        self.segments = segments.reduce(into: []) { result, segment in
            if case .text(let more) = segment, case .text(let text)? = result.last {
                result[result.count - 1] = .text(text + more)
            } else if segment != .text("") {
                result.append(segment)
            }
        }
    }

    public init(stringLiteral value: String) {
        self.init(segments: [.text(value)])
    }

    public init(stringInterpolation: StringInterpolation) {
        self.init(segments: stringInterpolation.segments)
    }

    /// The message with every name spelled by `naming`.
    public func text(_ naming: ArculusFidoNaming) -> String {
        segments.map { segment in
            switch segment {
            case .text(let text): text
            case .subject(let operation): naming.subject(operation)
            case .call(let operation): naming.call(operation)
            case .parameter(let parameter, let operation): naming.parameter(parameter, operation)
            }
        }.joined()
    }

    /// The message in Swift terms.
    public var description: String { text(.swift) }

    /// This message followed by `other`.
    public static func + (message: ArculusFidoMessage, other: ArculusFidoMessage) -> ArculusFidoMessage {
        ArculusFidoMessage(segments: message.segments + other.segments)
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var segments: [Segment] = []

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) {
            segments.append(.text(literal))
        }

        /// Any value, as Swift prints it.
        public mutating func appendInterpolation<Value>(_ value: Value) {
            segments.append(.text(String(describing: value)))
        }

        /// An operation to run instead.
        public mutating func appendInterpolation(call operation: ArculusFidoOperation) {
            segments.append(.call(operation))
        }

        /// A parameter of `operation`.
        public mutating func appendInterpolation(_ parameter: ArculusFidoParameter, of operation: ArculusFidoOperation?) {
            segments.append(.parameter(parameter, of: operation))
        }

        /// Another message, its names kept.
        public mutating func appendInterpolation(_ message: ArculusFidoMessage) {
            segments += message.segments
        }

        /// Another SDK error, as its description reads (`600 Tag Lost: registerUser: ...`), its
        /// names kept.
        public mutating func appendInterpolation(_ error: ArculusFidoError) {
            segments.append(.text("\(error.code): "))
            segments += error.fullMessage.segments
        }
    }
}

/// How one layer spells the SDK's names in messages. ``swift`` is the SDK's own; the command
/// line has a table of its commands and options.
public struct ArculusFidoNaming: Sendable {
    /// The failing operation at the start of a message.
    public var subject: @Sendable (ArculusFidoOperation) -> String
    /// An operation named as advice.
    public var call: @Sendable (ArculusFidoOperation) -> String
    /// A parameter of an operation (nil: the operation is not known, e.g. a support type's call).
    public var parameter: @Sendable (ArculusFidoParameter, ArculusFidoOperation?) -> String

    public init(subject: @escaping @Sendable (ArculusFidoOperation) -> String,
                call: @escaping @Sendable (ArculusFidoOperation) -> String,
                parameter: @escaping @Sendable (ArculusFidoParameter, ArculusFidoOperation?) -> String) {
        self.subject = subject
        self.call = call
        self.parameter = parameter
    }

    /// Swift's names: `registerCardOnly: …`, `changePin(oldPin:newPin:)`, `rpId`.
    public static let swift = ArculusFidoNaming(subject: \.rawValue, call: \.signature, parameter: { parameter, _ in parameter.rawValue })
}
