/// A CTAP status byte as the platform sees it (CTAP 2.1 §8.2 "Status codes"): the first byte of
/// every authenticator response. Any byte is representable, so a card that answers a code this
/// list does not know still produces an error that names the byte.
public struct CTAPStatusCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The constant's name as CTAP 2.1 writes it, e.g. `CTAP2_ERR_PIN_INVALID`, or `0xNN` for a
    /// byte the specification does not define.
    public var name: String {
        Self.names[rawValue] ?? "0x" + Hex.string([rawValue])
    }

    /// `CTAP2_ERR_PIN_INVALID (0x31)`.
    public var description: String {
        Self.names[rawValue] == nil ? name : "\(name) (0x\(Hex.string([rawValue])))"
    }

    /// `CTAP2_OK`.
    public static let ok = CTAPStatusCode(rawValue: 0x00)
    /// `CTAP1_ERR_INVALID_COMMAND`.
    public static let invalidCommand = CTAPStatusCode(rawValue: 0x01)
    /// `CTAP1_ERR_INVALID_PARAMETER`.
    public static let invalidParameter = CTAPStatusCode(rawValue: 0x02)
    /// `CTAP1_ERR_INVALID_LENGTH`.
    public static let invalidLength = CTAPStatusCode(rawValue: 0x03)
    /// `CTAP2_ERR_MISSING_PARAMETER`.
    public static let missingParameter = CTAPStatusCode(rawValue: 0x14)
    /// `CTAP2_ERR_CREDENTIAL_EXCLUDED`.
    public static let credentialExcluded = CTAPStatusCode(rawValue: 0x19)
    /// `CTAP2_ERR_UNSUPPORTED_ALGORITHM`.
    public static let unsupportedAlgorithm = CTAPStatusCode(rawValue: 0x26)
    /// `CTAP2_ERR_OPERATION_DENIED`.
    public static let operationDenied = CTAPStatusCode(rawValue: 0x27)
    /// `CTAP2_ERR_KEY_STORE_FULL`.
    public static let keyStoreFull = CTAPStatusCode(rawValue: 0x28)
    /// `CTAP2_ERR_UNSUPPORTED_OPTION`.
    public static let unsupportedOption = CTAPStatusCode(rawValue: 0x2B)
    /// `CTAP2_ERR_INVALID_OPTION`.
    public static let invalidOption = CTAPStatusCode(rawValue: 0x2C)
    /// `CTAP2_ERR_KEEPALIVE_CANCEL`.
    public static let keepaliveCancel = CTAPStatusCode(rawValue: 0x2D)
    /// `CTAP2_ERR_NO_CREDENTIALS`.
    public static let noCredentials = CTAPStatusCode(rawValue: 0x2E)
    /// `CTAP2_ERR_USER_ACTION_TIMEOUT`.
    public static let userActionTimeout = CTAPStatusCode(rawValue: 0x2F)
    /// `CTAP2_ERR_NOT_ALLOWED`.
    public static let notAllowed = CTAPStatusCode(rawValue: 0x30)
    /// `CTAP2_ERR_PIN_INVALID`.
    public static let pinInvalid = CTAPStatusCode(rawValue: 0x31)
    /// `CTAP2_ERR_PIN_BLOCKED`.
    public static let pinBlocked = CTAPStatusCode(rawValue: 0x32)
    /// `CTAP2_ERR_PIN_AUTH_INVALID`.
    public static let pinAuthInvalid = CTAPStatusCode(rawValue: 0x33)
    /// `CTAP2_ERR_PIN_AUTH_BLOCKED`.
    public static let pinAuthBlocked = CTAPStatusCode(rawValue: 0x34)
    /// `CTAP2_ERR_PIN_NOT_SET`.
    public static let pinNotSet = CTAPStatusCode(rawValue: 0x35)
    /// `CTAP2_ERR_PUAT_REQUIRED`.
    public static let puatRequired = CTAPStatusCode(rawValue: 0x36)
    /// `CTAP2_ERR_PIN_POLICY_VIOLATION`.
    public static let pinPolicyViolation = CTAPStatusCode(rawValue: 0x37)
    /// `CTAP2_ERR_REQUEST_TOO_LARGE`.
    public static let requestTooLarge = CTAPStatusCode(rawValue: 0x39)
    /// `CTAP2_ERR_UP_REQUIRED`.
    public static let upRequired = CTAPStatusCode(rawValue: 0x3B)
    /// `CTAP2_ERR_INVALID_SUBCOMMAND`.
    public static let invalidSubcommand = CTAPStatusCode(rawValue: 0x3E)
    /// `CTAP2_ERR_UNAUTHORIZED_PERMISSION`.
    public static let unauthorizedPermission = CTAPStatusCode(rawValue: 0x40)
    /// `CTAP1_ERR_OTHER`.
    public static let other = CTAPStatusCode(rawValue: 0x7F)

    /// The status codes of CTAP 2.1 §8.2 with their names.
    private static let names: [UInt8: String] = [
        0x00: "CTAP2_OK",
        0x01: "CTAP1_ERR_INVALID_COMMAND",
        0x02: "CTAP1_ERR_INVALID_PARAMETER",
        0x03: "CTAP1_ERR_INVALID_LENGTH",
        0x04: "CTAP1_ERR_INVALID_SEQ",
        0x05: "CTAP1_ERR_TIMEOUT",
        0x06: "CTAP1_ERR_CHANNEL_BUSY",
        0x0A: "CTAP1_ERR_LOCK_REQUIRED",
        0x0B: "CTAP1_ERR_INVALID_CHANNEL",
        0x11: "CTAP2_ERR_CBOR_UNEXPECTED_TYPE",
        0x12: "CTAP2_ERR_INVALID_CBOR",
        0x14: "CTAP2_ERR_MISSING_PARAMETER",
        0x15: "CTAP2_ERR_LIMIT_EXCEEDED",
        0x17: "CTAP2_ERR_FP_DATABASE_FULL",
        0x18: "CTAP2_ERR_LARGE_BLOB_STORAGE_FULL",
        0x19: "CTAP2_ERR_CREDENTIAL_EXCLUDED",
        0x21: "CTAP2_ERR_PROCESSING",
        0x22: "CTAP2_ERR_INVALID_CREDENTIAL",
        0x23: "CTAP2_ERR_USER_ACTION_PENDING",
        0x24: "CTAP2_ERR_OPERATION_PENDING",
        0x25: "CTAP2_ERR_NO_OPERATIONS",
        0x26: "CTAP2_ERR_UNSUPPORTED_ALGORITHM",
        0x27: "CTAP2_ERR_OPERATION_DENIED",
        0x28: "CTAP2_ERR_KEY_STORE_FULL",
        0x2A: "CTAP2_ERR_NO_OPERATION_PENDING",
        0x2B: "CTAP2_ERR_UNSUPPORTED_OPTION",
        0x2C: "CTAP2_ERR_INVALID_OPTION",
        0x2D: "CTAP2_ERR_KEEPALIVE_CANCEL",
        0x2E: "CTAP2_ERR_NO_CREDENTIALS",
        0x2F: "CTAP2_ERR_USER_ACTION_TIMEOUT",
        0x30: "CTAP2_ERR_NOT_ALLOWED",
        0x31: "CTAP2_ERR_PIN_INVALID",
        0x32: "CTAP2_ERR_PIN_BLOCKED",
        0x33: "CTAP2_ERR_PIN_AUTH_INVALID",
        0x34: "CTAP2_ERR_PIN_AUTH_BLOCKED",
        0x35: "CTAP2_ERR_PIN_NOT_SET",
        0x36: "CTAP2_ERR_PUAT_REQUIRED",
        0x37: "CTAP2_ERR_PIN_POLICY_VIOLATION",
        0x39: "CTAP2_ERR_REQUEST_TOO_LARGE",
        0x3A: "CTAP2_ERR_ACTION_TIMEOUT",
        0x3B: "CTAP2_ERR_UP_REQUIRED",
        0x3C: "CTAP2_ERR_UV_BLOCKED",
        0x3D: "CTAP2_ERR_INTEGRITY_FAILURE",
        0x3E: "CTAP2_ERR_INVALID_SUBCOMMAND",
        0x3F: "CTAP2_ERR_UV_INVALID",
        0x40: "CTAP2_ERR_UNAUTHORIZED_PERMISSION",
        0x7F: "CTAP1_ERR_OTHER",
    ]
}
