/// The four operations whose sample-app form returns a String (``ArculusFido/setPin(pin:)``,
/// ``ArculusFido/changePin(oldPin:newPin:)``, ``ArculusFido/registerUser(fidoServer:pin:username:displayName:relyingParty:resetDevice:registrationInfo:allowRPIDMismatch:strictRP:)``,
/// ``ArculusFido/authenticateUser(fidoServer:pin:username:displayName:relyingParty:allowRPIDMismatch:strictRP:)``),
/// with the same names and labels, typed results, and ``ArculusFidoError`` thrown:
///
/// ```swift
/// try await arculusFido.throwing.setPin(pin: "123456")
/// let registered = try await arculusFido.throwing.registerUser(fidoServer: server, pin: "123456", username: "alice",
///                                                              displayName: "Alice", relyingParty: "example.com")
/// print(registered.credentialId, registered.serverResponse)
/// ```
public struct ArculusFidoThrowing: Sendable {
    let sdk: ArculusFido

    /// Sets the card's first PIN ("6+ digit" in the vendor's words; at least 4 characters and at
    /// most 63 bytes, or the card's own minimum from getInfo if higher).
    public func setPin(pin: String) async throws(ArculusFidoError) {
        try InputCheck(operation: .setPin).pin(pin, isNew: true)
        try await sdk.withCard(.setPin) { client, operation throws(ArculusFidoError) in
            try await CardOperations.setPIN(client, pin, operation)
        }
    }

    /// Changes the PIN. A wrong `oldPin` costs one of the card's PIN attempts (608).
    public func changePin(oldPin: String, newPin: String) async throws(ArculusFidoError) {
        let check = InputCheck(operation: .changePin)
        try check.pin(oldPin, .oldPin)
        try check.pin(newPin, .newPin, isNew: true)
        try await sdk.withCard(.changePin) { client, operation throws(ArculusFidoError) in
            try await CardOperations.changePIN(client, from: oldPin, to: newPin, operation)
        }
    }

    /// The client-direct registration: the app talks to the FIDO2 server itself.
    ///
    /// 1. asks the server's registration begin endpoint for options (`username`, `displayName`,
    ///    `authenticatorSelection`, `attestation`), before the card is touched;
    /// 2. taps the card (SELECT, getInfo) and, with `resetDevice`, erases it and sets `pin`;
    /// 3. the card makes a discoverable credential over the server's options (its RP, its
    ///    `user.id` as the user handle, challenge, excluded credentials), with clientDataJSON for
    ///    the server's origin; a `none` attestation when the server asked for none;
    /// 4. posts the result (and `registrationInfo` when given) to the complete endpoint, with
    ///    the session cookie of step 1.
    ///
    /// The RP is the server's, as in the vendor's sample apps: the card signs for the options'
    /// `rp.id`, and `relyingParty` is the fallback when they name none (so it may be nil then).
    /// With `strictRP` the card signs for `relyingParty` only: a server that names another RP ID
    /// is refused with 702 Relying Party Mismatch and the card is not touched. The result names
    /// the RP ID signed for (``ArculusFidoServerResult/rpId``).
    ///
    /// When the server refuses the result the new credential is deleted from the card again (a
    /// second tap), so card and server stay in step. The wire is ``ArculusFido``'s client-direct table.
    public func registerUser(fidoServer: ArculusFidoServer, pin: String, username: String, displayName: String,
                             relyingParty: String?, resetDevice: Bool = false, registrationInfo: String? = nil,
                             allowRPIDMismatch: Bool = false, strictRP: Bool = false) async throws(ArculusFidoError) -> ArculusFidoServerResult {
        try await sdk.clientDirectRegistration(fidoServer: fidoServer, pin: pin, username: username, displayName: displayName,
                                               relyingParty: relyingParty, resetDevice: resetDevice,
                                               registrationInfo: registrationInfo, allowRPIDMismatch: allowRPIDMismatch, strictRP: strictRP)
    }

    /// The client-direct authentication: asks the authentication begin endpoint for options
    /// (`username`, `userVerification`; `displayName` is not part of that request), then taps the
    /// card, lets it sign the server's challenge over its allowed credentials (602 when the card
    /// holds none of them; 603 when the server does not know the user), and posts the result to
    /// the complete endpoint with the session cookie. The RP ID is the server's (`rpId` of its
    /// options), `relyingParty` the fallback, as in ``registerUser(fidoServer:pin:username:displayName:relyingParty:resetDevice:registrationInfo:allowRPIDMismatch:strictRP:)``.
    public func authenticateUser(fidoServer: ArculusFidoServer, pin: String, username: String, displayName: String,
                                 relyingParty: String?, allowRPIDMismatch: Bool = false,
                                 strictRP: Bool = false) async throws(ArculusFidoError) -> ArculusFidoServerResult {
        try await sdk.clientDirectAuthentication(fidoServer: fidoServer, pin: pin, username: username, relyingParty: relyingParty,
                                                 allowRPIDMismatch: allowRPIDMismatch, strictRP: strictRP)
    }
}
