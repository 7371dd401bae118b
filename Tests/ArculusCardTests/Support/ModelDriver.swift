import ArculusCard
import CardCrypto
import FIDOWire
import TestSupport

/// A card a test drives with APDUs only, as a reader does, at times the test sets: a
/// ``CardModel`` (``ModelDriver``) or a ``VirtualCard`` (``VirtualCardDriver``). The helpers
/// below speak the NFC binding and CTAP2 to it.
protocol CardDriver {
    /// One command APDU in, the response APDU out (empty when the card is out of the field).
    mutating func transmit(_ apdu: [UInt8]) -> [UInt8]
    /// Off the reader and back, through the model's one power-off.
    mutating func powerCycle()
    /// The time every input arrives at.
    var now: CardInstant { get set }
}

/// A ``CardModel`` driven as ``VirtualCard`` drives it — every write succeeds. A value: a copy
/// is a second card in exactly the same state (the control of an experiment).
struct ModelDriver: CardDriver {
    var model: CardModel
    var now: CardInstant

    /// A blank card of `profile`, powered at `now`.
    init(profile: CardProfile = .default, entropy: CardEntropy = .system, frontOptions: CardFront.Options = .init(),
         now: CardInstant = .origin) throws {
        let authenticator = try Authenticator(profile: profile, state: nil, attestation: try AttestationIdentity.emulator(for: profile, entropy: entropy),
                                              entropy: entropy, now: now)
        model = CardModel(authenticator: authenticator, frontOptions: frontOptions)
        self.now = now
    }

    /// When set, the person is asked (the command's presence is undecided) and never answers
    /// by itself: a host that polls is answered `9100` UPNEEDED until `model.answerPresence`.
    var asksPresence = false

    mutating func transmit(_ apdu: [UInt8]) -> [UInt8] {
        var action = model.receive(apdu, in: CommandEnvironment(now: now, presence: asksPresence ? .undecided : .present))
        while true {
            switch action {
            case .silent: return []
            case .persist: action = model.finishWrite(succeeded: true)
            case .awaitPresence(_, _, let mayDefer):
                // Unless it asks, the person is there (as VirtualCard's default): yes at once.
                if !asksPresence || !mayDefer { model.answerPresence(approved: true) }
                action = model.continueAfterPresence(in: CommandEnvironment(now: now))
            case .respond(let response, _, _, _): return response
            }
        }
    }

    mutating func powerCycle() {
        model.powerOff(at: now)
        model.powerOn(at: now)
    }

    /// Whether the volatile piece `name` is as after power-up; nil when the inventory has no such piece.
    func isInitial(_ name: String) -> Bool? {
        model.volatileInventory.first { $0.name == name }?.isInitial
    }

    /// The pieces of volatile state that are not as after power-up.
    var changedVolatileState: [String] {
        model.volatileInventory.filter { !$0.isInitial }.map(\.name)
    }
}

/// A ``VirtualCard`` on a clock the test sets, from its power-up on.
struct VirtualCardDriver: CardDriver {
    let card: VirtualCard
    private let clock = ManualCardClock(now: .origin)

    /// The card `make` makes with the test's clock (powered at `now`).
    init(now: CardInstant = .origin, _ make: (_ clock: @escaping () -> CardInstant) throws -> VirtualCard) rethrows {
        let clock = self.clock
        clock.now = now
        card = try make { clock.now }
    }

    var now: CardInstant {
        get { clock.now }
        nonmutating set { clock.now = newValue }
    }

    func transmit(_ apdu: [UInt8]) -> [UInt8] { card.transmit(apdu) }

    func powerCycle() { card.powerCycle() }

}

/// The APDUs of the NFC binding the drivers send.
enum TestAPDU {
    static func getResponse(_ length: UInt8 = 0) -> [UInt8] { [0x00, 0xC0, 0x00, 0x00, length] }

