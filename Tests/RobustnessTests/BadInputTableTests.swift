import ArculusCard
import CardCrypto
import Testing
import FIDOWire
import TestSupport

/// What the card must answer to one bad input: an ISO 7816-4 status word with no data, or a
/// CTAP status byte inside a `9000` response (CTAP 2.1 §11.3: the NFC binding carries the CTAP
/// status in the response data).
enum ExpectedAnswer: Sendable, CustomStringConvertible {
    case statusWord(UInt16)
    case ctap(CTAPStatus)
    /// CTAP2_OK + a body (for inputs the specification says to accept, e.g. unknown keys).
    case ctapOKWithBody

    var description: String {
        switch self {
        case .statusWord(let word): String(word, radix: 16, uppercase: true)
        case .ctap(let status): "9000 + \(status.name)"
        case .ctapOKWithBody: "9000 + CTAP2_OK with a body"
        }
    }

    func matches(_ response: [UInt8]) -> Bool {
        switch self {
        case .statusWord(let word): response == [UInt8(word >> 8), UInt8(word & 0xFF)]
        case .ctap(let status): response == [status.rawValue, 0x90, 0x00]
        case .ctapOKWithBody: response.count > 3 && response.first == 0x00 && response.suffix(2) == [0x90, 0x00]
        }
    }
}

/// The setting a row runs in: a fresh deterministic card on a clock the row moves (it stands
/// still otherwise), and a platform that talks to it through APDUs (SELECT first), as
/// python-fido2 does.
struct BadInputContext {
    let card: VirtualCard
    let clock = ManualCardClock()
    let platform: PlatformClient

    init(profile: CardProfile) throws {
        let clock = clock
        card = try makeCard(profile, clock: clock.read)
        let card = card
        platform = PlatformClient(send: { card.ctapThroughFront($0) })
    }

    func select() { _ = card.transmit(APDU.select) }

    /// NFCCTAP_MSG with a raw CTAP request (command byte + body), one short APDU.
    func ctap(_ request: [UInt8]) -> [UInt8] { card.transmit(APDU.ctap(request)) }

    /// NFCCTAP_MSG with `command` + canonical CBOR of `parameters`, chained when long.
    func ctap(_ command: UInt8, _ parameters: CBORMap?) -> [UInt8] {
        card.ctapThroughFront(PlatformClient.request(command, parameters)) + [0x90, 0x00]
    }

    func setPIN(_ pin: String = "1234", protocol pinProtocol: Int = 1) throws {
        guard try platform.setPIN(pin, protocol: pinProtocol).isOK else { throw TestFailure("setPIN failed") }
    }

    func token(_ pin: String = "1234", protocol pinProtocol: Int = 1, permissions: UInt64? = nil,
               rpId: String? = nil) throws -> PlatformToken {
        try platform.token(pin, protocol: pinProtocol, permissions: permissions, rpId: rpId).get()
    }

    /// A discoverable credential for `rpId`, made with a fresh token when a PIN is set.
    @discardableResult
    func makeResident(rpId: String = "example.com", userId: [UInt8], token: PlatformToken? = nil) throws -> [UInt8] {
        let reply = platform.call(CTAPByte.makeCredential,
                                  PlatformClient.makeCredentialRequest(rpId: rpId, userId: userId, rk: true, token: token))
        guard let id = PlatformClient.credential(fromMakeCredential: reply)?.id else {
            throw TestFailure("makeCredential failed: \(reply)")
        }
        return id
    }

    /// Wrong PIN attempts until the retry counter is `remaining`, power-cycling after every
    /// third (PIN_AUTH_BLOCKED clears only at power-up).
    func wrongPINs(until remaining: Int) throws {
        var consecutive = 0
        while (platform.pinRetries() ?? 0) > remaining {
            if consecutive == 3 {
                card.powerCycle()
                select()
                consecutive = 0
            }
            _ = try platform.token("0000")
            consecutive += 1
        }
    }
}

/// One row of the bad-input table: a class of bad input, the bytes, and the exact answer.
struct BadInputRow: Sendable, CustomTestStringConvertible {
    let category: String
    let name: String
    let expected: ExpectedAnswer
    var profile: CardProfile = .arculusFIDO21
    /// Sends the setup and the bad input; returns the card's answer to the bad input.
    let run: @Sendable (BadInputContext) throws -> [UInt8]

    var testDescription: String { "\(category): \(name) → \(expected)" }
}

private let aid = NFCBinding.fidoAID
private let mc = CTAPByte.makeCredential
private let ga = CTAPByte.getAssertion
private let cp = CTAPByte.clientPIN
private let cm = CTAPByte.credentialManagement
private let hash32 = PlatformClient.clientDataHash("client data")

/// A valid makeCredential for example.com (non-discoverable).
private func makeRequest(rpId: String = "example.com", userId: [UInt8] = [1], rk: Bool = false) -> CBORMap {
    PlatformClient.makeCredentialRequest(rpId: rpId, userId: userId, rk: rk)
}

/// Arrays nested `depth` deep around 0.
private func nested(_ depth: Int) -> [UInt8] {
    [UInt8](repeating: 0x81, count: depth) + [0x00]
}

