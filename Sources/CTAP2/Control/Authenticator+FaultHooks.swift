extension Authenticator {
    /// User presence as the commands test it: an injected decline first, then ``userPresence``.
    func isUserPresent() -> Bool {
        if let faultInjector, faultInjector.declinesUserPresence() { return false }
        return userPresence()
    }

    /// Authenticator-data flags after any injected change.
    func injectedFlags(_ flags: AuthenticatorData.Flags) -> AuthenticatorData.Flags {
        faultInjector?.authenticatorDataFlags(flags) ?? flags
    }
}
