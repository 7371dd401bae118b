import CBOR
import CardCrypto
import FIDOWire

extension CTAPClient {
    /// The PIN retry counter (getPINRetries, CTAP 2.1 §6.5.5.2): attempts left before the PIN
    /// is blocked, and, on CTAP 2.1 cards, whether the card must leave the field before the next
    /// attempt (three wrong PINs in a row).
    public func pinRetries() throws(CTAPClientError) -> (retries: Int, powerCycleRequired: Bool?) {
        try Self.pinRetries(from: try clientPIN(.getPINRetries, Self.pinRetriesMembers(info)))
    }

    /// The card's key agreement key (getKeyAgreement, CTAP 2.1 §6.5.5.4).
    public func keyAgreement(_ pinProtocol: any PlatformPINUVAuthProtocol) throws(CTAPClientError) -> COSEPublicKey {
        try Self.keyAgreement(from: try clientPIN(.getKeyAgreement, [.pinUvAuthProtocol: .int(pinProtocol.version)]))
    }

    /// Sets the first PIN (setPIN, CTAP 2.1 §6.5.5.5).
    ///
    /// - Throws: ``CTAPClientError/invalidArgument(_:)`` for a PIN the card's policy forbids
    ///   (checked here first, as CTAP asks platforms to); `CTAP2_ERR_PIN_AUTH_INVALID` from a card
    ///   that has a PIN already.
    public func setPIN(_ pin: String) throws(CTAPClientError) {
        let paddedPIN = try Self.padded(pin, role: "new PIN", info: info)
        let pinProtocol = try self.pinProtocol
        let agreed = try pinProtocol.encapsulate(peer: try keyAgreement(pinProtocol))
        _ = try clientPIN(.setPIN, try Self.setPINMembers(paddedPIN, pinProtocol, agreed))
        try refreshInfo()
    }

    /// Changes the PIN (changePIN, CTAP 2.1 §6.5.5.6). A wrong `currentPIN` costs a retry.
    public func changePIN(from currentPIN: String, to newPIN: String) throws(CTAPClientError) {
        let paddedPIN = try Self.padded(newPIN, role: "new PIN", info: info)
        let pinProtocol = try self.pinProtocol
        let agreed = try pinProtocol.encapsulate(peer: try keyAgreement(pinProtocol))
        _ = try clientPIN(.changePIN, try Self.changePINMembers(currentPIN, paddedPIN, pinProtocol, agreed))
    }

    /// A pinUvAuthToken for `permissions` (bound to `rpID` when given), from the PIN: with
    /// getPinUvAuthTokenUsingPinWithPermissions (CTAP 2.1 §6.5.5.7.2) on cards with the
    /// `pinUvAuthToken` option, else with getPinToken (§6.5.5.7.1), whose token carries the
    /// mc and ga permissions implicitly. A wrong PIN costs a retry.
    public func pinToken(pin: String, permissions: TokenPermissions, rpID: String? = nil) throws(CTAPClientError) -> PINUVAuthToken {
        let request = try PINTokenRequest(pin: pin, permissions: permissions, rpID: rpID, info: info, forcedProtocol: forcedPINProtocolVersion)
        let agreed = try request.pinProtocol.encapsulate(peer: try keyAgreement(request.pinProtocol))
        return try request.token(from: try clientPIN(request.subcommand, try request.members(agreed)), agreed)
    }

    /// One authenticatorClientPIN subcommand with its other members (those that are nil are
    /// left out); the card's refusal names the subcommand.
    private func clientPIN(_ subcommand: ClientPINSubcommand,
                           _ members: KeyValuePairs<ClientPINKey, CBORValue?>) throws(CTAPClientError) -> CBORMap {
        try send(.clientPIN, Self.clientPINParameters(subcommand, members), subcommand: "\(subcommand)")
    }
}

