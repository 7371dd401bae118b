/// A caller's mistake: a value passed to an SDK operation that no card, server or browser would
/// accept, found before anything reaches the card. It travels inside an ``ArculusFidoError``
/// whose code is ``ArculusFidoErrorCode/invalidInput`` (700, not a vendor card code):
///
/// ```swift
/// catch let error where error.input?.kind == .invalidRPID { ... }
/// ```
///
/// ```
/// registerCardOnly: rpId "https://example.com" is a URL; give the relying party's domain, e.g. example.com
/// ```
public struct ArculusFidoInputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What kind of value is wrong.
    public enum Kind: String, CaseIterable, Sendable {
        /// Not an RP ID: empty, a URL, with a port, capitals, an IP address, not a domain name.
        case invalidRPID
        /// An RP ID the origin may not claim: neither its host nor a registrable suffix of it.
        case rpIDMismatch
        /// Not a web origin as clientDataJSON carries it (`https://host[:port]`).
        case invalidOrigin
        /// Not base64url, or shorter than WebAuthn's 16 bytes.
        case invalidChallenge
        /// Not base64url, or outside WebAuthn's 16 to 1023 bytes.
        case invalidCredentialID
        /// An empty or blank user name.
        case invalidUser
        /// A PIN no card can have (fewer than 4 characters, over 63 bytes, a NUL), or one shorter
        /// than this card's PIN policy wants.
        case invalidPIN
        /// Options that contradict themselves (a hash that is not the hash of its data) or lack
        /// what the operation needs.
        case invalidOptions
        /// A FIDO2 server or backend address that is not an http(s) URL.
        case invalidServer
        /// A timeout that is not a number of seconds above 0 and at most an hour.
        case invalidTimeout
    }

    public let kind: Kind
    /// The operation it was passed to (nil when a support type was called directly).
    public let operation: ArculusFidoOperation?
    public let parameter: ArculusFidoParameter
    /// The value as given; nil for PINs, which messages never repeat.
    public let value: String?
    /// What is wrong with it and what to give instead: the message after the parameter and value.
    public let reason: ArculusFidoMessage

    /// `parameter` of `operation` with `value` (nil for a PIN) is refused for `reason`.
    public init(_ kind: Kind, _ parameter: ArculusFidoParameter, of operation: ArculusFidoOperation?, value: String?,
                _ reason: ArculusFidoMessage) {
        (self.kind, self.parameter, self.operation) = (kind, parameter, operation)
        (self.value, self.reason) = (value, reason)
    }

    /// `rpId "https://example.com" is a URL; ...` (`pin has 3 characters; ...` for a PIN).
    public var message: ArculusFidoMessage {
        let shown: ArculusFidoMessage.Segment = .text(value.map { " \(Self.quoted($0)) " } ?? " ")
        return ArculusFidoMessage(segments: [.parameter(parameter, of: operation), shown]) + reason
    }

    /// The message in Swift terms.
    public var description: String { message.text(.swift) }

    /// The value in double quotes with control characters escaped, so that an empty or blank
    /// value is visible; long ones are cut.
    static func quoted(_ value: String) -> String {
        let shown = value.count > 80 ? String(value.prefix(77)) + "..." : value
        return shown.debugDescription
    }
}
