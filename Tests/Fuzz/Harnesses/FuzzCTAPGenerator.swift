import CardCrypto
import CBOR
import FIDOWire
import TestSupport

// Structure-aware CTAP2 requests: the fuzz input is read as a small program (`FuzzInput`) that
// picks a command, then for each of its map keys (FIDOWire's key enums) whether it is there and
// what it holds: a value of the right CBOR type (ordinary, or at an edge), or one of a wrong type.
// PIN/UV protocol fields (keyAgreement, newPinEnc, pinHashEnc, pinUvAuthParam, hmac-secret's
// salts) are computed for real by the platform side (`FuzzPlatform`) from what the card said,
// so requests get past the checks the fuzzer could never forge. Byte 0 is always the ordinary,
// valid choice: an input cut short still makes a request that a platform would send.

/// What the platform knows while an input runs: a PIN/UV session per protocol with the card's
/// key-agreement key, the pinUvAuthToken, the PIN it set, and the credential IDs and U2F key
/// handles the card returned. ``observe(request:response:body:)`` learns from every exchange.
struct FuzzPlatform {
    /// The session with the card's current key-agreement key, per protocol (index 0: protocol 1).
    var sessions: [PlatformSession?] = [nil, nil]
    var token: PlatformToken?
    /// The PIN the card has, as far as the platform knows.
    var pin: String?
    /// The protocol a request uses unless the input says otherwise.
    var preferredProtocol = 2
    /// Credential IDs the card holds or returned, oldest first.
    var credentialIDs: [[UInt8]] = []
    /// U2F key handles from REGISTER answers.
    var keyHandles: [[UInt8]] = []
    /// The new PIN of the last setPIN/changePIN request sent, for when the card accepts it.
    var pendingPIN: String?
    private var ivCounter: UInt8 = 0

    func session(_ pinProtocol: Int) -> PlatformSession? {
        (1...2).contains(pinProtocol) ? sessions[pinProtocol - 1] : nil
    }

    /// A fresh IV for protocol 2 encryption (deterministic).
    mutating func nextIV() -> [UInt8] {
        ivCounter &+= 1
        return fuzzFiller(16, seed: ivCounter)
    }

    /// The card left the field: its key-agreement key and the token are gone.
    mutating func cardPoweredOff() {
        sessions = [nil, nil]
        token = nil
    }

    /// Learns from one CTAP exchange: a key-agreement key, a token, a PIN change, credential IDs.
    /// `body` is the response's map when it is CTAP2_OK (as `checkCTAPResponse` returns it).
    mutating func observe(request: [UInt8], response: [UInt8], body: CBORMap?) {
        guard let command = request.first, response.first == CTAPStatus.ok.rawValue, let body else {
            if request.first == CTAPCommand.clientPIN.rawValue { pendingPIN = nil }
            return
        }
        switch CTAPCommand(rawValue: command) {
        case .clientPIN:
            observeClientPIN(request: Self.map(request.dropFirst()) ?? CBORMap(), body: body)
        case .makeCredential:
            if let authData = body[int: MakeCredentialResponseKey.authData.rawValue]?.bytesValue,
               let id = Self.credentialID(inAuthData: authData) { remember(id) }
        case .getAssertion, .getNextAssertion:
            if let id = body[int: GetAssertionResponseKey.credential.rawValue]?.mapValue?[text: "id"]?.bytesValue { remember(id) }
        case .credentialManagement, .credentialManagementPreview:
            if let id = body[int: CredentialManagementResponseKey.credentialID.rawValue]?.mapValue?[text: "id"]?.bytesValue { remember(id) }
        default:
            break
        }
    }

    /// Learns from a U2F REGISTER answer (data + SW): its key handle.
    mutating func observeU2FRegister(_ response: [UInt8]) {
        guard response.count > 67, response.suffix(2) == [0x90, 0x00] else { return }
        let length = Int(response[66])
        guard response.count >= 67 + length + 2 else { return }
        keyHandles.append(Array(response[67..<67 + length]))
        if keyHandles.count > 8 { keyHandles.removeFirst() }
    }

