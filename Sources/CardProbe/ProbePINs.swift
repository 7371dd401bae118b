import CardCrypto

/// The PINs the writing part sets, changes to and gets wrong. They are drawn at random for each
/// prober, so that no card's PIN is the probe's (a fixed PIN that happened to be the user's would
/// let the probe change it). None is ever written to a fingerprint, and the fingerprint is the same
/// whichever they are (every request that carries one is kept as its shape; the PIN entries'
/// answers name the right and wrong PIN, not their digits).
public struct ProbePINs: Equatable, Sendable {
    /// The PIN setPIN sets on the reset card.
    public var pin: String
    /// The PIN changePIN changes it to.
    public var changedPIN: String
    /// A PIN that is neither.
    public var wrongPIN: String

    /// Three PINs of eight digits; they must differ (a precondition: a test chooses them).
    public init(pin: String, changedPIN: String, wrongPIN: String) {
        precondition(Set([pin, changedPIN, wrongPIN]).count == 3, "the probe's three PINs must differ")
        self.pin = pin
        self.changedPIN = changedPIN
        self.wrongPIN = wrongPIN
    }

    /// Three different PINs of eight random digits.
    public static func random() -> ProbePINs {
        var drawn: [String] = []
        while drawn.count < 3 {
            // 2^32 mod 10^8 leaves a bias below 3 %, which a PIN nobody has to guess can carry.
            let value = SecureRandom.bytes(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 100_000_000
            let digits = String(value)
            let pin = String(repeating: "0", count: 8 - digits.count) + digits
            if !drawn.contains(pin) { drawn.append(pin) }
        }
        return ProbePINs(pin: drawn[0], changedPIN: drawn[1], wrongPIN: drawn[2])
    }
}
