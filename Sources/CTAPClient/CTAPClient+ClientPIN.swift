import CBOR
import CardCrypto
import FIDOWire

extension CTAPClient {
    /// The PIN retry counter (getPINRetries, CTAP 2.1 §6.5.5.2): attempts left before the PIN
    /// is blocked, and, on CTAP 2.1 cards, whether the card must leave the field before the next
    /// attempt (three wrong PINs in a row).
    public func pinRetries() throws(CTAPClientError) -> (retries: Int, powerCycleRequired: Bool?) {
        let response = try clientPIN(.getPINRetries, [
            .pinUvAuthProtocol: info.preferredPINUVAuthProtocol.map { .int($0) },
        ])
        guard let retries = response[ClientPINResponseKey.pinRetries]?.intValue else {
            throw .malformedResponse("getPINRetries without pinRetries")
        }
        return (retries, response[ClientPINResponseKey.powerCycleState]?.boolValue)
    }

    /// The card's key agreement key (getKeyAgreement, CTAP 2.1 §6.5.5.4).
    public func keyAgreement(_ pinProtocol: any PlatformPINUVAuthProtocol) throws(CTAPClientError) -> COSEPublicKey {
        let response = try clientPIN(.getKeyAgreement, [.pinUvAuthProtocol: .int(pinProtocol.version)])
        guard let key = response[ClientPINResponseKey.keyAgreement] else {
            throw .malformedResponse("getKeyAgreement without keyAgreement")
        }
        return try COSEPublicKey(fromCard: key)
    }

    /// Sets the first PIN (setPIN, CTAP 2.1 §6.5.5.5).
    ///
    /// - Throws: ``CTAPClientError/invalidArgument(_:)`` for a PIN the card's policy forbids
    ///   (checked here first, as CTAP asks platforms to); `CTAP2_ERR_PIN_AUTH_INVALID` from a card
    ///   that has a PIN already.
    public func setPIN(_ pin: String) throws(CTAPClientError) {
        let paddedPIN = try padded(pin, role: "new PIN")
        let pinProtocol = try self.pinProtocol
        let (platformKey, sharedSecret) = try pinProtocol.encapsulate(peer: try keyAgreement(pinProtocol))
        let newPinEnc = try pinProtocol.encrypt(key: sharedSecret, plaintext: paddedPIN)
        _ = try clientPIN(.setPIN, [
            .pinUvAuthProtocol: .int(pinProtocol.version),
            .keyAgreement: platformKey.cbor,
            .pinUvAuthParam: .bytes(pinProtocol.authenticate(key: sharedSecret, message: newPinEnc)),
            .newPinEnc: .bytes(newPinEnc),
        ])
        try refreshInfo()
    }

    /// Changes the PIN (changePIN, CTAP 2.1 §6.5.5.6). A wrong `currentPIN` costs a retry.
    public func changePIN(from currentPIN: String, to newPIN: String) throws(CTAPClientError) {
        let paddedPIN = try padded(newPIN, role: "new PIN")
        let pinProtocol = try self.pinProtocol
        let (platformKey, sharedSecret) = try pinProtocol.encapsulate(peer: try keyAgreement(pinProtocol))
        let pinHashEnc = try pinProtocol.encrypt(key: sharedSecret, plaintext: Self.pinHash(currentPIN))
        let newPinEnc = try pinProtocol.encrypt(key: sharedSecret, plaintext: paddedPIN)
        _ = try clientPIN(.changePIN, [
            .pinUvAuthProtocol: .int(pinProtocol.version),
            .keyAgreement: platformKey.cbor,
            .pinUvAuthParam: .bytes(pinProtocol.authenticate(key: sharedSecret, message: newPinEnc + pinHashEnc)),
            .newPinEnc: .bytes(newPinEnc),
            .pinHashEnc: .bytes(pinHashEnc),
        ])
    }

