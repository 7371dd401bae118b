import ArculusCard
import COSE
import CardCrypto
import Transcript
import FIDOWire

/// Transcript replay speed: a session of a deterministic (seeded) card is recorded as a
/// `Transcript`, written as text and parsed back, then replayed byte-exact by the replay engine
/// (`TranscriptReplay`, which makes the card its headers describe and compares every response),
/// and, as the floor, its commands fed straight through `VirtualCard.transmit` of a fresh card
/// with the same seed, comparing each response, without the engine.
struct ReplaySuite {
    let plan: RoundPlan

    static let seed: [UInt8] = Array(0..<32)

    struct Results {
        var engine: Samples
        var direct: Samples
        var apduCount: Int
    }

    func run() throws -> Results {
        let transcript = try Transcript.parse(try Self.record().text)
        let exchanges = transcript.exchanges
        let check = try TranscriptReplay(transcript: transcript).run()
        if let mismatch = check.mismatch { throw BenchError("the replay engine rejects the benchmark's own recording: \(mismatch)") }
        guard check.exchangesReplayed == exchanges.count else {
            throw BenchError("the replay engine replayed \(check.exchangesReplayed) of \(exchanges.count) APDUs")
        }
        // Engine: one step replays the whole transcript (making its card included); the rate
        // is per APDU, so the step's time is spread over them.
        let engine = Workload(name: "TranscriptReplay") {
            var result: ReplayResult?
            let elapsed = try timed { result = try TranscriptReplay(transcript: transcript).run() }
            guard let result, result.mismatch == nil else { throw BenchError("replay mismatch: \(String(describing: result?.mismatch))") }
            return elapsed / UInt64(max(1, result.exchangesReplayed))
        }
        // Floor: one step is one APDU; each session starts on a fresh seeded card (untimed).
        var sessionIndex = 0
        var card = try Self.freshCard()
        let direct = Workload(name: "transmit") {
            if sessionIndex == exchanges.count {
                card = try Self.freshCard()
                sessionIndex = 0
            }
            let (command, expected) = exchanges[sessionIndex]
            sessionIndex += 1
            var response: [UInt8] = []
            let elapsed = timed { response = card.transmit(command) }
            guard response == expected else {
                throw BenchError("replay diverged at APDU \(sessionIndex): expected \(expected.hexString), got \(response.hexString)")
            }
            return elapsed
        }
        let rates = try plan.interleaved([engine, direct])
        return Results(engine: rates[0], direct: rates[1], apduCount: exchanges.count)
    }

    /// A seeded card as the transcript's `! power-on` leaves it.
    static func freshCard() throws -> VirtualCard {
        let card = try VirtualCard(profile: .default, entropy: .seeded(seed))
        card.powerOn()
        return card
    }

