/// The checks of one operation's inputs, made before the card is tapped; each refusal is an
/// ``ArculusFidoInputError`` naming the operation and the parameter. The rules:
///
/// - RP IDs: ``RelyingPartyID``; origins: ``WebOrigin``; the RP ID must fit the origin unless
///   the caller allows a mismatch.
/// - Challenges: base64url, or standard base64 as `base64EncodedString()` writes it
///   (``Base64URL/strictDecode(_:)``), of at least 16 bytes (WebAuthn §13.4.3).
/// - Credential IDs: base64url of 16 to 1023 bytes (WebAuthn §4, "Credential ID").
/// - User names: not empty or blank. User names and display names longer than CTAP's 64 bytes are
///   truncated (``UserText``), as CTAP 2.1 §6.1.2 lets authenticators do.
/// - PINs: at least 4 code points (CTAP 2.1 §6.5.1; the vendor asks apps for 6+ digits), at most
///   63 bytes of UTF-8, no NUL; a new PIN also at least the card's own minPINLength
///   (``newPINFitsCard(_:_:minimum:)``, once getInfo is known).
struct InputCheck {
    let operation: ArculusFidoOperation?

    /// The error for `parameter`'s `value`.
    func refusal(_ kind: ArculusFidoInputError.Kind, _ parameter: ArculusFidoParameter, value: String?,
                 _ reason: ArculusFidoMessage) -> ArculusFidoError {
        ArculusFidoError(ArculusFidoInputError(kind, parameter, of: operation, value: value, reason))
    }

    func rpID(_ id: String, _ parameter: ArculusFidoParameter = .rpId) throws(ArculusFidoError) {
        if let problem = RelyingPartyID.problem(id) { throw refusal(.invalidRPID, parameter, value: id, "\(problem)") }
    }

    /// The caller's RP ID in a flow: the fallback for a server that names none, so it may be
    /// left out, except in strict RP mode, where the card signs for it alone.
    func relyingParty(_ id: String?, _ parameter: ArculusFidoParameter, strict: Bool) throws(ArculusFidoError) {
        guard let id else {
            guard !strict else {
                throw refusal(.invalidRPID, parameter, value: nil,
                              "is needed with \(ArculusFidoParameter.strictRP, of: operation): the card signs for that RP ID only")
            }
            return
        }
        try rpID(id, parameter)
    }

    func origin(_ text: String, _ parameter: ArculusFidoParameter = .origin) throws(ArculusFidoError) -> WebOrigin {
        let (origin, problem) = WebOrigin.parse(text)
        guard let origin else { throw refusal(.invalidOrigin, parameter, value: text, "\(problem ?? "is not an origin")") }
        return origin
    }

    /// The RP ID `id` (of `rpParameter`) may be used on `origin` (of `originParameter`), unless
    /// `allowMismatch`.
    func fit(_ id: String, _ rpParameter: ArculusFidoParameter = .rpId, origin: WebOrigin,
             _ originParameter: ArculusFidoParameter = .origin, allowMismatch: Bool) throws(ArculusFidoError) {
        guard !allowMismatch, let misfit = RelyingPartyID.misfit(id, origin: origin) else { return }
        let anyway = RelyingPartyID.anyway(operation)
        if misfit == .ipAddressOrigin {
            throw refusal(.rpIDMismatch, originParameter, value: origin.serialised, "\(RelyingPartyID.ipAddressReason(origin))" + anyway)
        }
        let originText: ArculusFidoMessage = "\(originParameter, of: operation) \(ArculusFidoInputError.quoted(origin.serialised))"
        throw refusal(.rpIDMismatch, rpParameter, value: id, RelyingPartyID.reason(misfit, origin: originText) + anyway)
    }

    /// The values of a card-only operation, in the order of its parameters: the challenge's bytes
    /// and the origin clientDataJSON gets.
    func cardOnly(pin: String, username: String, rpId: String, challenge: String, origin: String,
                  allowMismatch: Bool) throws(ArculusFidoError) -> (challenge: [UInt8], origin: WebOrigin) {
        try self.pin(pin)
        try self.username(username)
        try rpID(rpId)
        let bytes = try self.challenge(challenge)
        let webOrigin = try self.origin(origin)
        try fit(rpId, origin: webOrigin, allowMismatch: allowMismatch)
        return (bytes, webOrigin)
    }

