import FIDOWire

/// The pinUvAuthToken's state (CTAP 2.1 §6.5.2.1 and its maintenance functions, §6.5.3): its
/// permissions and RP, whether it is in use, the user-present and user-verified flags, and the
/// timers — kept as the instants they started, and observed whenever the token is looked at
/// (the observable effect of the specification's background observer).
struct PINUVAuthTokenState: Sendable, Equatable {
    var permissions: PINUVAuthPermissions = []
    /// The permissions RP ID, as UTF-8 (RP IDs are compared as bytes).
    var rpId: [UInt8]?
    var inUse = false
    var userPresent = false
    var userVerified = false
    /// When `beginUsingPinUvAuthToken` started the usage timer.
    var startedAt: CardInstant?
    /// Whether the platform has used the token in an operation since it began.
    var used = false
    /// Issued by getPinToken (CTAP 2.0's subcommand): no permissions were asked for.
    var issuedByGetPinToken = false

    /// The per-transport initial usage time limit for NFC: 19.8 s (CTAP 2.1 §6.5.2.1).
    static let initialUsageTimeLimit = Duration.milliseconds(19_800)
    /// The user present time limit: the same as the initial usage time limit.
    static let userPresentTimeLimit = initialUsageTimeLimit
    /// The max usage time period: 600 s, the specification's default maximum.
    static let maxUsageTimePeriod = Duration.seconds(600)

    /// `beginUsingPinUvAuthToken(userIsPresent)`.
    mutating func beginUsing(userIsPresent: Bool, at now: CardInstant) {
        userPresent = userIsPresent
        userVerified = true
        startedAt = now
        used = false
        inUse = true
    }

    /// `pinUvAuthTokenUsageTimerObserver()`, at `now`: past the max usage period, or past the
    /// initial usage limit without a use, the token stops being in use; past the user present
    /// limit, its user-present flag clears.
    mutating func observe(at now: CardInstant) {
        guard inUse, let startedAt else { return }
        let elapsed = startedAt.duration(to: now)
        if elapsed >= Self.maxUsageTimePeriod || (elapsed >= Self.initialUsageTimeLimit && !used) {
            stopUsing()
            return
        }
        if elapsed >= Self.userPresentTimeLimit { userPresent = false }
    }

    /// `stopUsingPinUvAuthToken()`: every state variable back to its initial value.
    mutating func stopUsing() {
        self = PINUVAuthTokenState()
    }

    /// `clearUserPresentFlag()`, `clearUserVerifiedFlag()` and
    /// `clearPinUvAuthTokenPermissionsExceptLbw()`, as makeCredential and getAssertion call them
    /// after collecting user presence.
    mutating func consumeAfterUserPresence() {
        guard inUse else { return }
        userPresent = false
        userVerified = false
        permissions.formIntersection(.largeBlobWrite)
    }
}