/// The table. Expected answers are checked against CTAP 2.1 (§6 commands, §8 status codes, §11.3
/// NFC binding) and ISO/IEC 7816-4 (§5.1 APDU encodings, §5.6 status words); see the README's
/// reliability section for the same table in prose.
enum BadInputTable {
    static let apduRows: [BadInputRow] = [
        BadInputRow(category: "APDU length/case", name: "no bytes at all", expected: .statusWord(0x6700)) { c in
            c.card.transmit([])
        },
        BadInputRow(category: "APDU length/case", name: "3-byte header 00 A4 04", expected: .statusWord(0x6700)) { c in
            c.card.transmit([0x00, 0xA4, 0x04])
        },
        BadInputRow(category: "APDU length/case", name: "short Lc 08 with 2 data bytes", expected: .statusWord(0x6700)) { c in
            c.card.transmit([0x00, 0xA4, 0x04, 0x00, 0x08, 0xA0, 0x00])
        },
        BadInputRow(category: "APDU length/case", name: "SELECT with a byte after Le", expected: .statusWord(0x6700)) { c in
            c.card.transmit([0x00, 0xA4, 0x04, 0x00, 0x08] + aid + [0x00, 0x00])
        },
        BadInputRow(category: "APDU length/case", name: "short Lc 00 followed by data", expected: .statusWord(0x6700)) { c in
            c.select()
            return c.card.transmit([0x80, 0x10, 0x00, 0x00, 0x00, 0x04])
        },
        BadInputRow(category: "APDU length/case", name: "extended Lc 0000 followed by data", expected: .statusWord(0x6700)) { c in
            c.select()
            return c.card.transmit([0x80, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04])
        },
        BadInputRow(category: "APDU length/case", name: "extended Lc 0005 with 1 data byte", expected: .statusWord(0x6700)) { c in
            c.select()
            return c.card.transmit([0x80, 0x10, 0x00, 0x00, 0x00, 0x00, 0x05, 0x04])
        },
        BadInputRow(category: "APDU length/case", name: "SELECT without data (case 1)", expected: .statusWord(0x6700)) { c in
            c.card.transmit([0x00, 0xA4, 0x04, 0x00])
        },
        BadInputRow(category: "APDU length/case", name: "NFCCTAP_MSG without data (case 2)", expected: .statusWord(0x6700)) { c in
            c.select()
            return c.card.transmit([0x80, 0x10, 0x00, 0x00, 0x00])
        },
        BadInputRow(category: "APDU length/case", name: "GET RESPONSE with a data field", expected: .statusWord(0x6700)) { c in
            c.select()
            return c.card.transmit([0x00, 0xC0, 0x00, 0x00, 0x01, 0x00])
        },
        BadInputRow(category: "APDU length/case", name: "U2F REGISTER with 63 data bytes", expected: .statusWord(0x6700)) { c in
            c.select()
            return c.card.transmit([0x00, 0x01, 0x03, 0x00, 63] + [UInt8](repeating: 1, count: 63) + [0x00])
        },
        BadInputRow(category: "APDU length/case", name: "U2F AUTHENTICATE whose key-handle length disagrees",
                    expected: .statusWord(0x6700)) { c in
            c.select()
            return c.card.transmit([0x00, 0x02, 0x03, 0x00, 70] + [UInt8](repeating: 1, count: 64) + [10, 1, 2, 3, 4, 5] + [0x00])
        },
        BadInputRow(category: "APDU length/case", name: "NFCCTAP_MSG of 2049 bytes (maxMsgSize 2048), extended APDU",
                    expected: .ctap(.requestTooLarge)) { c in
            c.select()
            let body = [mc] + [UInt8](repeating: 0, count: 2048)
            return c.card.transmit([0x80, 0x10, 0x00, 0x00, 0x00, 0x08, 0x01] + body + [0x00, 0x00])
        },

        BadInputRow(category: "CLA/INS", name: "proprietary CLA A0", expected: .statusWord(0x6E00)) { c in
            c.card.transmit([0xA0, 0xA4, 0x04, 0x00, 0x08] + aid + [0x00])
        },
        BadInputRow(category: "CLA/INS", name: "CLA 0C (secure messaging)", expected: .statusWord(0x6E00)) { c in
            c.card.transmit([0x0C, 0xA4, 0x04, 0x00, 0x08] + aid + [0x00])
        },
        BadInputRow(category: "CLA/INS", name: "CLA 01 (logical channel 1)", expected: .statusWord(0x6E00)) { c in
            c.card.transmit([0x01, 0xA4, 0x04, 0x00, 0x08] + aid + [0x00])
        },
        BadInputRow(category: "CLA/INS", name: "NFCCTAP_MSG INS 10 in class 00", expected: .statusWord(0x6D00)) { c in
            c.select()
            return c.card.transmit([0x00, 0x10, 0x00, 0x00, 0x01, 0x04, 0x00])
        },
        BadInputRow(category: "CLA/INS", name: "unknown INS FF in class 80", expected: .statusWord(0x6D00)) { c in
            c.select()
            return c.card.transmit([0x80, 0xFF, 0x00, 0x00])
        },
        BadInputRow(category: "CLA/INS", name: "GET DATA (INS CA), not offered", expected: .statusWord(0x6D00)) { c in
            c.select()
            return c.card.transmit([0x00, 0xCA, 0x00, 0x66, 0x00])
        },
        BadInputRow(category: "CLA/INS", name: "NFCCTAP_MSG before SELECT", expected: .statusWord(0x6985)) { c in
            c.card.transmit(APDU.getInfo)
        },
        BadInputRow(category: "CLA/INS", name: "U2F VERSION before SELECT", expected: .statusWord(0x6985)) { c in
            c.card.transmit([0x00, 0x03, 0x00, 0x00, 0x00])
        },

        BadInputRow(category: "P1/P2", name: "SELECT by file ID (P1 00)", expected: .statusWord(0x6A86)) { c in
            c.card.transmit([0x00, 0xA4, 0x00, 0x00, 0x02, 0x3F, 0x00])
        },
        BadInputRow(category: "P1/P2", name: "SELECT asking for FCP (P2 04)", expected: .statusWord(0x6A86)) { c in
            c.card.transmit([0x00, 0xA4, 0x04, 0x04, 0x08] + aid + [0x00])
        },
        BadInputRow(category: "P1/P2", name: "NFCCTAP_MSG P1 01", expected: .statusWord(0x6A86)) { c in
            c.select()
            return c.card.transmit([0x80, 0x10, 0x01, 0x00, 0x01, 0x04, 0x00])
        },
        BadInputRow(category: "P1/P2", name: "NFCCTAP_MSG P2 01", expected: .statusWord(0x6A86)) { c in
            c.select()
            return c.card.transmit([0x80, 0x10, 0x00, 0x01, 0x01, 0x04, 0x00])
        },
        BadInputRow(category: "P1/P2", name: "GET RESPONSE P1 01", expected: .statusWord(0x6A86)) { c in
            c.select()
            return c.card.transmit([0x00, 0xC0, 0x01, 0x00, 0x00])
        },
        BadInputRow(category: "P1/P2", name: "NFCCTAP_GETRESPONSE P1 05", expected: .statusWord(0x6A86)) { c in
            c.select()
            return c.card.transmit([0x80, 0x11, 0x05, 0x00, 0x00])
        },
        BadInputRow(category: "P1/P2", name: "U2F AUTHENTICATE control byte 05", expected: .statusWord(0x6A86)) { c in
            c.select()
            return c.card.transmit([0x00, 0x02, 0x05, 0x00, 66] + [UInt8](repeating: 1, count: 64) + [1, 9] + [0x00])
        },
        BadInputRow(category: "P1/P2", name: "SELECT of another AID", expected: .statusWord(0x6A82)) { c in
            c.card.transmit([0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x05, 0x27, 0x21, 0x01, 0x00])
        },
        BadInputRow(category: "P1/P2", name: "SELECT of a prefix of the FIDO AID", expected: .statusWord(0x6A82)) { c in
            c.card.transmit([0x00, 0xA4, 0x04, 0x00, 0x07] + aid.prefix(7) + [0x00])
        },

        BadInputRow(category: "chaining", name: "SELECT while an NFCCTAP_MSG chain is open", expected: .statusWord(0x6883)) { c in
            c.select()
            _ = c.card.transmit([0x90, 0x10, 0x00, 0x00, 0x02, mc, 0xA5])
            return c.card.transmit(APDU.select)
        },
        BadInputRow(category: "chaining", name: "chain continued with another P1", expected: .statusWord(0x6883)) { c in
            c.select()
            _ = c.card.transmit([0x90, 0x10, 0x00, 0x00, 0x02, mc, 0xA5])
            return c.card.transmit([0x80, 0x10, 0x80, 0x00, 0x01, 0x00, 0x00])
        },
        BadInputRow(category: "chaining", name: "chain continued with another INS (U2F VERSION)", expected: .statusWord(0x6883)) { c in
            c.select()
            _ = c.card.transmit([0x90, 0x10, 0x00, 0x00, 0x02, mc, 0xA5])
            return c.card.transmit([0x00, 0x03, 0x00, 0x00, 0x00])
        },
        BadInputRow(category: "chaining", name: "chained NFCCTAP_MSG totalling 2250 bytes (maxMsgSize 2048)",
                    expected: .ctap(.requestTooLarge)) { c in
            c.select()
            for _ in 0..<8 { _ = c.card.transmit([0x90, 0x10, 0x00, 0x00, 250] + [UInt8](repeating: 0, count: 250)) }
            return c.card.transmit([0x80, 0x10, 0x00, 0x00, 250] + [UInt8](repeating: 0, count: 250) + [0x00])
        },
        BadInputRow(category: "chaining", name: "GET RESPONSE with nothing pending", expected: .statusWord(0x6985)) { c in
            c.select()
            return c.card.transmit([0x00, 0xC0, 0x00, 0x00, 0x00])
        },
        BadInputRow(category: "chaining", name: "GET RESPONSE after another command dropped the rest",
                    expected: .statusWord(0x6985)) { c in
            c.select()
            let first = c.card.transmit([0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x10])
            guard first.suffix(2).first == 0x61 else { throw TestFailure("getInfo with Le 10 did not chain: \(first.suffix(2))") }
            _ = c.card.transmit([0x00, 0x03, 0x00, 0x00, 0x00])
            return c.card.transmit([0x00, 0xC0, 0x00, 0x00, 0x00])
        },
        BadInputRow(category: "chaining", name: "NFCCTAP_GETRESPONSE with nothing pending", expected: .statusWord(0x6985)) { c in
            c.select()
            return c.card.transmit([0x80, 0x11, 0x00, 0x00, 0x00])
        },
    ]