    func challenge(_ text: String, _ parameter: ArculusFidoParameter = .challenge) throws(ArculusFidoError) -> [UInt8] {
        if text.isEmpty { throw refusal(.invalidChallenge, parameter, value: text, "is empty; pass the server's challenge as it sent it") }
        let (bytes, problem) = Base64URL.strictDecode(text)
        guard let bytes else { throw refusal(.invalidChallenge, parameter, value: text, "\(problem ?? "is not base64url")") }
        guard bytes.count >= 16 else {
            throw refusal(.invalidChallenge, parameter, value: text,
                          "is \(bytes.count) byte\(bytes.count == 1 ? "" : "s"); WebAuthn challenges are at least 16 random bytes; pass the server's challenge as it sent it")
        }
        return bytes
    }

    func credentialID(_ text: String, _ parameter: ArculusFidoParameter = .credentialId) throws(ArculusFidoError) -> [UInt8] {
        if text.isEmpty { throw refusal(.invalidCredentialID, parameter, value: text, "is empty; give the id of a registration response (base64url)") }
        let (bytes, problem) = Base64URL.strictDecode(text)
        guard let bytes else { throw refusal(.invalidCredentialID, parameter, value: text, "\(problem ?? "is not base64url")") }
        guard (16...1023).contains(bytes.count) else {
            throw refusal(.invalidCredentialID, parameter, value: text,
                          "is \(bytes.count) bytes; credential IDs are 16 to 1023 bytes (WebAuthn §4)")
        }
        return bytes
    }

    /// A user handle a caller passes (a server's `user.id`): base64url of 1 to 64 bytes
    /// (WebAuthn §5.4.3).
    func userHandle(_ text: String, _ parameter: ArculusFidoParameter = .userId) throws(ArculusFidoError) -> [UInt8] {
        let (bytes, problem) = Base64URL.strictDecode(text)
        guard let bytes else { throw refusal(.invalidUser, parameter, value: text, "\(problem ?? "is not base64url")") }
        guard (1...64).contains(bytes.count) else {
            throw refusal(.invalidUser, parameter, value: text, "is \(bytes.count) bytes; a user handle is 1 to 64 bytes (WebAuthn §5.4.3)")
        }
        return bytes
    }

    func username(_ name: String, _ parameter: ArculusFidoParameter = .username) throws(ArculusFidoError) {
        if name.isEmpty { throw refusal(.invalidUser, parameter, value: name, "is empty; give the account's name, e.g. alice@example.com") }
        if name.allSatisfy(\.isWhitespace) {
            throw refusal(.invalidUser, parameter, value: name, "is blank; give the account's name, e.g. alice@example.com")
        }
    }

    /// A PIN the card may have (`isNew`: one to set).
    func pin(_ pin: String, _ parameter: ArculusFidoParameter = .pin, isNew: Bool = false) throws(ArculusFidoError) {
        let codePoints = pin.unicodeScalars.count
        let bytes = pin.utf8.count
        let hopeless = isNew ? "" : ", so it cannot be the card's PIN; sending it would only cost one of the card's attempts"
        if pin.isEmpty { throw refusal(.invalidPIN, parameter, value: nil, "is empty") }
        if codePoints < 4 {
            throw refusal(.invalidPIN, parameter, value: nil,
                          "has \(codePoints) character\(codePoints == 1 ? "" : "s"); a PIN has at least 4 (CTAP 2.1 §6.5.1; the vendor asks apps for 6 or more digits)\(hopeless)")
        }
        if bytes > 63 { throw refusal(.invalidPIN, parameter, value: nil, "is \(bytes) bytes of UTF-8; a PIN has at most 63\(hopeless)") }
        if pin.unicodeScalars.contains("\u{0}") { throw refusal(.invalidPIN, parameter, value: nil, "contains a NUL character, which no PIN can\(hopeless)") }
    }

    /// A new PIN against the card's own minimum (getInfo minPINLength), checked once the card is
    /// tapped and before any PIN command.
    func newPINFitsCard(_ pin: String, _ parameter: ArculusFidoParameter, minimum: Int) throws(ArculusFidoError) {
        let codePoints = pin.unicodeScalars.count
        guard codePoints < minimum else { return }
        throw refusal(.invalidPIN, parameter, value: nil,
                      "has \(codePoints) characters; this card's PIN policy wants at least \(minimum) (getInfo minPINLength)")
    }
}

/// User names and display names as the card gets them: at most 64 bytes of UTF-8 (CTAP 2.1
/// §6.1.2, WebAuthn §6.4.1), cut at a character boundary.
enum UserText {
    static let limit = 64

    static func truncated(_ text: String) -> String {
        var result = ""
        var count = 0
        for character in text {
            let size = character.utf8.count
            guard count + size <= limit else { break }
            result.append(character)
            count += size
        }
        return result
    }
}
