import FIDOWire
import CardCrypto

/// The card's rules for a new PIN (CTAP 2.1 §6.5.5.5 step 6–7, §6.5.5.6): at least
/// ``minimumCodePoints`` Unicode code points, at most 63 bytes of UTF-8, valid UTF-8, no NUL.
/// setPIN, changePIN and the test double's direct `setPIN` all go through this one check.
public struct PINPolicy: Sendable, Equatable {
    /// The minimum length in code points (getInfo `minPINLength`).
    public var minimumCodePoints: Int
    /// The maximum length in code points (getInfo `maxPINLength`).
    public var maximumCodePoints: Int
    /// The most bytes of UTF-8 a PIN may have (CTAP: 63, as the padded block is 64).
    public static let maximumBytes = 63

    public init(minimumCodePoints: Int, maximumCodePoints: Int = 63) {
        self.minimumCodePoints = minimumCodePoints
        self.maximumCodePoints = maximumCodePoints
    }

    /// A PIN that passed the policy: what the card stores of it.
    public struct AcceptedPIN: Sendable, Equatable {
        /// LEFT(SHA-256(PIN), 16), what the card keeps and compares (CTAP 2.1 §6.5.5.5).
        public let hash: [UInt8]
        /// Its length in code points.
        public let codePoints: Int
    }

    /// Why a PIN is refused.
    public enum Violation: Error, Equatable, Sendable, CustomStringConvertible {
        case containsNUL
        case tooLong(bytes: Int)
        case notUTF8
        case tooShort(codePoints: Int, minimum: Int)
        case tooManyCodePoints(codePoints: Int, maximum: Int)

        public var description: String {
            switch self {
            case .containsNUL: "it contains a NUL character"
            case .tooLong(let bytes): "it is \(bytes) bytes of UTF-8; at most \(PINPolicy.maximumBytes) fit"
            case .notUTF8: "it is not valid UTF-8"
            case .tooShort(let codePoints, let minimum):
                "it has \(codePoints) code points; the card's minimum is \(minimum)"
            case .tooManyCodePoints(let codePoints, let maximum):
                "it has \(codePoints) code points; the card's maximum is \(maximum)"
            }
        }
    }

    /// Checks the PIN's UTF-8 bytes.
    public func check(_ pin: [UInt8]) throws(Violation) -> AcceptedPIN {
        guard !pin.contains(0) else { throw .containsNUL }
        guard pin.count <= Self.maximumBytes else { throw .tooLong(bytes: pin.count) }
        guard let text = String(validating: pin, as: UTF8.self) else { throw .notUTF8 }
        let codePoints = text.unicodeScalars.count
        guard codePoints >= minimumCodePoints else { throw .tooShort(codePoints: codePoints, minimum: minimumCodePoints) }
        guard codePoints <= maximumCodePoints else { throw .tooManyCodePoints(codePoints: codePoints, maximum: maximumCodePoints) }
        return AcceptedPIN(hash: Array(SHA256.hash(pin).prefix(16)), codePoints: codePoints)
    }

    /// Checks a decrypted `newPinEnc` block: 64 bytes (else INVALID_PARAMETER), the PIN before
    /// its zero padding (else PIN_POLICY_VIOLATION).
    func checkPadded(_ padded: [UInt8]) throws(CTAPStatus) -> AcceptedPIN {
        guard padded.count == 64 else { throw .invalidParameter }
        var pin = padded
        while let last = pin.last, last == 0 { pin.removeLast() }
        do {
            return try check(pin)
        } catch {
            throw .pinPolicyViolation
        }
    }
}
