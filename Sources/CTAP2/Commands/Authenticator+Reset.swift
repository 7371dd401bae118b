import FIDOWire

extension Authenticator {
    /// The window after power-up during which authenticatorReset is allowed. The profile keeps it
    /// within a day (``CardProfile/numericLimits``); a value no Int64 of nanoseconds holds would be
    /// an unbounded window, never a trap.
    var resetWindow: Duration? {
        profile.resetWindowSeconds.map { seconds in
            guard let nanoseconds = Int64(exactly: (seconds * 1e9).rounded()) else { return seconds > 0 ? .nanoseconds(Int64.max) : .zero }
            return .nanoseconds(nanoseconds)
        }
    }

    /// authenticatorReset (CTAP 2.1 §6.6): wipes credentials, PIN and retries, the PIN policy,
    /// alwaysUv, enterprise attestation, the large blobs and the persistent token, replaces the
    /// master secret (so every non-discoverable credential ID dies too) and all volatile state.
    /// Allowed only within the profile's window after power-up, with user presence. The signature
    /// counter keeps counting up so that no relying party ever sees it go backwards.
    mutating func reset(changes: inout [CardMutation]) throws(CTAPStatus) {
        if let window = resetWindow, session.poweredOnAt.duration(to: now) > window {
            throw .notAllowed
        }
        guard try isUserPresent() else { throw .operationDenied }
        changes.append(.reset(masterSecret: random.bytes(32)))
        session = AuthenticatorSession(at: session.poweredOnAt, protocols: profile.pinUvAuthProtocols, random: &random)
    }
}
