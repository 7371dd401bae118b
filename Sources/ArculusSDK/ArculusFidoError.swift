import CTAPClient
import FIDOWire
import JSONSupport

/// An SDK operation that failed: the vendor SDK's code and a message a person can act on, plus
/// what the card or server said when there is something to say.
///
/// ```
/// 608 Get PIN Token Failed: the PIN is wrong (CTAP2_ERR_PIN_INVALID); 7 attempts left before the card blocks it.
/// ```
public struct ArculusFidoError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The vendor SDK code.
    public let code: ArculusFidoErrorCode
    /// What went wrong and what to do about it.
    public let message: String
    /// The CTAP status the card answered, when the card refused something.
    public let ctapStatus: CTAPStatus?
    /// PIN attempts left, when the error concerns the PIN.
    public let pinRetries: Int?
    /// The HTTP status of a server answer, when a server refused something.
    public let httpStatus: Int?

    /// An error with `code` and `message`, and what the card or server said.
    public init(_ code: ArculusFidoErrorCode, _ message: String, ctapStatus: CTAPStatus? = nil,
                pinRetries: Int? = nil, httpStatus: Int? = nil) {
        self.code = code
        self.message = message
        self.ctapStatus = ctapStatus
        self.pinRetries = pinRetries
        self.httpStatus = httpStatus
    }

    /// `608 Get PIN Token Failed: <message>`.
    public var description: String { "\(code): \(message)" }

    /// The error as the command line prints it: `{"error": {"code": 608, "message": ..., ...}}`.
    public var json: JSONValue {
        var error: [String: JSONValue] = [
            "code": .int(code.rawValue),
            "name": .string(code.title),
            "message": .string(message),
        ]
        if let ctapStatus {
            error["ctapStatus"] = .string(ctapStatus.name)
            error["ctapStatusCode"] = .int(ctapStatus.rawValue)
        }
        if let pinRetries { error["pinRetries"] = .int(pinRetries) }
        if let httpStatus { error["httpStatus"] = .int(httpStatus) }
        return .object(["error": .object(error)])
    }
}