    private mutating func observeClientPIN(request: CBORMap, body: CBORMap) {
        let pinProtocol = request[int: ClientPINKey.pinUvAuthProtocol.rawValue]?.intValue ?? 1
        switch request[int: ClientPINKey.subCommand.rawValue]?.intValue.flatMap(ClientPINSubcommand.init(rawValue:)) {
        case .getKeyAgreement:
            guard let key = body[int: ClientPINResponseKey.keyAgreement.rawValue]?.mapValue,
                  let x = key[int: -2]?.bytesValue, let y = key[int: -3]?.bytesValue else { return }
            // One key-agreement key serves both protocols.
            sessions = [FuzzPlatformKey.session(protocol: 1, cardX: x, cardY: y),
                        FuzzPlatformKey.session(protocol: 2, cardX: x, cardY: y)]
        case .setPIN, .changePIN:
            if let pendingPIN { pin = pendingPIN }
            pendingPIN = nil
            token = nil
        case .getPinToken, .getPinUvAuthTokenUsingPinWithPermissions:
            guard let encrypted = body[int: ClientPINResponseKey.pinUvAuthToken.rawValue]?.bytesValue,
                  let session = session(pinProtocol), let value = try? session.decrypt(encrypted) else { return }
            token = PlatformToken(pinProtocol: session.pinProtocol, value: value)
        default:
            break
        }
    }

    private mutating func remember(_ id: [UInt8]) {
        guard !credentialIDs.contains(id) else { return }
        credentialIDs.append(id)
        if credentialIDs.count > 16 { credentialIDs.removeFirst() }
    }

    static func map(_ bytes: ArraySlice<UInt8>) -> CBORMap? {
        guard !bytes.isEmpty else { return nil }
        return (try? CBORDecoder.decode(Array(bytes)))?.mapValue
    }

    /// The credential ID in authenticator data with attested credential data (WebAuthn §6.5.1).
    static func credentialID(inAuthData authData: [UInt8]) -> [UInt8]? {
        guard authData.count > 55, AuthenticatorDataFlags(rawValue: authData[32]).contains(.attestedCredentialData) else { return nil }
        let length = Int(authData[53]) << 8 | Int(authData[54])
        guard authData.count >= 55 + length else { return nil }
        return Array(authData[55..<55 + length])
    }
}

/// The platform's key-agreement key: one fixed key, so the ECDH with each of the (deterministic)
/// card keys is computed once per process and looked up afterwards.
enum FuzzPlatformKey {
    nonisolated(unsafe) private static var cache: [[UInt8]: PlatformSession] = [:]
    private static let key: P256PrivateKey = {
        var scalar = SHA256.hash(Array("arculus fuzz platform key".utf8))
        scalar[0] &= 0x7F  // below the group order
        guard let key = try? P256PrivateKey(rawScalar: scalar) else { fatalError("the fuzz platform key") }
        return key
    }()

    /// The session with the card key (x, y), or nil when that is no P-256 point.
    static func session(protocol pinProtocol: Int, cardX x: [UInt8], cardY y: [UInt8]) -> PlatformSession? {
        let index = [UInt8(pinProtocol)] + x + y
        if let known = cache[index] { return known }
        guard let card = try? P256PublicKey(x: x, y: y), let pinProtocol = PlatformPIN(rawValue: pinProtocol),
              let session = try? pinProtocol.session(platformKey: key, cardKey: card) else { return nil }
        if cache.count > 4096 { cache.removeAll() }
        cache[index] = session
        return session
    }
}

/// The request generator: command choice, body shape, and the per-command fields
/// (`FuzzCTAPSchema`).
enum FuzzCTAPGenerator {
    /// The commands a generated request can carry, the last one any byte.
    static let commands: [CTAPCommand?] = [
        .makeCredential, .getAssertion, .clientPIN, .credentialManagement, .getNextAssertion, .getInfo,
        .reset, .selection, .credentialManagementPreview, .config, .largeBlobs, .bioEnrollment, nil,
    ]

    /// Whether the card generated a key, signed or did ECDH for `request`: a makeCredential,
    /// getAssertion or getNextAssertion that succeeded, a clientPIN request with a keyAgreement.
    static func wasExpensive(_ request: [UInt8], response: [UInt8]) -> Bool {
        switch request.first.flatMap(CTAPCommand.init(rawValue:)) {
        case .makeCredential, .getAssertion, .getNextAssertion:
            return response.first == CTAPStatus.ok.rawValue
        case .clientPIN:
            return FuzzPlatform.map(request.dropFirst())?[int: ClientPINKey.keyAgreement.rawValue] != nil
        default:
            return false
        }
    }

