internal import COpenSSL

/// An error raised by a failing cryptographic operation.
///
/// When the failure comes from OpenSSL, `openSSLCode` is the first code taken
/// from the calling thread's OpenSSL error queue (`ERR_get_error()`) and
/// `reason` is its text (`ERR_error_string_n`). Failures detected by
/// CardCrypto itself (for example a wrong key length) carry code 0.
public struct CryptoError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The C function (or CardCrypto operation) that failed, e.g. `"EVP_PKEY_fromdata"`.
    public let function: String
    /// OpenSSL's packed error code from `ERR_get_error()`, or 0 when there was none.
    public let openSSLCode: UInt
    /// A human-readable explanation of the failure.
    public let reason: String

    /// Creates an error from its parts.
    ///
    /// - Parameters:
    ///   - function: The failing C function or CardCrypto operation.
    ///   - openSSLCode: OpenSSL's error code, or 0 when the failure is not OpenSSL's.
    ///   - reason: A human-readable explanation.
    public init(function: String, openSSLCode: UInt = 0, reason: String) {
        self.function = function
        self.openSSLCode = openSSLCode
        self.reason = reason
    }

    /// A one-line summary: the function, the reason and, if any, the OpenSSL code in hex.
    public var description: String {
        if openSSLCode == 0 {
            return "\(function) failed: \(reason)"
        }
        return "\(function) failed: \(reason) (OpenSSL error 0x\(String(openSSLCode, radix: 16)))"
    }
}

extension CryptoError {
    /// Builds an error for a failed OpenSSL call from the calling thread's error
    /// queue, then empties the queue so stale entries never leak into a later report.
    static func openSSL(_ function: String) -> CryptoError {
        let code = ERR_get_error()
        ERR_clear_error()
        guard code != 0 else {
            return CryptoError(function: function, openSSLCode: 0, reason: "operation failed (no OpenSSL error queued)")
        }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        let text = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return CryptoError(function: function, openSSLCode: code, reason: String(decoding: text, as: UTF8.self))
    }

    /// Builds an error for input rejected by CardCrypto itself (no OpenSSL code).
    static func invalidInput(_ function: String, _ reason: String) -> CryptoError {
        CryptoError(function: function, openSSLCode: 0, reason: reason)
    }
}
