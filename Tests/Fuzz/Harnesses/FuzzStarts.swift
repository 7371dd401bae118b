import ArculusCard
import CBOR
import FIDOWire
import TestSupport

// The states an input can start from: the memory baselines (FuzzCards.swift) and the states a
// few requests take them to — a token obtained, a getNextAssertion or a credential enumeration
// pending, the PIN blocked, the card full. Each is built once, the first time an input asks for
// it, with the generator's own requests (`FuzzRequest`), so the platform knows what it would know
// (the token, the card's key-agreement key, the credential IDs); an input then costs a copy. The
// low four bits of a card, ctap2 or vpcd input's first byte pick one: depth without long programs.

enum FuzzStartState: Int, CaseIterable {
    case blank21, populated21, lastRetry21, blank20
    /// populated21 with a protocol 2 token for mc|ga|cm.
    case token21
    /// populated21 with a protocol 1 token from getPinToken (no permissions: the legacy kind).
    case legacyToken21
    /// populated21 with a protocol 2 token for ga bound to example.com.
    case boundToken21
    /// populated21 after a getAssertion for example.com: two credentials, one getNextAssertion left.
    case pendingAssertion21
    /// populated21 after enumerateRPsBegin: one more RP to enumerate.
    case enumeratingRPs21
    /// populated21 after enumerateCredentialsBegin for example.com: one more credential.
    case enumeratingCredentials21
    /// populated21 after three wrong PINs: PIN use blocked until power-up, 5 retries left.
    case wrongPINs21
    /// A card whose credential store is full (50 discoverable credentials), with a token.
    case full21
    /// populated21 with no retries left: only a reset helps.
    case blocked21
    /// blank20 with a PIN and a getPinToken token.
    case token20
    /// blank20 after a U2F REGISTER (the platform knows the key handle).
    case u2fRegistered20
    /// blank21 with a PIN and a protocol 2 token, no credentials.
    case tokenNoCredentials21

    init(selector: UInt8) { self = FuzzStartState(rawValue: Int(selector & 0x0F))! }
}

/// The start a ctap2 input with this selector has (see FuzzCTAP2.swift).
func ctap2Start(selector: UInt8) -> FuzzStart {
    var start = FuzzStarts.shared.start(FuzzStartState(selector: selector))
    start.card.userConsents = selector & 0x10 == 0
    return start
}

final class FuzzStarts: @unchecked Sendable {
    // Unchecked: libFuzzer runs inputs on one thread; the starts are built there, lazily.
    static let shared = FuzzStarts()
    private var built = [FuzzStart?](repeating: nil, count: FuzzStartState.allCases.count)

    func start(_ state: FuzzStartState) -> FuzzStart {
        if let known = built[state.rawValue] { return known }
        let start = Self.build(state)
        built[state.rawValue] = start
        return start
    }

