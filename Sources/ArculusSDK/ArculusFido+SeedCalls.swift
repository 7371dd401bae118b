extension ArculusFido {
    /// The four calls the sample apps `await` without `try`, with their signatures: each returns
    /// what happened in words an alert can show, and never throws.
    ///
    /// | call | on success | on failure |
    /// | --- | --- | --- |
    /// | ``setPin(pin:)`` | `PIN set` | the error's text |
    /// | ``changePin(oldPin:newPin:)`` | `PIN changed` | the error's text |
    /// | ``registerUser(fidoServer:pin:username:displayName:relyingParty:resetDevice:registrationInfo:allowRPIDMismatch:strictRP:)`` | `Registration successful` | the error's text |
    /// | ``authenticateUser(fidoServer:pin:username:displayName:relyingParty:allowRPIDMismatch:strictRP:)`` | `Authentication successful` | the error's text |
    ///
    /// The error's text is its `localizedDescription`: the vendor code and name, the operation
    /// and the cause, e.g. `608 Get PIN Token Failed: setPin: the PIN is wrong
    /// (CTAP2_ERR_PIN_INVALID); 7 attempts left before the card blocks its PIN`.
    /// ``throwing`` has the same calls with typed results and errors.
    static func alertText(_ success: String, _ body: () async throws(ArculusFidoError) -> Void) async -> String {
        do {
            try await body()
            return success
        } catch {
            return error.description
        }
    }

    /// Sets the card's first PIN; `PIN set`, or what went wrong. See ``ArculusFidoThrowing/setPin(pin:)``.
    public func setPin(pin: String) async -> String {
        await Self.alertText("PIN set") { () throws(ArculusFidoError) in try await throwing.setPin(pin: pin) }
    }

    /// Changes the PIN; `PIN changed`, or what went wrong. See ``ArculusFidoThrowing/changePin(oldPin:newPin:)``.
    public func changePin(oldPin: String, newPin: String) async -> String {
        await Self.alertText("PIN changed") { () throws(ArculusFidoError) in try await throwing.changePin(oldPin: oldPin, newPin: newPin) }
    }

    /// The client-direct registration; `Registration successful`, or what went wrong. See
    /// ``ArculusFidoThrowing/registerUser(fidoServer:pin:username:displayName:relyingParty:resetDevice:registrationInfo:allowRPIDMismatch:strictRP:)``.
    public func registerUser(fidoServer: ArculusFidoServer, pin: String, username: String, displayName: String,
                             relyingParty: String?, resetDevice: Bool = false, registrationInfo: String? = nil,
                             allowRPIDMismatch: Bool = false, strictRP: Bool = false) async -> String {
        await Self.alertText("Registration successful") { () throws(ArculusFidoError) in
            _ = try await throwing.registerUser(fidoServer: fidoServer, pin: pin, username: username, displayName: displayName,
                                                relyingParty: relyingParty, resetDevice: resetDevice,
                                                registrationInfo: registrationInfo, allowRPIDMismatch: allowRPIDMismatch,
                                                strictRP: strictRP)
        }
    }

    /// The client-direct authentication; `Authentication successful`, or what went wrong. See
    /// ``ArculusFidoThrowing/authenticateUser(fidoServer:pin:username:displayName:relyingParty:allowRPIDMismatch:strictRP:)``.
    public func authenticateUser(fidoServer: ArculusFidoServer, pin: String, username: String, displayName: String,
                                 relyingParty: String?, allowRPIDMismatch: Bool = false, strictRP: Bool = false) async -> String {
        await Self.alertText("Authentication successful") { () throws(ArculusFidoError) in
            _ = try await throwing.authenticateUser(fidoServer: fidoServer, pin: pin, username: username, displayName: displayName,
                                                    relyingParty: relyingParty, allowRPIDMismatch: allowRPIDMismatch, strictRP: strictRP)
        }
    }
}
