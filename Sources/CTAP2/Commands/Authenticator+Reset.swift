import FIDOWire
extension Authenticator {
    /// authenticatorReset (CTAP 2.1 §6.6): wipes credentials, PIN and retries, replaces the master
    /// secret (so every non-discoverable credential ID dies too) and all volatile state. Allowed
    /// only within the profile's window after power-up, with user presence. The signature counter
    /// keeps counting up so that no relying party ever sees it go backwards.
    func reset() throws(CTAPStatus) {
        if let window = profile.resetWindowSeconds, clock() - volatile.poweredOnAt > window {
            throw .notAllowed
        }
        guard isUserPresent() else { throw .operationDenied }
        let masterSecret = randomBytes(32)
        try persist(.reset(masterSecret: masterSecret))
        let poweredOnAt = volatile.poweredOnAt
        resetVolatileState()
        volatile.poweredOnAt = poweredOnAt
    }
}
