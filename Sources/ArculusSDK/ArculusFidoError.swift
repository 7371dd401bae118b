import CTAPClient
import FIDOWire
import Foundation
import JSONSupport

/// An SDK operation that failed: the vendor SDK's code and a message a person can act on, plus
/// what the card or server said when there is something to say.
///
/// ```
/// 608 Get PIN Token Failed: registerCardOnly: the PIN is wrong (CTAP2_ERR_PIN_INVALID); 7 attempts left before the card blocks its PIN
/// ```
///
/// The message names the operation and its advice names other operations in Swift's terms
/// (``message``); the command line prints the same error in its own (``text(_:)`` with its
/// ``ArculusFidoNaming``). It is a `LocalizedError` whose `errorDescription` is the whole text,
/// code first, so the sample apps' `"Error: \(error.localizedDescription)"` names the cause.
public struct ArculusFidoError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// The vendor SDK code (or ``ArculusFidoErrorCode/invalidInput`` for a caller's mistake).
    public let code: ArculusFidoErrorCode
    /// The operation that failed; nil for an error made without one.
    public let operation: ArculusFidoOperation?
    /// What went wrong and what to do about it, after the operation's name.
    public let detail: ArculusFidoMessage
    /// The CTAP status the card answered, when the card refused something.
    public let ctapStatus: CTAPStatus?
    /// PIN attempts left, when the error concerns the PIN.
    public let pinRetries: Int?
    /// The HTTP status of a server answer, when a server refused something.
    public let httpStatus: Int?
    /// The caller's mistake, when the code is ``ArculusFidoErrorCode/invalidInput``.
    public let input: ArculusFidoInputError?
    /// The network failure behind the error, when a server could not be reached or did not
    /// answer in time (`URLError.timedOut`, `.cannotConnectToHost`, …).
    public let urlError: URLError?

    /// An error of `operation` with `code` and `detail`, and what the card or server said.
    public init(_ code: ArculusFidoErrorCode, during operation: ArculusFidoOperation?, _ detail: ArculusFidoMessage,
                ctapStatus: CTAPStatus? = nil, pinRetries: Int? = nil, httpStatus: Int? = nil, urlError: URLError? = nil) {
        self.code = code
        self.operation = operation
        self.detail = detail
        self.ctapStatus = ctapStatus
        self.pinRetries = pinRetries
        self.httpStatus = httpStatus
        self.urlError = urlError
        input = nil
    }

    /// An error with `code` and a whole `message` of plain text.
    public init(_ code: ArculusFidoErrorCode, _ message: String, ctapStatus: CTAPStatus? = nil,
                pinRetries: Int? = nil, httpStatus: Int? = nil, urlError: URLError? = nil) {
        self.init(code, during: nil, ArculusFidoMessage(stringLiteral: message), ctapStatus: ctapStatus,
                  pinRetries: pinRetries, httpStatus: httpStatus, urlError: urlError)
    }

    /// The error for a caller's mistake (code 700 Invalid Input).
    public init(_ input: ArculusFidoInputError) {
        code = .invalidInput
        operation = input.operation
        detail = input.message
        ctapStatus = nil
        pinRetries = nil
        httpStatus = nil
        urlError = nil
        self.input = input
    }

    /// 701 Cancelled when the current task is cancelled.
    static func throwIfCancelled(during operation: ArculusFidoOperation?) throws(ArculusFidoError) {
        if Task.isCancelled {
            throw ArculusFidoError(.cancelled, during: operation, "cancelled before it was finished")
        }
    }

    /// `operation: detail`, names kept.
    var fullMessage: ArculusFidoMessage {
        guard let operation else { return detail }
        return ArculusFidoMessage(segments: [.subject(operation), .text(": ")]) + detail
    }

    /// The message with the names spelled by `naming`: `sdk change-pin: …` on the command line.
    public func text(_ naming: ArculusFidoNaming) -> String { fullMessage.text(naming) }

    /// The message in Swift terms: `registerCardOnly: the PIN is wrong …`.
    public var message: String { text(.swift) }

    /// `608 Get PIN Token Failed: <message>`.
    public var description: String { "\(code): \(message)" }

    /// The whole text, as ``description``: what `localizedDescription` gives an alert.
    public var errorDescription: String? { description }

    /// Equal when a Swift caller sees the same: code, message, what the card and server said, and
    /// the input mistake.
    public static func == (left: ArculusFidoError, right: ArculusFidoError) -> Bool {
        left.code == right.code && left.message == right.message && left.ctapStatus == right.ctapStatus
            && left.pinRetries == right.pinRetries && left.httpStatus == right.httpStatus && left.input == right.input
            && left.urlError?.code == right.urlError?.code
    }

    /// The error as JSON, names spelled by `naming`: `{"error": {"code": 608, "message": ..., ...}}`,
    /// with `kind` and `parameter` for a caller's mistake.
    public func json(_ naming: ArculusFidoNaming) -> JSONValue {
        var error: [String: JSONValue] = [
            "code": .int(code.rawValue),
            "name": .string(code.title),
            "message": .string(text(naming)),
        ]
        if let ctapStatus {
            error["ctapStatus"] = .string(ctapStatus.name)
            error["ctapStatusCode"] = .int(ctapStatus.rawValue)
        }
        if let pinRetries { error["pinRetries"] = .int(pinRetries) }
        if let httpStatus { error["httpStatus"] = .int(httpStatus) }
        if let urlError { error["urlError"] = .int(urlError.code.rawValue) }
        if let input {
            error["kind"] = .string(input.kind.rawValue)
            error["parameter"] = .string(naming.parameter(input.parameter, input.operation))
        }
        return .object(["error": .object(error)])
    }

    /// The error as JSON in Swift terms.
    public var json: JSONValue { json(.swift) }
}