    /// A pinUvAuthToken for `permissions` (bound to `rpID` when given), from the PIN: with
    /// getPinUvAuthTokenUsingPinWithPermissions (CTAP 2.1 §6.5.5.7.2) on cards with the
    /// `pinUvAuthToken` option, else with getPinToken (§6.5.5.7.1), whose token carries the
    /// mc and ga permissions implicitly. A wrong PIN costs a retry.
    public func pinToken(pin: String, permissions: TokenPermissions, rpID: String? = nil) throws(CTAPClientError) -> PINUVAuthToken {
        guard !pin.isEmpty else { throw .invalidArgument("the PIN is empty") }
        // CTAP 2.1 §6.5.5.7: a makeCredential or getAssertion token is for one RP.
        if info.supportsPermissionTokens, rpID == nil, !permissions.isDisjoint(with: [.makeCredential, .getAssertion]) {
            throw .invalidArgument("a token with the makeCredential or getAssertion permission is for one RP: pass rpID")
        }
        let pinProtocol = try self.pinProtocol
        let (platformKey, sharedSecret) = try pinProtocol.encapsulate(peer: try keyAgreement(pinProtocol))
        let pinHashEnc = try pinProtocol.encrypt(key: sharedSecret, plaintext: Self.pinHash(pin))
        let subcommand: ClientPINSubcommand
        let granted: TokenPermissions
        let usingPermissions = info.supportsPermissionTokens
        if usingPermissions {
            subcommand = .getPinUvAuthTokenUsingPinWithPermissions
            granted = permissions
        } else {
            guard permissions.isSubset(of: [.makeCredential, .getAssertion]) else {
                throw .unsupported("the card has no pinUvAuthToken option, so its PIN token allows makeCredential and getAssertion only")
            }
            subcommand = .getPinToken
            granted = [.makeCredential, .getAssertion]
        }
        let response = try clientPIN(subcommand, [
            .pinUvAuthProtocol: .int(pinProtocol.version),
            .keyAgreement: platformKey.cbor,
            .pinHashEnc: .bytes(pinHashEnc),
            .permissions: usingPermissions ? .int(Int(permissions.rawValue)) : nil,
            .rpId: usingPermissions ? rpID.map { .text($0) } : nil,
        ])
        guard let encrypted = response[ClientPINResponseKey.pinUvAuthToken]?.bytesValue else {
            throw .malformedResponse("\(subcommand) without pinUvAuthToken")
        }
        let token = try pinProtocol.decrypt(key: sharedSecret, ciphertext: encrypted)
        guard token.count == 16 || token.count == 32 else {
            throw .malformedResponse("a pinUvAuthToken of \(token.count) bytes (16 or 32)")
        }
        return PINUVAuthToken(value: token, pinProtocol: pinProtocol, permissions: granted,
                              rpID: usingPermissions ? rpID : nil)
    }

    /// One authenticatorClientPIN subcommand with its other members (those that are nil are
    /// left out); the card's refusal names the subcommand.
    private func clientPIN(_ subcommand: ClientPINSubcommand,
                           _ members: KeyValuePairs<ClientPINKey, CBORValue?>) throws(CTAPClientError) -> CBORMap {
        var parameters = CBORMap([ClientPINKey.subCommand: .int(subcommand.rawValue)])
        for (member, value) in members { parameters[member] = value }
        return try send(.clientPIN, parameters, subcommand: "\(subcommand)")
    }

    /// LEFT(SHA-256(pin), 16), what pinHashEnc encrypts.
    static func pinHash(_ pin: String) -> [UInt8] {
        Array(SHA256.hash(Array(pin.utf8)).prefix(16))
    }

    /// The PIN in the 64-byte zero-padded block newPinEnc encrypts, after the platform's checks
    /// (CTAP 2.1 §6.5.5.5): at least minPINLength code points, at most 63 bytes of UTF-8.
    private func padded(_ pin: String, role: String) throws(CTAPClientError) -> [UInt8] {
        let bytes = Array(pin.utf8)
        let codePoints = pin.unicodeScalars.count
        guard codePoints >= info.minPINLength else {
            throw .invalidArgument("the \(role) has \(codePoints) character(s); this card wants at least \(info.minPINLength)")
        }
        guard bytes.count <= 63 else {
            throw .invalidArgument("the \(role) is \(bytes.count) bytes of UTF-8; at most 63 fit")
        }
        guard !bytes.contains(0) else { throw .invalidArgument("the \(role) contains a NUL character") }
        return bytes + [UInt8](repeating: 0, count: 64 - bytes.count)
    }
}