    /// A python-fido2-like session on a seeded card, APDU by APDU: SELECT, getInfo, PIN set
    /// and token, discoverable and non-discoverable registrations, assertions with and
    /// without allow list (getNextAssertion), U2F register/authenticate, GET RESPONSE chains.
    static func record() throws -> Transcript {
        let card = try VirtualCard(profile: .default, entropy: .seeded(seed))
        card.powerOn()
        var transcript = Transcript(headers: [
            .init("format", "1"), .init("profile", CardProfile.default.name), .init("seed", seed.hexString.uppercased()),
            .init("image", "blank"), .init("source", "arculus-bench"),
        ])
        transcript.entries.append(.event(.powerOn))
        func send(_ apdu: [UInt8]) -> [UInt8] {
            Platform.followingChain(apdu) { command in
                let response = card.transmit(command)
                transcript.entries.append(.exchange(command: command, response: response, note: nil))
                return response
            }
        }
        func ctap(_ request: [UInt8], _ what: String) throws -> CBORMap {
            let response = send(try Platform.nfcctapMessage(request))
            return try Platform.body(of: Array(response.dropLast(2)), what)
        }

        _ = send(Platform.select)
        _ = try ctap(Platform.getInfo, "getInfo")
        let keyAgreement = try ctap(Platform.getKeyAgreement, "getKeyAgreement")
        guard let cose = keyAgreement[int: 1], let key = try? COSEPublicKey(cbor: cose) else {
            throw BenchError("no key agreement key")
        }
        let session = try PINProtocolTwoSession(cardKey: key.publicKey)
        _ = try ctap(try session.setPIN(Platform.pin), "setPIN")
        // Retries once there is a PIN (without one the card answers PIN_NOT_SET).
        _ = try ctap([CTAPCommand.clientPIN.rawValue] + CBOREncoder.encode(.map([.int(1): .int(2), .int(2): .int(1)])),
                     "getPINRetries")
        var credentialIds: [[UInt8]] = []
        for index in 0..<3 {
            let token = try session.token(from: [0x00] + CBOREncoder.encode(.map(
                try ctap(try session.getPinUvAuthToken(Platform.pin), "getPinUvAuthToken"))))
            let clientDataHash = SecureRandom.bytes(32)
            let made = try ctap(Platform.makeCredential(
                clientDataHash: clientDataHash, userId: Array("user-\(index)".utf8), discoverable: true,
                pinUvAuthParam: HMACSHA256.authenticate(key: token, data: clientDataHash)), "makeCredential (rk)")
            guard let authData = made[int: 2]?.bytesValue else { throw BenchError("no authData") }
            credentialIds.append(Array(authData[55..<(55 + (Int(authData[53]) << 8 | Int(authData[54])))]))
        }
        for _ in 0..<4 {
            let made = try ctap(Platform.makeCredential(clientDataHash: SecureRandom.bytes(32), userId: SecureRandom.bytes(16),
                                                        discoverable: false), "makeCredential")
            guard let authData = made[int: 2]?.bytesValue else { throw BenchError("no authData") }
            credentialIds.append(Array(authData[55..<(55 + (Int(authData[53]) << 8 | Int(authData[54])))]))
        }
        for _ in 0..<4 {
            for id in credentialIds {
                _ = try ctap(Platform.getAssertion(clientDataHash: SecureRandom.bytes(32), credentialId: id), "getAssertion")
            }
        }
        // Discoverable: no allow list, with a token (credProtect 1 would not need one; the
        // platform sends it anyway), then the other two with getNextAssertion.
        let token = try session.token(from: [0x00] + CBOREncoder.encode(.map(
            try ctap(try session.getPinUvAuthToken(Platform.pin), "getPinUvAuthToken"))))
        let clientDataHash = SecureRandom.bytes(32)
        var request = CBORMap()
        request[.int(1)] = .text(Platform.rpId)
        request[.int(2)] = .bytes(clientDataHash)
        request[.int(6)] = .bytes(HMACSHA256.authenticate(key: token, data: clientDataHash))
        request[.int(7)] = .int(2)
        _ = try ctap([CTAPCommand.getAssertion.rawValue] + CBOREncoder.encode(.map(request)), "getAssertion (rk)")
        _ = try ctap([CTAPCommand.getNextAssertion.rawValue], "getNextAssertion")
        _ = try ctap([CTAPCommand.getNextAssertion.rawValue], "getNextAssertion")
        // U2F over APDUs.
        let application = SHA256.hash(Array(Platform.rpId.utf8))
        let registration = send([0x00, 0x01, 0x03, 0x00, 64] + SecureRandom.bytes(32) + application + [0x00])
        guard registration.suffix(2) == [0x90, 0x00], registration.count > 67 else { throw BenchError("U2F register failed") }
        let keyHandle = Array(registration[67..<(67 + Int(registration[66]))])
        for _ in 0..<4 {
            let data = SecureRandom.bytes(32) + application + [UInt8(keyHandle.count)] + keyHandle
            let signed = send([0x00, 0x02, 0x03, 0x00, UInt8(data.count)] + data + [0x00])
            guard signed.suffix(2) == [0x90, 0x00] else { throw BenchError("U2F authenticate failed") }
        }
        return transcript
    }
}