    private static func build(_ state: FuzzStartState) -> FuzzStart {
        let baselines = FuzzBaselines.shared
        switch state {
        case .blank21: return baselines.start(.blank21)
        case .populated21: return baselines.start(.populated21)
        case .lastRetry21: return baselines.start(.lastRetry21)
        case .blank20: return baselines.start(.blank20)
        case .token21: return run(baselines.start(.populated21), [FuzzRequest.token])
        case .legacyToken21: return run(baselines.start(.populated21), [FuzzRequest.legacyToken])
        case .boundToken21: return run(baselines.start(.populated21), [FuzzRequest.boundToken])
        case .pendingAssertion21: return run(baselines.start(.populated21), [FuzzRequest.token, FuzzRequest.getAssertion])
        case .enumeratingRPs21:
            return run(baselines.start(.populated21), [FuzzRequest.token, FuzzRequest.credentialManagement(1)])
        case .enumeratingCredentials21:
            return run(baselines.start(.populated21), [FuzzRequest.token, FuzzRequest.credentialManagement(3)])
        case .wrongPINs21:
            return run(baselines.start(.populated21), Array(repeating: FuzzRequest.wrongPINToken, count: 3) + [FuzzRequest.keyAgreement])
        case .full21:
            // PlatformClient's requests, one distinct user each; then the platform learns the
            // card's key and gets a token of its own.
            let box = FuzzCardBox(baselines.start(.populated21).card)
            let platform = PlatformClient(send: { box.card.ctap($0).response })
            for user in box.card.state.residentCredentials.count..<CardProfile.arculusFIDO21.residentKeyCapacity {
                guard let token = try? platform.token(fuzzPIN, protocol: 2, permissions: 0x01).get() else { break }
                _ = platform.call(CTAPByte.makeCredential, PlatformClient.makeCredentialRequest(
                    userId: [0xF0, UInt8(user)], userName: "user\(user)", rk: true, token: token))
            }
            var start = baselines.start(.populated21)
            start.card = box.card
            start.platform.credentialIDs = Array(box.card.state.residentCredentials.map(\.id).suffix(16))
            start = run(start, [FuzzRequest.keyAgreement, FuzzRequest.token])
            fuzzCheck(start.card.state.residentCredentials.count == CardProfile.arculusFIDO21.residentKeyCapacity,
                      "the full start holds \(start.card.state.residentCredentials.count) credentials")
            return start
        case .blocked21:
            var start = run(baselines.start(.lastRetry21), [FuzzRequest.wrongPINToken, FuzzRequest.keyAgreement])
            start.platform.pin = nil
            return start
        case .token20: return run(baselines.start(.blank20), [FuzzRequest.setPIN, FuzzRequest.legacyToken])
        case .u2fRegistered20:
            var start = baselines.start(.blank20)
            let register: [UInt8] = [0x00, 0x01, 0x03, 0x00, 64] + fuzzFiller(64, seed: 1) + [0x00]
            var response = start.card.transmit(NFCBinding.selectFIDOApplet).response
            response = start.card.transmit(register).response
            var data = Array(response.dropLast(2))
            while response.count >= 2, response[response.count - 2] == 0x61 {
                response = start.card.transmit([0x00, 0xC0, 0x00, 0x00, response[response.count - 1]]).response
                data += response.dropLast(2)
            }
            start.platform.observeU2FRegister(data + response.suffix(2))
            fuzzCheck(!start.platform.keyHandles.isEmpty, "the U2F start has no key handle")
            return start
        case .tokenNoCredentials21: return run(baselines.start(.blank21), [FuzzRequest.setPIN, FuzzRequest.token])
        }
    }

    /// `start` after the generated requests `requests` (each a `FuzzRequest` program).
    private static func run(_ start: FuzzStart, _ requests: [[UInt8]]) -> FuzzStart {
        var start = start
        for bytes in requests {
            var input = FuzzInput(bytes)
            let request = FuzzCTAPGenerator.request(&input, platform: &start.platform)
            let response = start.card.ctap(request).response
            start.platform.observe(request: request, response: response, body: FuzzPlatform.map(response.dropFirst()))
        }
        return start
    }
}

/// Generated requests by the choices that make them (`FuzzCTAPGenerator`): the start states are
/// built from these, and the seed corpora made of them.
enum FuzzRequest {
    /// The bytes of a generated request that makes `choices` and then the ordinary choice for
    /// everything else: `choices` followed by as many zeros as the generator reads. `expect`
    /// checks the request made (the byte layout follows the generator's; a change there that
    /// moves a choice is caught here, not by seeds that silently mean something else). How many
    /// bytes a request reads does not depend on the platform (`FuzzCTAPSchema.field`), so any
    /// platform serves to count them.
    static func generated(_ choices: [UInt8], expect: (CBORMap) -> Bool = { _ in true }) -> [UInt8] {
        let padded = choices + [UInt8](repeating: 0, count: 4096)
        var input = FuzzInput(padded)
        var platform = FuzzPlatform()
        let request = FuzzCTAPGenerator.request(&input, platform: &platform)
        let map = FuzzPlatform.map(request.dropFirst()) ?? CBORMap()
        fuzzCheck(expect(map), "request choices \(choices) made \(fuzzHex(request))")
        return Array(padded.prefix(padded.count - input.remaining))
    }

    static func command(_ command: CTAPCommand) -> UInt8 {
        UInt8(FuzzCTAPGenerator.commands.firstIndex(of: command)!)
    }

