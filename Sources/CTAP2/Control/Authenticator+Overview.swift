import FIDOWire

/// What a person looking at the card may see of it (the card page, `ctl`'s `details`): what
/// getInfo reports, and the live pinUvAuthToken's permissions and timers — never a secret (no
/// token value, no key).
public struct AuthenticatorOverview: Sendable, Equatable {
    /// The AAGUID, as 8-4-4-4-12 lower-case hex.
    public var aaguid: String
    public var versions: [String]
    public var extensions: [String]
    /// getInfo's options, in the order the card lists them.
    public var options: [Option]
    public var forcePINChange: Bool
    /// The minimum PIN length in force (the profile's or a larger one set by authenticatorConfig).
    public var minPINLength: Int
    public var remainingDiscoverableCredentials: Int
    /// The pinUvAuthToken in use, nil when none is.
    public var token: Token?

    /// One getInfo option.
    public struct Option: Sendable, Equatable {
        public var name: String
        public var value: Bool
    }

    /// The pinUvAuthToken in use: what it allows, and for how long.
    public struct Token: Sendable, Equatable {
        /// The permissions' short names (`mc`, `ga`, …), in bit order.
        public var permissions: [String]
        /// The permissions RP ID, when the token is bound to one.
        public var rpId: String?
        public var userPresent: Bool
        public var userVerified: Bool
        /// Whether an operation has used it since it began (its time limit is then the longer one).
        public var used: Bool
        /// How long until it stops being in use, unless an operation uses or ends it first.
        public var expiresIn: Duration
    }
}

extension Authenticator {
    /// The card as a person may see it at `now` (the card's clock). Reads only: getInfo is built
    /// on a copy, so nothing the card holds (its random state included) changes.
    public func overview(at now: CardInstant) -> AuthenticatorOverview {
        var copy = self
        let info = copy.getInfo()
        var token = session.token
        token.observe(at: now)
        var tokenOverview: AuthenticatorOverview.Token?
        if token.inUse, let started = token.startedAt {
            let limit = token.used ? PINUVAuthTokenState.maxUsageTimePeriod : PINUVAuthTokenState.initialUsageTimeLimit
            tokenOverview = .init(
                permissions: PINUVAuthPermissions.names.filter { token.permissions.contains($0.0) }.map(\.1),
                rpId: token.rpId.map { String(decoding: $0, as: UTF8.self) },
                userPresent: token.userPresent, userVerified: token.userVerified, used: token.used,
                expiresIn: max(.zero, limit - started.duration(to: now)))
        }
        let hex = info.aaguid.hexString
        var aaguid = ""
        for (index, character) in hex.enumerated() {
            if [8, 12, 16, 20].contains(index) { aaguid.append("-") }
            aaguid.append(character)
        }
        return AuthenticatorOverview(
            aaguid: aaguid, versions: info.versions, extensions: info.extensions ?? [],
            options: info.options.map { AuthenticatorOverview.Option(name: $0.name, value: $0.value) },
            forcePINChange: state.forcePINChange, minPINLength: state.effectiveMinPINLength,
            remainingDiscoverableCredentials: remainingDiscoverableCredentials, token: tokenOverview)
    }
}