    /// One request (command byte + body) from the input.
    static func request(_ input: inout FuzzInput, platform: inout FuzzPlatform) -> [UInt8] {
        let command = input.pick(commands)
        let commandByte = command?.rawValue ?? input.byte()
        let shape = input.byte() % 8
        var schema = FuzzCTAPSchema(input: input, platform: platform)
        let map: CBORMap?
        switch command {
        case .makeCredential: map = schema.makeCredential()
        case .getAssertion: map = schema.getAssertion()
        case .clientPIN: map = schema.clientPIN()
        case .credentialManagement, .credentialManagementPreview: map = schema.credentialManagement()
        case .config: map = schema.config()
        case .largeBlobs: map = schema.largeBlobs()
        case nil, .bioEnrollment: map = schema.anyMap()
        default: map = nil  // getInfo, getNextAssertion, reset, selection: no parameters
        }
        input = schema.input
        platform = schema.platform
        return [commandByte] + body(map, shape: shape, input: &input)
    }

    /// The body in one of several shapes: canonical CBOR (shape 0), with unknown keys added, a
    /// value that is no map, nothing, trailing bytes, cut short, or with its keys out of order.
    private static func body(_ map: CBORMap?, shape: UInt8, input: inout FuzzInput) -> [UInt8] {
        switch shape {
        case 1:
            var extended = map ?? CBORMap()
            for _ in 0...input.choice(3) { extended[FuzzCTAPSchema.anyKey(&input)] = FuzzCTAPSchema.anyValue(&input) }
            return CBOREncoder.encode(.map(extended))
        case 2: return CBOREncoder.encode(FuzzCTAPSchema.anyValue(&input))
        case 3: return []
        case 4: return (map.map { CBOREncoder.encode(.map($0)) } ?? []) + [input.byte()]
        case 5: return Array((map.map { CBOREncoder.encode(.map($0)) } ?? [0xA0]).dropLast())
        case 6:
            // Keys in reverse canonical order (CTAP2 canonical CBOR forbids it).
            guard let map, map.count >= 2, map.count < 24 else { return map.map { CBOREncoder.encode(.map($0)) } ?? [] }
            let pairs = map.entries.map { CBOREncoder.encode($0.key) + CBOREncoder.encode($0.value) }.sorted { $0.lexicographicallyPrecedes($1) }
            return [0xA0 | UInt8(map.count)] + pairs.reversed().flatMap { $0 }
        default: return map.map { CBOREncoder.encode(.map($0)) } ?? []
        }
    }
}

/// The ctap2 target's operations (see FuzzCTAP2.swift), by the low five bits of a byte: the
/// costly ones (a power-up draws two keys) rare among random bytes.
enum FuzzCTAP2Operation {
    case raw, rawFixedUp, generated, powerCycle, clock, failNextWrite

    init(_ byte: UInt8) {
        switch byte % 32 {
        case 0...5: self = .raw
        case 6...7: self = .rawFixedUp
        case 8...27: self = .generated
        case 28: self = .powerCycle
        case 29...30: self = .clock
        default: self = .failNextWrite
        }
    }

    /// The first byte that means this operation.
    var code: UInt8 {
        switch self {
        case .raw: 0
        case .rawFixedUp: 6
        case .generated: 8
        case .powerCycle: 28
        case .clock: 29
        case .failNextWrite: 31
        }
    }
}

/// The request with its pinUvAuthParam recomputed under `token`, when it has one.
func fixedUp(_ request: [UInt8], token: PlatformToken?) -> [UInt8] {
    guard let token, request.count > 1,
          let value = try? CBORDecoder.decode(Array(request.dropFirst())), var map = value.mapValue else { return request }
    switch request[0] {
    case CTAPCommand.makeCredential.rawValue:
        guard map[int: 8] != nil, let hash = map[int: 1]?.bytesValue else { return request }
        map[int: 8] = .bytes(token.authenticate(hash))
        map[int: 9] = .int(token.pinProtocol.rawValue)
    case CTAPCommand.getAssertion.rawValue:
        guard map[int: 6] != nil, let hash = map[int: 2]?.bytesValue else { return request }
        map[int: 6] = .bytes(token.authenticate(hash))
        map[int: 7] = .int(token.pinProtocol.rawValue)
    case CTAPCommand.credentialManagement.rawValue, CTAPCommand.credentialManagementPreview.rawValue:
        guard map[int: 4] != nil, let subcommand = map[int: 1]?.uint64Value else { return request }
        var message: [UInt8] = [UInt8(truncatingIfNeeded: subcommand)]
        if let parameters = map[int: 2] { message += CBOREncoder.encode(parameters) }
        map[int: 4] = .bytes(token.authenticate(message))
        map[int: 3] = .int(token.pinProtocol.rawValue)
    default:
        return request
    }
    return [request[0]] + CBOREncoder.encode(.map(map))
}