    static func zeros(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count) }

    /// clientPIN with the subcommand at `subcommand` in FuzzCTAPSchema.clientPIN's list, then
    /// `more` choices (after the protocol choice: the modes and values of its keys).
    static func clientPIN(_ subcommand: UInt8, _ more: [UInt8] = [], expect: (CBORMap) -> Bool) -> [UInt8] {
        generated([command(.clientPIN), 0, subcommand, 0] + more, expect: expect)
    }

    private static func subcommand(_ map: CBORMap) -> Int? { map[int: ClientPINKey.subCommand.rawValue]?.intValue }

    static let setPIN = clientPIN(3) { subcommand($0) == 3 && $0[int: ClientPINKey.newPinEnc.rawValue] != nil }
    /// getPinUvAuthTokenUsingPinWithPermissions, mc|ga|cm, with the platform's PIN.
    static let token = clientPIN(0) { subcommand($0) == 9 && $0[int: ClientPINKey.permissions.rawValue] == 7 }
    /// The same with the PIN "56789" (pinHashEnc's mode 0, pick 2; after the modes of the
    /// protocol, subCommand, keyAgreement and newPinEnc keys).
    static let wrongPINToken = clientPIN(0, zeros(4) + [0, 2]) { subcommand($0) == 9 && $0[int: ClientPINKey.pinHashEnc.rawValue] != nil }
    /// ga only, bound to example.com (permissions' bits 2; rpId's mode 1, pick 0).
    static let boundToken = clientPIN(0, zeros(6) + [0, 2, 1, 0]) {
        subcommand($0) == 9 && $0[int: ClientPINKey.permissions.rawValue] == 2 && $0[int: ClientPINKey.rpId.rawValue] == "example.com"
    }
    static let keyAgreement = clientPIN(1) { subcommand($0) == 2 }
    static let retries = clientPIN(2) { subcommand($0) == 1 }
    static let changePIN = clientPIN(4) { subcommand($0) == 4 }
    /// getPinToken, protocol 1 (the protocol choice 1).
    static let legacyToken = generated([command(.clientPIN), 0, 5, 1]) {
        subcommand($0) == 5 && $0[int: ClientPINKey.pinUvAuthProtocol.rawValue] == 1
    }
    static let getInfo = generated([command(.getInfo), 0])
    static let makeCredential = generated([command(.makeCredential), 0])
    /// makeCredential with options {rk: true}: the options key's mode 1, bits "rk present, true"
    /// (after clientDataHash's 2 bytes, rp's 3, user's 3, pubKeyCredParams' 2, excludeList's 1,
    /// extensions' 1).
    static let makeDiscoverable = generated([command(.makeCredential), 0] + zeros(12) + [1, 3]) {
        $0[int: MakeCredentialKey.options.rawValue]?.mapValue?[text: "rk"] == true
    }
    /// The same for user [9] (the user's ID choice 3): on the baselines, a user with no credential.
    static let makeDiscoverableNewUser = generated([command(.makeCredential), 0] + zeros(7) + [3] + zeros(4) + [1, 3]) {
        $0[int: MakeCredentialKey.user.rawValue]?.mapValue?[text: "id"] == .bytes([9])
            && $0[int: MakeCredentialKey.options.rawValue]?.mapValue?[text: "rk"] == true
    }
    /// makeCredential for user [2] with extensions credProtect 3 + hmac-secret, rk.
    static let makeProtected = generated([command(.makeCredential), 0] + zeros(7) + [1] + zeros(3) + [1, 3, 2, 1, 3]) {
        $0[int: MakeCredentialKey.extensions.rawValue]?.mapValue?[text: "credProtect"] == 3
            && $0[int: MakeCredentialKey.options.rawValue]?.mapValue?[text: "rk"] == true
    }
    static let getAssertion = generated([command(.getAssertion), 0])
    /// getAssertion with hmac-secret (extensions' mode 1, bit 2; after rpId's 2 bytes,
    /// clientDataHash's 2, allowList's 1).
    static let getAssertionHMAC = generated([command(.getAssertion), 0] + zeros(5) + [1, 2]) {
        $0[int: GetAssertionKey.extensions.rawValue]?.mapValue?[text: "hmac-secret"]?.mapValue != nil
    }
    static let getNextAssertion = generated([command(.getNextAssertion), 0])
    /// credentialManagement with the subcommand at `subcommand` of CredentialManagementSubcommand.allCases.
    static func credentialManagement(_ subcommand: UInt8) -> [UInt8] {
        generated([command(.credentialManagement), 0, subcommand])
    }
    static let reset = generated([command(.reset), 0])
    static let selection = generated([command(.selection), 0])
}
