import FIDOWire

extension Authenticator {
    // What the running command's environment says: the time, the person's answer, and the points
    // where an armed fault acts. Each act is noted in the environment kept in `running` and leaves
    // with the command's outcome; nothing here calls out of the card — an answer the person has
    // not given yet suspends the command instead.

    /// Now, as the running command's environment says.
    var now: CardInstant { running?.environment.now ?? session.poweredOnAt }

    /// User presence as the commands test it, for `rpId` when the command names one: an armed
    /// decline first, then the person's answer (``personIsPresent(rpId:)``).
    mutating func isUserPresent(rpId: String? = nil) throws(CTAPStatus) -> Bool {
        guard let command = running?.command else { return true }
        if running?.environment.faults.declinesPresence(in: command) == true { return false }
        return try personIsPresent(rpId: rpId)
    }

    /// The person's answer alone (the PIN probe and excluded credentials ask without a fault), as
    /// the environment gives it. When it is undecided the command stops here: this notes what it
    /// asks (``RunningCommand/presenceAsked``) and throws, and the command's outcome asks the driver instead of
    /// answering (``CommandOutcome/awaitsPresence``).
    mutating func personIsPresent(rpId: String? = nil) throws(CTAPStatus) -> Bool {
        guard let running else { return true }
        switch running.environment.presence {
        case .present: return true
        case .declined: return false
        case .undecided:
            self.running?.presenceAsked = PresencePrompt(command: running.command, rpId: rpId)
            throw .userActionPending
        }
    }

    /// Authenticator-data flags as an armed fault changes them.
    mutating func injectedFlags(_ flags: AuthenticatorData.Flags) -> AuthenticatorData.Flags {
        guard let command = running?.command else { return flags }
        return running?.environment.faults.flags(flags, in: command) ?? flags
    }

    /// A signature the card just made, as an armed fault changes it.
    mutating func injectedSignature(_ signature: [UInt8]) -> [UInt8] {
        guard let command = running?.command else { return signature }
        return running?.environment.faults.signature(signature, in: command) ?? signature
    }

    /// What the armed faults did since the last call, forgotten here.
    mutating func takeFaultActs() -> [FaultAct] {
        running?.environment.faults.takeActs() ?? []
    }
}