/// The messages of authenticatorClientPIN and the reading of their answers, which the
/// synchronous and the asynchronous client share.
extension CTAPClient {
    /// The parameters of one subcommand with its other members (those that are nil left out).
    static func clientPINParameters(_ subcommand: ClientPINSubcommand, _ members: KeyValuePairs<ClientPINKey, CBORValue?>) -> CBORMap {
        var parameters = CBORMap([ClientPINKey.subCommand: .int(subcommand.rawValue)])
        for (member, value) in members { parameters[member] = value }
        return parameters
    }

    static func pinRetriesMembers(_ info: AuthenticatorInfo) -> KeyValuePairs<ClientPINKey, CBORValue?> {
        [.pinUvAuthProtocol: info.preferredPINUVAuthProtocol.map { .int($0) }]
    }

    static func pinRetries(from response: CBORMap) throws(CTAPClientError) -> (retries: Int, powerCycleRequired: Bool?) {
        guard let retries = response[ClientPINResponseKey.pinRetries]?.intValue else {
            throw .malformedResponse("getPINRetries without pinRetries")
        }
        return (retries, response[ClientPINResponseKey.powerCycleState]?.boolValue)
    }

    static func keyAgreement(from response: CBORMap) throws(CTAPClientError) -> COSEPublicKey {
        guard let key = response[ClientPINResponseKey.keyAgreement] else {
            throw .malformedResponse("getKeyAgreement without keyAgreement")
        }
        return try COSEPublicKey(fromCard: key)
    }

    /// setPIN's members: newPinEnc and its pinUvAuthParam under the agreed secret.
    static func setPINMembers(_ paddedPIN: [UInt8], _ pinProtocol: any PlatformPINUVAuthProtocol,
                              _ agreed: (platformKey: COSEPublicKey, sharedSecret: [UInt8])) throws(CTAPClientError) -> KeyValuePairs<ClientPINKey, CBORValue?> {
        let newPinEnc = try pinProtocol.encrypt(key: agreed.sharedSecret, plaintext: paddedPIN)
        return [
            .pinUvAuthProtocol: .int(pinProtocol.version),
            .keyAgreement: agreed.platformKey.cbor,
            .pinUvAuthParam: .bytes(pinProtocol.authenticate(key: agreed.sharedSecret, message: newPinEnc)),
            .newPinEnc: .bytes(newPinEnc),
        ]
    }

    /// changePIN's members: pinHashEnc of the current PIN, newPinEnc, and their pinUvAuthParam.
    static func changePINMembers(_ currentPIN: String, _ paddedPIN: [UInt8], _ pinProtocol: any PlatformPINUVAuthProtocol,
                                 _ agreed: (platformKey: COSEPublicKey, sharedSecret: [UInt8])) throws(CTAPClientError) -> KeyValuePairs<ClientPINKey, CBORValue?> {
        let pinHashEnc = try pinProtocol.encrypt(key: agreed.sharedSecret, plaintext: pinHash(currentPIN))
        let newPinEnc = try pinProtocol.encrypt(key: agreed.sharedSecret, plaintext: paddedPIN)
        return [
            .pinUvAuthProtocol: .int(pinProtocol.version),
            .keyAgreement: agreed.platformKey.cbor,
            .pinUvAuthParam: .bytes(pinProtocol.authenticate(key: agreed.sharedSecret, message: newPinEnc + pinHashEnc)),
            .newPinEnc: .bytes(newPinEnc),
            .pinHashEnc: .bytes(pinHashEnc),
        ]
    }

    /// LEFT(SHA-256(pin), 16), what pinHashEnc encrypts.
    static func pinHash(_ pin: String) -> [UInt8] {
        Array(SHA256.hash(Array(pin.utf8)).prefix(16))
    }