    /// NFCCTAP_MSG carrying `message` (short or extended length), with `le` for a short one.
    static func nfcctapMessage(_ message: [UInt8], p1: UInt8 = 0x00, le: UInt8 = 0x00) -> [UInt8] {
        if message.count <= 255 { return [0x80, 0x10, p1, 0x00, UInt8(message.count)] + message + [le] }
        return [0x80, 0x10, p1, 0x00, 0x00, UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message + [0x00, 0x00]
    }

    /// NFCCTAP_GETRESPONSE: the poll for a message answered `9100`.
    static let nfcctapGetResponse: [UInt8] = [0x80, 0x11, 0x00, 0x00, 0x00]

    /// The CTAP2 message: command byte + CBOR parameters.
    static func ctapMessage(_ command: CTAPCommand, _ parameters: CBORMap?) -> [UInt8] {
        [command.rawValue] + (parameters.map { CBOREncoder.encode(.map($0)) } ?? [])
    }
}

extension CardDriver {
    // MARK: - APDUs

    /// `apdu`, then GET RESPONSE while the card answers `61xx`: the data and the last status word.
    mutating func exchange(_ apdu: [UInt8]) -> (data: [UInt8], sw: UInt16) {
        var response = transmit(apdu)
        var data: [UInt8] = []
        while response.count >= 2 {
            data += response.dropLast(2)
            let sw = UInt16(response[response.count - 2]) << 8 | UInt16(response[response.count - 1])
            guard sw >> 8 == 0x61 else { return (data, sw) }
            response = transmit(TestAPDU.getResponse(UInt8(sw & 0xFF)))
        }
        return (data, 0)
    }

    /// SELECT of the FIDO applet; fails unless the card answers `9000`.
    mutating func select() throws {
        let answer = exchange(NFCBinding.selectFIDOApplet)
        guard answer.sw == 0x9000 else { throw TestFailure("SELECT answered \(Hex.word(answer.sw))") }
    }

    /// A CTAP2 command as NFCCTAP_MSG (the applet must be selected); fails unless the APDU
    /// answer is `9000`. The CTAP status and the decoded body.
    mutating func send(_ command: CTAPCommand, _ parameters: CBORMap? = nil) throws -> (status: CTAPStatus, body: CBORMap) {
        let answer = exchange(TestAPDU.nfcctapMessage(TestAPDU.ctapMessage(command, parameters)))
        guard answer.sw == 0x9000, let first = answer.data.first else {
            throw TestFailure("\(command) answered \(Hex.string(answer.data)) \(Hex.word(answer.sw))")
        }
        let body = answer.data.count > 1 ? (try CBORDecoder.decode(Array(answer.data.dropFirst()))).mapValue : nil
        return (CTAPStatus(rawValue: first), body ?? CBORMap())
    }

    /// The body of a `CTAP2_OK` answer to `command`; anything else fails.
    mutating func ok(_ command: CTAPCommand, _ parameters: CBORMap? = nil) throws -> CBORMap {
        let answer = try send(command, parameters)
        guard answer.status == .ok else { throw TestFailure("\(command) answered \(answer.status.name)") }
        return answer.body
    }

    // MARK: - PIN/UV auth protocol one, platform side

    /// getKeyAgreement: the card's key-agreement key as a COSE key map.
    mutating func cardKeyAgreementKey() throws -> CBORMap {
        let body = try ok(.clientPIN, CBORMap([ClientPINKey.pinUvAuthProtocol: 1, .subCommand: .int(ClientPINSubcommand.getKeyAgreement.rawValue)]))
        guard let key = body[ClientPINResponseKey.keyAgreement]?.mapValue else { throw TestFailure("getKeyAgreement without a key") }
        return key
    }

    /// setPIN with protocol one.
    mutating func setPIN(_ pin: String, platform: FixedKeyPlatform) throws {
        let secret = try platform.sharedSecret(with: try cardKeyAgreementKey())
        let newPinEnc = try platform.encrypt(secret, paddedPIN(pin))
        _ = try ok(.clientPIN, CBORMap([
            ClientPINKey.pinUvAuthProtocol: 1, .subCommand: .int(ClientPINSubcommand.setPIN.rawValue),
            .keyAgreement: platform.coseKey, .pinUvAuthParam: .bytes(FixedKeyPlatform.authenticate(secret, newPinEnc)),
            .newPinEnc: .bytes(newPinEnc),
        ]))
    }