    static let cborRows: [BadInputRow] = [
        BadInputRow(category: "CBOR", name: "truncated map (makeCredential A1 01)", expected: .ctap(.invalidCBOR)) { c in
            c.select()
            return c.ctap([mc, 0xA1, 0x01])
        },
        BadInputRow(category: "CBOR", name: "truncated inside a byte string", expected: .ctap(.invalidCBOR)) { c in
            c.select()
            return c.ctap([mc, 0xA1, 0x01, 0x58, 0x20, 0x00])
        },
        BadInputRow(category: "CBOR", name: "trailing byte after the map", expected: .ctap(.invalidCBOR)) { c in
            c.select()
            return c.ctap([cp, 0xA1, 0x02, 0x01, 0x00])
        },
        BadInputRow(category: "CBOR", name: "top level is an array, not a map", expected: .ctap(.cborUnexpectedType)) { c in
            c.select()
            return c.ctap([mc, 0x80])
        },
        BadInputRow(category: "CBOR", name: "clientDataHash as text", expected: .ctap(.cborUnexpectedType)) { c in
            c.select()
            var request = makeRequest()
            request[int: 1] = "not bytes"
            return c.ctap(mc, request)
        },
        BadInputRow(category: "CBOR", name: "clientPIN subCommand as text", expected: .ctap(.cborUnexpectedType)) { c in
            c.select()
            return c.ctap(cp, [.int(1): 1, .int(2): "getRetries"])
        },
        BadInputRow(category: "CBOR", name: "options value not a boolean", expected: .ctap(.cborUnexpectedType)) { c in
            c.select()
            var request = makeRequest()
            request[int: 7] = .map(["rk": 1])
            return c.ctap(mc, request)
        },
        BadInputRow(category: "CBOR", name: "9 nested arrays inside the request map (limit 8 levels)",
                    expected: .ctap(.invalidCBOR)) { c in
            c.select()
            return c.ctap([mc, 0xA1, 0x01] + nested(8))
        },
        BadInputRow(category: "CBOR", name: "byte string length 0xFFFFFFFF beyond the input", expected: .ctap(.invalidCBOR)) { c in
            c.select()
            return c.ctap([mc, 0xA1, 0x01, 0x5A, 0xFF, 0xFF, 0xFF, 0xFF, 0x00])
        },
        BadInputRow(category: "CBOR", name: "map of 2^32 entries in 10 bytes", expected: .ctap(.invalidCBOR)) { c in
            c.select()
            return c.ctap([mc, 0xBB, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00])
        },
        BadInputRow(category: "CBOR", name: "indefinite-length map", expected: .ctap(.invalidCBOR)) { c in
            c.select()
            return c.ctap([cp, 0xBF, 0x02, 0x01, 0xFF])
        },
        BadInputRow(category: "CBOR", name: "integer not in shortest form (18 01)", expected: .ctap(.invalidCBOR)) { c in
            c.select()
            return c.ctap([cp, 0xA1, 0x02, 0x18, 0x01])
        },
        BadInputRow(category: "CBOR", name: "duplicate map key", expected: .ctap(.invalidCBOR)) { c in
            c.select()
            return c.ctap([cp, 0xA2, 0x02, 0x01, 0x02, 0x01])
        },
        BadInputRow(category: "CBOR", name: "text string that is not UTF-8", expected: .ctap(.invalidCBOR)) { c in
            c.select()
            return c.ctap([ga, 0xA2, 0x01, 0x62, 0xC3, 0x28, 0x02, 0x40])
        },
        BadInputRow(category: "CBOR", name: "half-precision float value", expected: .ctap(.cborUnexpectedType)) { c in
            c.select()
            return c.ctap([cp, 0xA1, 0x02, 0xF9, 0x3C, 0x00])
        },
        BadInputRow(category: "CBOR", name: "tagged value", expected: .ctap(.cborUnexpectedType)) { c in
            c.select()
            return c.ctap([cp, 0xA1, 0x02, 0xC1, 0x01])
        },
    ]