    /// The PIN in the 64-byte zero-padded block newPinEnc encrypts, after the platform's checks
    /// (CTAP 2.1 §6.5.5.5): at least minPINLength code points, at most 63 bytes of UTF-8.
    static func padded(_ pin: String, role: String, info: AuthenticatorInfo) throws(CTAPClientError) -> [UInt8] {
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

/// A request for a pinUvAuthToken from the PIN, checked and decided before anything is sent:
/// which subcommand (getPinUvAuthTokenUsingPinWithPermissions on a card with the `pinUvAuthToken`
/// option, else getPinToken), which permissions the token will carry, and the token read from
/// the card's answer.
struct PINTokenRequest {
    let pin: String
    let permissions: TokenPermissions
    let rpID: String?
    let pinProtocol: any PlatformPINUVAuthProtocol
    private let usingPermissions: Bool

    /// The checks made before the key agreement, in the order CTAP's platform makes them.
    init(pin: String, permissions: TokenPermissions, rpID: String?, info: AuthenticatorInfo, forcedProtocol: Int?) throws(CTAPClientError) {
        guard !pin.isEmpty else { throw .invalidArgument("the PIN is empty") }
        usingPermissions = info.supportsPermissionTokens
        // CTAP 2.1 §6.5.5.7: a makeCredential or getAssertion token is for one RP.
        if usingPermissions, rpID == nil, !permissions.isDisjoint(with: [.makeCredential, .getAssertion]) {
            throw .invalidArgument("a token with the makeCredential or getAssertion permission is for one RP: pass rpID")
        }
        pinProtocol = try CTAPClient.pinProtocol(info, forced: forcedProtocol)
        (self.pin, self.permissions, self.rpID) = (pin, permissions, rpID)
    }

    /// getPinUvAuthTokenUsingPinWithPermissions, or getPinToken on a card without the option.
    var subcommand: ClientPINSubcommand { usingPermissions ? .getPinUvAuthTokenUsingPinWithPermissions : .getPinToken }

    /// What the token allows: the permissions asked for, or mc and ga from getPinToken.
    var granted: TokenPermissions { usingPermissions ? permissions : [.makeCredential, .getAssertion] }

    /// The subcommand's members under the agreed secret; a getPinToken card cannot grant more
    /// than mc and ga.
    func members(_ agreed: (platformKey: COSEPublicKey, sharedSecret: [UInt8])) throws(CTAPClientError) -> KeyValuePairs<ClientPINKey, CBORValue?> {
        let pinHashEnc = try pinProtocol.encrypt(key: agreed.sharedSecret, plaintext: CTAPClient.pinHash(pin))
        guard usingPermissions || permissions.isSubset(of: [.makeCredential, .getAssertion]) else {
            throw .unsupported("the card has no pinUvAuthToken option, so its PIN token allows makeCredential and getAssertion only")
        }
        return [
            .pinUvAuthProtocol: .int(pinProtocol.version),
            .keyAgreement: agreed.platformKey.cbor,
            .pinHashEnc: .bytes(pinHashEnc),
            .permissions: usingPermissions ? .int(Int(permissions.rawValue)) : nil,
            .rpId: usingPermissions ? rpID.map { .text($0) } : nil,
        ]
    }

    /// The token in the card's answer, decrypted.
    func token(from response: CBORMap, _ agreed: (platformKey: COSEPublicKey, sharedSecret: [UInt8])) throws(CTAPClientError) -> PINUVAuthToken {
        guard let encrypted = response[ClientPINResponseKey.pinUvAuthToken]?.bytesValue else {
            throw .malformedResponse("\(subcommand) without pinUvAuthToken")
        }
        let token = try pinProtocol.decrypt(key: agreed.sharedSecret, ciphertext: encrypted)
        guard token.count == 16 || token.count == 32 else {
            throw .malformedResponse("a pinUvAuthToken of \(token.count) bytes (16 or 32)")
        }
        return PINUVAuthToken(value: token, pinProtocol: pinProtocol, permissions: granted, rpID: usingPermissions ? rpID : nil)
    }
}