    /// A pinUvAuthToken from `pin`: getPinToken, or getPinUvAuthTokenUsingPinWithPermissions when
    /// `permissions` are given. The card's status, and the decrypted token when it is `CTAP2_OK`.
    mutating func pinToken(_ pin: String, permissions: PINUVAuthPermissions? = nil, rpId: String? = nil,
                           platform: FixedKeyPlatform) throws -> (status: CTAPStatus, token: [UInt8]?) {
        let secret = try platform.sharedSecret(with: try cardKeyAgreementKey())
        let pinHashEnc = try platform.encrypt(secret, pinHash(pin))
        let subcommand: ClientPINSubcommand = permissions == nil ? .getPinToken : .getPinUvAuthTokenUsingPinWithPermissions
        let answer = try send(.clientPIN, CBORMap([
            ClientPINKey.pinUvAuthProtocol: 1, .subCommand: .int(subcommand.rawValue), .keyAgreement: platform.coseKey,
            .pinHashEnc: .bytes(pinHashEnc), .permissions: permissions.map { .int(Int($0.rawValue)) },
            .rpId: rpId.map { .text($0) },
        ]))
        guard answer.status == .ok else { return (answer.status, nil) }
        guard let encrypted = answer.body[ClientPINResponseKey.pinUvAuthToken]?.bytesValue else { throw TestFailure("no token") }
        return (.ok, try platform.decrypt(secret, encrypted))
    }

    /// A token that must be granted. Like a platform, it names the RP of an mc or ga token:
    /// `rpId`, else example.com (CTAP 2.1 §6.5.5.7).
    mutating func grantedToken(_ pin: String, permissions: PINUVAuthPermissions? = nil, rpId: String? = nil,
                               platform: FixedKeyPlatform) throws -> [UInt8] {
        let forOneRP = permissions.map { !$0.isDisjoint(with: [.makeCredential, .getAssertion]) } ?? false
        let answer = try pinToken(pin, permissions: permissions, rpId: rpId ?? (forOneRP ? "example.com" : nil), platform: platform)
        guard let token = answer.token else { throw TestFailure("no token: \(answer.status.name)") }
        return token
    }

    // MARK: - Credentials

    /// makeCredential for `userId` at `rpId`; the status and, when `CTAP2_OK`, the credential ID.
    mutating func makeCredential(rpId: String = "example.com", userId: [UInt8], discoverable: Bool = true,
                                 token: [UInt8]? = nil) throws -> (status: CTAPStatus, credentialID: [UInt8]?) {
        let clientDataHash = SHA256.hash(Array("register \(userId) at \(rpId)".utf8))
        let answer = try send(.makeCredential, CBORMap([
            MakeCredentialKey.clientDataHash: .bytes(clientDataHash), .rp: .map(["id": .text(rpId)]),
            .user: .map(["id": .bytes(userId), "name": .text("user \(userId)")]),
            .pubKeyCredParams: .array([.map(["alg": -7, "type": "public-key"])]),
            .options: discoverable ? .map(["rk": true]) : nil,
            .pinUvAuthParam: token.map { .bytes(FixedKeyPlatform.authenticate($0, clientDataHash)) },
            .pinUvAuthProtocol: token == nil ? nil : 1,
        ]))
        guard answer.status == .ok else { return (answer.status, nil) }
        guard let authData = answer.body[MakeCredentialResponseKey.authData]?.bytesValue, authData.count > 55 else {
            throw TestFailure("makeCredential without attested credential data")
        }
        let length = Int(authData[53]) << 8 | Int(authData[54])
        return (.ok, Array(authData[55..<55 + length]))
    }