    static let ctapRows: [BadInputRow] = [
        BadInputRow(category: "CTAP misuse", name: "makeCredential without clientDataHash", expected: .ctap(.missingParameter)) { c in
            c.select()
            var request = makeRequest()
            request[int: 1] = nil
            return c.ctap(mc, request)
        },
        BadInputRow(category: "CTAP misuse", name: "makeCredential without rp", expected: .ctap(.missingParameter)) { c in
            c.select()
            var request = makeRequest()
            request[int: 2] = nil
            return c.ctap(mc, request)
        },
        BadInputRow(category: "CTAP misuse", name: "getAssertion without rpId", expected: .ctap(.missingParameter)) { c in
            c.select()
            return c.ctap(ga, [.int(2): .bytes(hash32)])
        },
        BadInputRow(category: "CTAP misuse", name: "clientPIN without subCommand", expected: .ctap(.missingParameter)) { c in
            c.select()
            return c.ctap(cp, [.int(1): 1])
        },
        BadInputRow(category: "CTAP misuse", name: "getKeyAgreement without pinUvAuthProtocol", expected: .ctap(.missingParameter)) { c in
            c.select()
            return c.ctap(cp, [.int(2): 2])
        },
        BadInputRow(category: "CTAP misuse", name: "makeCredential with unknown keys 0x20 and \"x\" (ignored)",
                    expected: .ctapOKWithBody) { c in
            c.select()
            var request = makeRequest()
            request[int: 0x20] = "unknown"
            request["x"] = .array([1, 2])
            return c.ctap(mc, request)
        },
        BadInputRow(category: "CTAP misuse", name: "getPINRetries with an unknown key 0x0F (ignored)", expected: .ctapOKWithBody) { c in
            c.select()
            try c.setPIN()
            return c.ctap(cp, [.int(1): 1, .int(2): 1, .int(0x0F): .bytes([1, 2, 3])])
        },
        BadInputRow(category: "CTAP misuse", name: "getPINRetries while no PIN is set", expected: .ctap(.pinNotSet)) { c in
            c.select()
            return c.ctap(cp, [.int(1): 1, .int(2): 1])
        },
        BadInputRow(category: "CTAP misuse", name: "getInfo with a CBOR body (it takes none)", expected: .ctap(.invalidLength)) { c in
            c.select()
            return c.ctap([CTAPByte.getInfo, 0xA0])
        },
        BadInputRow(category: "CTAP misuse", name: "unknown command byte 0x42", expected: .ctap(.invalidCommand)) { c in
            c.select()
            return c.ctap([0x42, 0xA0])
        },
        BadInputRow(category: "CTAP misuse", name: "largeBlobs (0x0C), not offered (CTAP 2.0 card)", expected: .ctap(.invalidCommand),
                    profile: .arculusFIDO2) { c in
            c.select()
            return c.ctap([0x0C, 0xA1, 0x01, 0x10])
        },
        BadInputRow(category: "CTAP misuse", name: "largeBlobs get without offset → INVALID_PARAMETER (§6.10.2 step 1)", expected: .ctap(.invalidParameter)) { c in
            c.select()
            return c.ctap([0x0C, 0xA1, 0x01, 0x10])
        },
        BadInputRow(category: "CTAP misuse", name: "unknown clientPIN subCommand 0x0F", expected: .ctap(.invalidSubcommand)) { c in
            c.select()
            return c.ctap(cp, [.int(1): 1, .int(2): 0x0F])
        },
        BadInputRow(category: "CTAP misuse", name: "unknown credentialManagement subCommand 0x20", expected: .ctap(.invalidSubcommand)) { c in
            c.select()
            return c.ctap(cm, [.int(1): 0x20])
        },
        BadInputRow(category: "CTAP misuse", name: "getKeyAgreement with PIN protocol 3", expected: .ctap(.invalidParameter)) { c in
            c.select()
            return c.ctap(cp, [.int(1): 3, .int(2): 2])
        },
        BadInputRow(category: "CTAP misuse", name: "getKeyAgreement with protocol 2 on the protocol-1 card",
                    expected: .ctap(.invalidParameter), profile: .arculusFIDO2) { c in
            c.select()
            return c.ctap(cp, [.int(1): 2, .int(2): 2])
        },
        BadInputRow(category: "CTAP misuse", name: "makeCredential with pinUvAuthProtocol 3", expected: .ctap(.invalidParameter)) { c in
            c.select()
            try c.setPIN()
            var request = makeRequest()
            request[int: 8] = .bytes([UInt8](repeating: 0, count: 16))
            request[int: 9] = 3
            return c.ctap(mc, request)
        },
        BadInputRow(category: "CTAP misuse", name: "makeCredential pinUvAuthParam without pinUvAuthProtocol",
                    expected: .ctap(.missingParameter)) { c in
            c.select()
            try c.setPIN()
            var request = makeRequest()
            request[int: 8] = .bytes([UInt8](repeating: 0, count: 16))
            return c.ctap(mc, request)
        },
        BadInputRow(category: "CTAP misuse", name: "pinUvAuthParam of 15 bytes (protocol 1 wants 16)", expected: .ctap(.pinAuthInvalid)) { c in
            c.select()
            try c.setPIN()
            let token = try c.token()
            var request = makeRequest()
            request[int: 8] = .bytes(Array(token.authenticate(hash32).prefix(15)))
            request[int: 9] = 1
            request[int: 1] = .bytes(hash32)
            return c.ctap(mc, request)
        },
        BadInputRow(category: "CTAP misuse", name: "pinUvAuthParam of 16 bytes with protocol 2 (wants 32)",
                    expected: .ctap(.pinAuthInvalid)) { c in
            c.select()
            try c.setPIN(protocol: 2)
            let token = try c.token(protocol: 2, permissions: PermissionBit.makeCredential)
            var request = makeRequest()
            request[int: 1] = .bytes(hash32)
            request[int: 8] = .bytes(Array(token.authenticate(hash32).prefix(16)))
            request[int: 9] = 2
            return c.ctap(mc, request)
        },
        BadInputRow(category: "CTAP misuse", name: "token bound to example.com used for other.example",
                    expected: .ctap(.pinAuthInvalid)) { c in
            c.select()
            try c.setPIN(protocol: 2)
            let token = try c.token(protocol: 2, permissions: PermissionBit.makeCredential, rpId: "example.com")
            return c.ctap(mc, PlatformClient.makeCredentialRequest(rpId: "other.example", userId: [1], rk: false, token: token))
        },
        BadInputRow(category: "CTAP misuse", name: "token with only the ga permission used for makeCredential",
                    expected: .ctap(.pinAuthInvalid)) { c in
            c.select()
            try c.setPIN(protocol: 2)
            let token = try c.token(protocol: 2, permissions: PermissionBit.getAssertion)
            return c.ctap(mc, PlatformClient.makeCredentialRequest(userId: [1], rk: false, token: token))
        },
        BadInputRow(category: "CTAP misuse", name: "token without the cm permission used for credentialManagement",
                    expected: .ctap(.pinAuthInvalid)) { c in
            c.select()
            try c.setPIN(protocol: 2)
            let token = try c.token(protocol: 2, permissions: PermissionBit.makeCredential | PermissionBit.getAssertion)
            return c.ctap(cm, PlatformClient.credentialManagementRequest(1, token: token))
        },
        BadInputRow(category: "CTAP misuse", name: "a token used for a second makeCredential (mc permission consumed)",
                    expected: .ctap(.pinAuthInvalid)) { c in
            c.select()
            try c.setPIN(protocol: 2)
            let token = try c.token(protocol: 2, permissions: PermissionBit.makeCredential)
            _ = c.ctap(mc, PlatformClient.makeCredentialRequest(userId: [1], rk: false, token: token))
            return c.ctap(mc, PlatformClient.makeCredentialRequest(userId: [2], rk: false, token: token))
        },
        BadInputRow(category: "CTAP misuse", name: "getNextAssertion without a getAssertion", expected: .ctap(.notAllowed)) { c in
            c.select()
            return c.ctap([CTAPByte.getNextAssertion])
        },
        BadInputRow(category: "CTAP misuse", name: "getNextAssertion after the last assertion", expected: .ctap(.notAllowed)) { c in
            c.select()
            try c.makeResident(userId: [1])
            try c.makeResident(userId: [2])
            _ = c.ctap(ga, PlatformClient.getAssertionRequest())
            _ = c.ctap([CTAPByte.getNextAssertion])
            return c.ctap([CTAPByte.getNextAssertion])
        },
        BadInputRow(category: "CTAP misuse", name: "getNextAssertion after another command", expected: .ctap(.notAllowed)) { c in
            c.select()
            try c.makeResident(userId: [1])
            try c.makeResident(userId: [2])
            _ = c.ctap(ga, PlatformClient.getAssertionRequest())
            _ = c.ctap([CTAPByte.getInfo])
            return c.ctap([CTAPByte.getNextAssertion])
        },
        BadInputRow(category: "CTAP misuse", name: "enumerateRPsGetNextRP without enumerateRPsBegin", expected: .ctap(.notAllowed)) { c in
            c.select()
            return c.ctap(cm, [.int(1): 3])
        },
        BadInputRow(category: "CTAP misuse", name: "enumerateCredentialsGetNextCredential without begin",
                    expected: .ctap(.notAllowed)) { c in
            c.select()
            return c.ctap(cm, [.int(1): 5])
        },
        BadInputRow(category: "CTAP misuse", name: "getCredsMetadata without pinUvAuthParam", expected: .ctap(.puatRequired)) { c in
            c.select()
            try c.setPIN()
            return c.ctap(cm, [.int(1): 1])
        },
        BadInputRow(category: "CTAP misuse", name: "getPinUvAuthTokenUsingPinWithPermissions, permissions 0",
                    expected: .ctap(.invalidParameter)) { c in
            c.select()
            try c.setPIN()
            var (request, _) = try c.platform.tokenRequest("1234", permissions: 0x01)
            request[int: 9] = 0
            return c.ctap(cp, request)
        },
        BadInputRow(category: "CTAP misuse", name: "mc token without a permissions RP ID (CTAP 2.1 §6.5.5.7)",
                    expected: .ctap(.missingParameter)) { c in
            c.select()
            try c.setPIN()
            var (request, _) = try c.platform.tokenRequest("1234", permissions: 0x01)
            request[int: 10] = nil
            return c.ctap(cp, request)
        },
        BadInputRow(category: "CTAP misuse", name: "permission be (bio enrollment), not offered",
                    expected: .ctap(.unauthorizedPermission)) { c in
            c.select()
            try c.setPIN()
            let (request, _) = try c.platform.tokenRequest("1234", permissions: 0x08)
            return c.ctap(cp, request)
        },
        BadInputRow(category: "CTAP misuse", name: "getPinUvAuthTokenUsingPinWithPermissions without permissions",
                    expected: .ctap(.missingParameter)) { c in
            c.select()
            try c.setPIN()
            var (request, _) = try c.platform.tokenRequest("1234", permissions: 0x01)
            request[int: 9] = nil
            return c.ctap(cp, request)
        },
        BadInputRow(category: "CTAP misuse", name: "getPinToken (0x05) with permissions on a 2.1 card",
                    expected: .ctap(.invalidParameter)) { c in
            c.select()
            try c.setPIN()
            var (request, _) = try c.platform.tokenRequest("1234")
            request[int: 9] = 0x03
            return c.ctap(cp, request)
        },
        BadInputRow(category: "CTAP misuse", name: "setPIN with a wrong pinUvAuthParam", expected: .ctap(.pinAuthInvalid)) { c in
            c.select()
            var request = try c.platform.setPINRequest("1234")
            request[int: 4] = .bytes([UInt8](repeating: 0xAA, count: 16))
            return c.ctap(cp, request)
        },
        BadInputRow(category: "CTAP misuse", name: "setPIN with a 3-digit PIN (minimum 4)", expected: .ctap(.pinPolicyViolation)) { c in
            c.select()
            return c.ctap(cp, try c.platform.setPINRequest("123"))
        },
        BadInputRow(category: "CTAP misuse", name: "keyAgreement that is not a P-256 point", expected: .ctap(.invalidParameter)) { c in
            c.select()
            var request = try c.platform.setPINRequest("1234")
            request[int: 3] = .map([.int(1): 2, .int(3): -25, .int(-1): 1,
                                    .int(-2): .bytes([UInt8](repeating: 1, count: 32)),
                                    .int(-3): .bytes([UInt8](repeating: 2, count: 32))])
            return c.ctap(cp, request)
        },
        BadInputRow(category: "CTAP misuse", name: "makeCredential with ES256 missing (RS256 only)",
                    expected: .ctap(.unsupportedAlgorithm)) { c in
            c.select()
            var request = makeRequest()
            request[int: 4] = .array([.map(["alg": -257, "type": "public-key"])])
            return c.ctap(mc, request)
        },
        BadInputRow(category: "CTAP misuse", name: "makeCredential with option up=false", expected: .ctap(.invalidOption)) { c in
            c.select()
            var request = makeRequest()
            request[int: 7] = .map(["up": false])
            return c.ctap(mc, request)
        },
        BadInputRow(category: "CTAP misuse", name: "makeCredential with option uv=true (no built-in UV)",
                    expected: .ctap(.invalidOption)) { c in
            c.select()
            var request = makeRequest()
            request[int: 7] = .map(["uv": true])
            return c.ctap(mc, request)
        },
        BadInputRow(category: "CTAP misuse", name: "getAssertion with option rk", expected: .ctap(.unsupportedOption)) { c in
            c.select()
            var request = PlatformClient.getAssertionRequest()
            request[int: 5] = .map(["rk": true])
            return c.ctap(ga, request)
        },
        BadInputRow(category: "CTAP misuse", name: "makeCredential whose excludeList names an existing credential",
                    expected: .ctap(.credentialExcluded)) { c in
            c.select()
            let id = try c.makeResident(userId: [1])
            var request = makeRequest(userId: [2])
            request[int: 5] = .array([.map(["id": .bytes(id), "type": "public-key"])])
            return c.ctap(mc, request)
        },
        BadInputRow(category: "CTAP misuse", name: "credentialManagement on the CTAP 2.0 card", expected: .ctap(.invalidCommand),
                    profile: .arculusFIDO2) { c in
            c.select()
            return c.ctap(cm, [.int(1): 1])
        },
        BadInputRow(category: "CTAP misuse", name: "reset 11 s after power-up (window 10 s)", expected: .ctap(.notAllowed)) { c in
            c.select()
            c.clock.now = c.clock.now.advanced(by: .seconds(11))
            return c.ctap([CTAPByte.reset])
        },
        BadInputRow(category: "CTAP misuse", name: "authenticatorSelection with a body", expected: .ctap(.invalidLength)) { c in
            c.select()
            return c.ctap([CTAPByte.selection, 0xA0])
        },
    ]

