extension Authenticator {
    // What the running command's environment says: the time, the person, and the points where
    // an armed fault acts. Each act is noted in the environment kept in `running` and leaves
    // with the command's outcome; nothing here calls out of the card.

    /// Now, as the running command's environment says.
    var now: CardInstant { running?.environment.now ?? session.poweredOnAt }

    /// User presence as the commands test it: an armed decline first, then the person.
    mutating func isUserPresent() -> Bool {
        guard let command = running?.command else { return true }
        if running?.environment.faults.declinesPresence(in: command) == true { return false }
        return personIsPresent()
    }

    /// The person's answer alone (the PIN probe and excluded credentials ask without a fault).
    func personIsPresent() -> Bool {
        running?.environment.userPresence() ?? true
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