    /// getAssertion at `rpId` with no allow list (the card's discoverable credentials).
    mutating func getAssertion(rpId: String = "example.com", token: [UInt8]? = nil) throws -> (status: CTAPStatus, body: CBORMap) {
        let clientDataHash = SHA256.hash(Array("sign in at \(rpId)".utf8))
        return try send(.getAssertion, CBORMap([
            GetAssertionKey.rpId: .text(rpId), .clientDataHash: .bytes(clientDataHash),
            .pinUvAuthParam: token.map { .bytes(FixedKeyPlatform.authenticate($0, clientDataHash)) },
            .pinUvAuthProtocol: token == nil ? nil : 1,
        ]))
    }

    /// authenticatorLargeBlobs set: `fragment` at `offset` (with the whole `length` at offset 0),
    /// authenticated with `token` (CTAP 2.1 §6.10.2).
    mutating func largeBlobsSet(_ fragment: [UInt8], offset: Int, length: Int? = nil,
                                token: [UInt8]) throws -> (status: CTAPStatus, body: CBORMap) {
        let le32 = (0..<4).map { UInt8(truncatingIfNeeded: offset >> (8 * $0)) }
        let message = [UInt8](repeating: 0xFF, count: 32) + [CTAPCommand.largeBlobs.rawValue, 0x00] + le32 + SHA256.hash(fragment)
        return try send(.largeBlobs, CBORMap([
            LargeBlobsKey.set: .bytes(fragment), .offset: .int(offset), .length: length.map { .int($0) },
            .pinUvAuthParam: .bytes(FixedKeyPlatform.authenticate(token, message)), .pinUvAuthProtocol: 1,
        ]))
    }

    /// authenticatorCredentialManagement `subcommand`, authenticated with `token` when given.
    mutating func credentialManagement(_ subcommand: CredentialManagementSubcommand, _ parameters: CBORMap? = nil,
                                       token: [UInt8]? = nil) throws -> (status: CTAPStatus, body: CBORMap) {
        let message = [UInt8(subcommand.rawValue)] + (parameters.map { CBOREncoder.encode(.map($0)) } ?? [])
        return try send(.credentialManagement, CBORMap([
            CredentialManagementKey.subCommand: .int(subcommand.rawValue), .subCommandParams: parameters.map { .map($0) },
            .pinUvAuthProtocol: token == nil ? nil : 1,
            .pinUvAuthParam: token.map { .bytes(FixedKeyPlatform.authenticate($0, message)) },
        ]))
    }
}

/// The platform side of PIN/UV auth protocol one (CTAP 2.1 §6.5.6): TestSupport's
/// ``PlatformPIN``, written from the specification, with a fixed key. Protocol one's IV is zero,
/// so the same script of commands is the same bytes on every run.
struct FixedKeyPlatform {
    let key: P256PrivateKey

    /// The platform key with scalar `scalar` (a small number: a test key, never a secret).
    init(scalar: UInt8 = 0x2A) throws {
        key = try P256PrivateKey(rawScalar: [UInt8](repeating: 0, count: 31) + [scalar])
    }

    /// The platform's key-agreement key as CTAP sends it.
    var coseKey: CBORValue { PlatformPIN.coseKeyAgreement(key.publicKey) }

    /// SHA-256 of the ECDH x-coordinate with the card's key.
    func sharedSecret(with cardKey: CBORMap) throws -> [UInt8] {
        try PlatformPIN.one.encapsulate(.map(cardKey), platformKey: key).sharedSecret
    }

    func encrypt(_ secret: [UInt8], _ plaintext: [UInt8]) throws -> [UInt8] { try PlatformPIN.one.encrypt(key: secret, plaintext) }

    func decrypt(_ secret: [UInt8], _ ciphertext: [UInt8]) throws -> [UInt8] { try PlatformPIN.one.decrypt(key: secret, ciphertext) }

    /// LEFT(HMAC-SHA-256(key, message), 16).
    static func authenticate(_ key: [UInt8], _ message: [UInt8]) -> [UInt8] { PlatformPIN.one.authenticate(key: key, message) }
}