    static let stateRows: [BadInputRow] = [
        BadInputRow(category: "state", name: "getPinToken with no PIN set", expected: .ctap(.pinNotSet)) { c in
            c.select()
            return c.ctap(cp, try c.platform.tokenRequest("1234").0)
        },
        BadInputRow(category: "state", name: "changePIN with no PIN set", expected: .ctap(.pinNotSet)) { c in
            c.select()
            return c.ctap(cp, try c.platform.changePINRequest(from: "1234", to: "5678"))
        },
        BadInputRow(category: "state", name: "makeCredential PIN probe (empty pinUvAuthParam), no PIN",
                    expected: .ctap(.pinNotSet)) { c in
            c.select()
            var request = makeRequest()
            request[int: 8] = .bytes([])
            request[int: 9] = 1
            return c.ctap(mc, request)
        },
        BadInputRow(category: "state", name: "setPIN when a PIN is set", expected: .ctap(.pinAuthInvalid)) { c in
            c.select()
            try c.setPIN()
            return c.ctap(cp, try c.platform.setPINRequest("5678"))
        },
        BadInputRow(category: "state", name: "wrong PIN", expected: .ctap(.pinInvalid)) { c in
            c.select()
            try c.setPIN()
            return c.ctap(cp, try c.platform.tokenRequest("0000").0)
        },
        BadInputRow(category: "state", name: "right PIN after 3 wrong ones, same power-up", expected: .ctap(.pinAuthBlocked)) { c in
            c.select()
            try c.setPIN()
            for _ in 0..<3 { _ = try c.platform.token("0000") }
            return c.ctap(cp, try c.platform.tokenRequest("1234").0)
        },
        BadInputRow(category: "state", name: "right PIN when the retries are used up", expected: .ctap(.pinBlocked)) { c in
            c.select()
            try c.setPIN()
            try c.wrongPINs(until: 0)
            c.card.powerCycle()
            c.select()
            return c.ctap(cp, try c.platform.tokenRequest("1234").0)
        },
        BadInputRow(category: "state", name: "makeCredential rk=true with a PIN set and no pinUvAuthParam",
                    expected: .ctap(.puatRequired)) { c in
            c.select()
            try c.setPIN()
            return c.ctap(mc, makeRequest(rk: true))
        },
        BadInputRow(category: "state", name: "51st discoverable credential (capacity 50)", expected: .ctap(.keyStoreFull)) { c in
            c.select()
            for user in 0..<50 { try c.makeResident(userId: [UInt8(user)]) }
            return c.ctap(mc, makeRequest(userId: [0xFF], rk: true))
        },
        BadInputRow(category: "state", name: "getAssertion whose allowList names no credential of this card",
                    expected: .ctap(.noCredentials)) { c in
            c.select()
            return c.ctap(ga, PlatformClient.getAssertionRequest(allow: [[UInt8](repeating: 7, count: 81)]))
        },
        BadInputRow(category: "state", name: "getAssertion for an RP with no discoverable credential",
                    expected: .ctap(.noCredentials)) { c in
            c.select()
            try c.makeResident(rpId: "example.com", userId: [1])
            return c.ctap(ga, PlatformClient.getAssertionRequest(rpId: "other.example"))
        },
        BadInputRow(category: "state", name: "getAssertion with a credential of another RP", expected: .ctap(.noCredentials)) { c in
            c.select()
            let id = try c.makeResident(rpId: "example.com", userId: [1])
            return c.ctap(ga, PlatformClient.getAssertionRequest(rpId: "other.example", allow: [id]))
        },
        BadInputRow(category: "state", name: "deleteCredential of an unknown credential ID", expected: .ctap(.noCredentials)) { c in
            c.select()
            try c.setPIN()
            let token = try c.token(permissions: PermissionBit.credentialManagement)
            return c.ctap(cm, PlatformClient.credentialManagementRequest(
                6, [.int(2): .map(["id": .bytes([UInt8](repeating: 3, count: 81)), "type": "public-key"])], token: token))
        },
        BadInputRow(category: "state", name: "deleteCredential of a credential deleted before", expected: .ctap(.noCredentials)) { c in
            c.select()
            try c.setPIN()
            let made = try c.token(permissions: PermissionBit.makeCredential)
            let id = try c.makeResident(userId: [1], token: made)
            let token = try c.token(permissions: PermissionBit.credentialManagement)
            let parameters: CBORMap = [.int(2): .map(["id": .bytes(id), "type": "public-key"])]
            _ = c.ctap(cm, PlatformClient.credentialManagementRequest(6, parameters, token: token))
            return c.ctap(cm, PlatformClient.credentialManagementRequest(6, parameters, token: token))
        },
        BadInputRow(category: "state", name: "enumerateRPsBegin with no discoverable credential", expected: .ctap(.noCredentials)) { c in
            c.select()
            try c.setPIN()
            let token = try c.token(permissions: PermissionBit.credentialManagement)
            return c.ctap(cm, PlatformClient.credentialManagementRequest(2, token: token))
        },
        BadInputRow(category: "state", name: "U2F AUTHENTICATE with another card's key handle", expected: .statusWord(0x6A80)) { c in
            c.select()
            let handle = [UInt8](repeating: 5, count: 81)
            return c.card.transmit([0x00, 0x02, 0x03, 0x00, UInt8(65 + handle.count)] + [UInt8](repeating: 1, count: 64)
                                   + [UInt8(handle.count)] + handle + [0x00])
        },
        BadInputRow(category: "state", name: "U2F check-only with this card's key handle", expected: .statusWord(0x6985)) { c in
            c.select()
            let challenge = [UInt8](repeating: 1, count: 32)
            let application = [UInt8](repeating: 2, count: 32)
            let registered = c.card.transmit([0x00, 0x01, 0x03, 0x00, 64] + challenge + application + [0x00])
            var all = registered
            while all.count >= 2, all[all.count - 2] == 0x61 {
                let next = c.card.transmit([0x00, 0xC0, 0x00, 0x00, all[all.count - 1]])
                all = Array(all.dropLast(2)) + next
            }
            guard all.count > 67 else { throw TestFailure("U2F REGISTER failed") }
            let handle = Array(all[67..<(67 + Int(all[66]))])
            return c.card.transmit([0x00, 0x02, 0x07, 0x00, UInt8(65 + handle.count)] + challenge + application
                                   + [UInt8(handle.count)] + handle + [0x00])
        },
    ]

    static let rows = apduRows + cborRows + ctapRows + stateRows
}

@Suite("Bad-input table: each class of bad input gets its exact answer, and the card works afterwards")
struct BadInputTableTests {
    @Test(arguments: BadInputTable.rows)
    func row(_ row: BadInputRow) throws {
        let context = try BadInputContext(profile: row.profile)
        let answer = try row.run(context)
        #expect(row.expected.matches(answer),
                "\(row.category): \(row.name): expected \(row.expected), got \(TestHex.string(answer.count > 24 ? Array(answer.prefix(8)) + Array(answer.suffix(2)) : answer, uppercase: true))")
        #expect(context.card.answersNormally(), "after \(row.name) the card no longer answers SELECT + getInfo")
    }

    @Test("the table covers every class the reliability section names")
    func coverage() {
        let categories = Set(BadInputTable.rows.map(\.category))
        #expect(categories == ["APDU length/case", "CLA/INS", "P1/P2", "chaining", "CBOR", "CTAP misuse", "state"])
        #expect(BadInputTable.rows.count >= 100)
        #expect(Set(BadInputTable.rows.map(\.testDescription)).count == BadInputTable.rows.count, "row names are unique")
    }
}
