import ArculusCard
import CBOR
import FIDOWire
import Foundation
import Transcript
import TestSupport

// Writes the seed corpora in Fixtures/fuzz/<target>/. Compiled into the `card` target only:
// `ARCULUS_FUZZ_WRITE_SEEDS=DIR fuzz-card` writes them into DIR and exits (fuzz.sh --seeds).
//
// Cards and platform are deterministic, so a recorded flow replays exactly in the harnesses: a
// seed with a setPIN, a PIN token and a makeCredential carries valid ECDH keys, MACs and
// encrypted PINs for the card it will meet. Sources: the scripted flows (FuzzSeedFlows.swift) as
// raw APDUs and raw CTAP requests; short programs of generated requests (FuzzCTAPGenerator:
// byte 0 is always the ordinary choice, so a few choices and zeros make a whole flow); the
// transcripts in Fixtures/transcripts/; the RFC 8949 Appendix A vectors in Fixtures/vectors/.

@_cdecl("LLVMFuzzerInitialize")
public func fuzzCardInitialize(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    fuzzBenchmarkIfAsked(fuzzCardTestOneInput)
    guard let directory = ProcessInfo.processInfo.environment["ARCULUS_FUZZ_WRITE_SEEDS"] else { return 0 }
    do {
        let count = try SeedWriter(directory: directory).writeAll()
        print("wrote \(count) seed files under \(directory)")
        exit(0)
    } catch {
        print("cannot write seeds: \(error)")
        exit(1)
    }
}

struct SeedWriter {
    let directory: String
    private let repository: String

    init(directory: String) {
        self.directory = directory
        // Tests/Fuzz/Harnesses/FuzzSeeds.swift → the repository.
        repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().path
    }

    func writeAll() throws -> Int {
        var seeds: [(target: String, name: String, bytes: [UInt8])] = []
        var cardInputs: [(String, [UInt8])] = []

        for flow in Self.flows {
            let selector = UInt8(flow.baseline.rawValue) | flow.selectorBits
            let client = RecordingNFCClient(card: cardStart(selector: selector).card)
            try flow.run(client)
            let card = [selector] + client.apdus.flatMap(Self.rawAPDU)
            cardInputs.append((flow.name, card))
            // The ctap2 target, with and without a harness-made token and pinUvAuthParam fix-up.
            seeds.append(("ctap2", flow.name, [UInt8(flow.baseline.rawValue)] + client.requests.flatMap { Self.rawRequest($0) }))
            if flow.baseline == .populated21 {
                seeds.append(("ctap2", flow.name + "-token-fixup", [UInt8(FuzzStartState.token21.rawValue)]
                              + client.requests.flatMap { Self.rawRequest($0, fixUp: true) }))
            }
            for (index, request) in client.requests.enumerated() where request.count > 1 && request.count < 4096 {
                seeds.append(("cbor", "\(flow.name)-\(index)", Array(request.dropFirst())))
            }
            seeds.append(("transcript", flow.name, Array(Self.transcript(of: card, profile: flow.baseline.profile).utf8)))
        }
        cardInputs += try recordedTranscripts(&seeds)
        cardInputs += Self.generatedCardPrograms()
        seeds += Self.generatedCTAPPrograms().map { ("ctap2", $0.0, $0.1) }
        seeds += cardInputs.map { ("card", $0.0, $0.1) }
        seeds += try rfc8949Vectors().map { ("cbor", $0.0, $0.1) }
        seeds += Self.vpcdStreams(cardInputs.prefix(12)).map { ("vpcd", $0.0, $0.1) }
        seeds += try images().map { ("image", $0.0, $0.1) }
        for seed in seeds { try write(seed.target, seed.name, seed.bytes) }
        return seeds.count
    }

    // MARK: - Encodings of the harnesses' operations

    /// A card-target operation sending `apdu` as it is (an empty one: a power cycle).
    static func rawAPDU(_ apdu: [UInt8]) -> [UInt8] {
        apdu.isEmpty ? [FuzzCardProgram.Operation.powerCycle.code]
            : [FuzzCardProgram.Operation.rawAPDU.code] + LengthPrefixedPieces.encode([apdu])
    }

    /// A ctap2-target operation sending `request` (an empty one: a power cycle).
    static func rawRequest(_ request: [UInt8], fixUp: Bool = false) -> [UInt8] {
        request.isEmpty ? [FuzzCTAP2Operation.powerCycle.code]
            : [(fixUp ? FuzzCTAP2Operation.rawFixedUp : .raw).code] + LengthPrefixedPieces.encode([request])
    }

    /// Programs of generated requests for the ctap2 target: PIN, credentials, assertions,
    /// credential management and reset, from every start state.
    static func generatedCTAPPrograms() -> [(String, [UInt8])] {
        typealias R = FuzzRequest
        let generated = FuzzCTAP2Operation.generated.code
        func program(_ start: FuzzStartState, _ requests: [[UInt8]], after: [UInt8] = []) -> [UInt8] {
            [UInt8(start.rawValue)] + requests.flatMap { [generated] + $0 } + after
        }
        let management = (0..<7).map { R.credentialManagement(UInt8($0)) }
        let powerCycle = [FuzzCTAP2Operation.powerCycle.code]
        return [
            ("generated-blank-pin-credentials", program(.blank21, [R.getInfo, R.retries, R.setPIN, R.token, R.makeDiscoverable,
                                                                  R.token, R.makeProtected, R.token, R.getAssertion,
                                                                  R.getNextAssertion])),
            ("generated-populated-assertions", program(.populated21, [R.token, R.getAssertion, R.getNextAssertion,
                                                                    R.getNextAssertion, R.token, R.getAssertionHMAC])),
            ("generated-token-management", program(.token21, management + [R.credentialManagement(4)])),
            ("generated-change-pin", program(.populated21, [R.changePIN, R.token, R.makeCredential])),
            ("generated-last-retry-reset", program(.lastRetry21, [R.token, R.retries, R.reset])),
            ("generated-blank20", program(.blank20, [R.getInfo, R.setPIN, R.legacyToken, R.makeDiscoverable, R.getAssertion,
                                                     R.selection])),
            ("generated-token-mc-ga", program(.token21, [R.makeDiscoverable, R.getAssertion])),
            ("generated-legacy-token", program(.legacyToken21, [R.makeCredential, R.getAssertion])),
            ("generated-bound-token", program(.boundToken21, [R.getAssertion, R.makeCredential])),
            ("generated-pending-assertion", program(.pendingAssertion21, [R.getNextAssertion, R.getNextAssertion])),
            ("generated-enumerating-rps", program(.enumeratingRPs21, [R.credentialManagement(2), R.credentialManagement(2)])),
            ("generated-enumerating-credentials", program(.enumeratingCredentials21, [R.credentialManagement(4)])),
            ("generated-wrong-pins", program(.wrongPINs21, [R.token], after: powerCycle + [generated] + R.keyAgreement
                                             + [generated] + R.token)),
            ("generated-full", program(.full21, [R.makeDiscoverableNewUser, R.makeDiscoverable, R.credentialManagement(0)])),
            ("generated-blocked", program(.blocked21, [R.token, R.retries, R.reset])),
            ("generated-token20", program(.token20, [R.makeDiscoverable, R.getAssertion, R.getNextAssertion])),
            ("generated-no-credentials", program(.tokenNoCredentials21, [R.getAssertion, R.makeDiscoverable, R.credentialManagement(0)])),
        ]
    }

    /// Programs of generated requests sent over APDUs for the card target, in every transport style.
    static func generatedCardPrograms() -> [(String, [UInt8])] {
        typealias Op = FuzzCardProgram.Operation
        typealias R = FuzzRequest
        func ctap(_ request: [UInt8], style: UInt8 = 0) -> [UInt8] { [Op.ctapGenerated.code, style] + request }
        let select = [Op.select.code, 0]
        let styles: [(String, UInt8)] = [("short", 0x00), ("p1-80", 0x01), ("extended", 0x02), ("chained-16", 0x10),
                                          ("le-10", 0x60), ("no-le", 0x20), ("cancel", 0x81)]
        var programs = styles.map { name, style in
            ("generated-\(name)", [UInt8(FuzzStartState.blank21.rawValue)] + select + ctap(R.setPIN, style: style)
                + ctap(R.token, style: style) + ctap(R.makeDiscoverable, style: style) + ctap(R.token, style: style)
                + ctap(R.getAssertion, style: style))
        }
        // Busy-first front, realistic timing, 10 ms per APDU: 9100 polls.
        programs.append(("generated-busy-realistic", [0x10 | 0x20 | 0x80] + select + ctap(R.getInfo, style: 0x01)
                         + ctap(R.makeCredential, style: 0x01) + [Op.getResponse.code, 1, Op.getResponse.code, 2]))
        programs.append(("generated-token-management", [UInt8(FuzzStartState.token21.rawValue)] + select
                         + (0..<7).flatMap { ctap(R.credentialManagement(UInt8($0))) }))
        programs.append(("generated-failed-writes", [UInt8(FuzzStartState.populated21.rawValue)] + select + [Op.failNextWrite.code]
                         + ctap(R.token) + ctap(R.token) + [Op.failNextWrite.code] + ctap(R.makeDiscoverable)))
        // U2F: REGISTER, AUTHENTICATE with its key handle (enforce, check-only), VERSION, then
        // AUTHENTICATE with a CTAP2 credential ID (variant, challenge, application, handle, control).
        programs.append(("generated-u2f", [UInt8(FuzzStartState.blank20.rawValue)] + select
                         + [Op.u2f.code, 0, 0, 0, Op.u2f.code, 1, 0, 0, 0, 0, Op.u2f.code, 1, 0, 0, 0, 1, Op.u2f.code, 2, 0, 0]
                         + ctap(R.makeCredential) + [Op.u2f.code, 1, 0, 0, 1, 0]))
        programs.append(("generated-u2f-registered", [UInt8(FuzzStartState.u2fRegistered20.rawValue)] + select
                         + [Op.u2f.code, 1, 1, 0, 0, 0, Op.u2f.code, 1, 1, 0, 0, 2]))
        programs.append(("generated-power-and-clock", [UInt8(FuzzStartState.pendingAssertion21.rawValue)] + select
                         + [Op.clock.code, 40] + ctap(R.getNextAssertion) + [Op.powerCycle.code] + select + ctap(R.reset)))
        programs.append(("generated-full", [UInt8(FuzzStartState.full21.rawValue)] + select + ctap(R.makeDiscoverableNewUser)))
        return programs
    }

    // MARK: - Other sources

    /// The transcript a card-target input gives: its APDUs and the card's answers.
    static func transcript(of input: [UInt8], profile: CardProfile) -> String {
        var transcript = Transcript()
        transcript.headers = [.init("format", "1"), .init("profile", profile.name), .init("image", "blank")]
        var card = cardStart(selector: input[0]).card
        var reader = FuzzInput(input.dropFirst())
        while !reader.isEmpty {
            switch FuzzCardProgram.Operation(reader.byte()) {
            case .powerCycle:
                transcript.entries.append(.event(.reset))
                card.powerCycle()
            default:
                let apdu = reader.piece()
                transcript.entries.append(.exchange(command: apdu, response: card.transmit(apdu).response, note: nil))
            }
        }
        return transcript.text
    }

    /// Recorded transcripts: their text as transcript seeds, their command APDUs as card inputs.
    private func recordedTranscripts(_ seeds: inout [(target: String, name: String, bytes: [UInt8])]) throws -> [(String, [UInt8])] {
        let folder = repository + "/Fixtures/transcripts"
        var inputs: [(String, [UInt8])] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder))?.sorted() ?? [] where name.hasSuffix(".transcript") {
            let text = try String(contentsOfFile: folder + "/" + name, encoding: .utf8)
            let stem = String(name.dropLast(".transcript".count))
            seeds.append(("transcript", "recorded-" + stem, Array(text.utf8)))
            guard let parsed = try? Transcript.parse(text) else { continue }
            let baseline: FuzzBaseline = parsed.header("profile") == "arculus-fido2" ? .blank20 : .blank21
            var program: [UInt8] = []
            for entry in parsed.entries {
                switch entry {
                case .exchange(let command, _, _): program += Self.rawAPDU(command)
                case .event(let event) where event != .powerOn: program += Self.rawAPDU([])
                default: break
                }
            }
            let busy: UInt8 = parsed.header("front")?.hasPrefix("busy-first") == true ? 0x10 : 0
            inputs.append(("transcript-" + stem, [UInt8(baseline.rawValue) | busy] + program))
        }
        return inputs
    }

    /// RFC 8949 Appendix A: the well-formed items (the decoder rejects the ones CTAP2 forbids).
    private func rfc8949Vectors() throws -> [(String, [UInt8])] {
        guard let data = FileManager.default.contents(atPath: repository + "/Fixtures/vectors/rfc8949-appendix-a.json"),
              let list = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else { return [] }
        return list.enumerated().compactMap { index, vector in
            (vector["hex"] as? String).flatMap { [UInt8](hex: $0) }.map { ("rfc8949-\(index)", $0) }
        }
    }

    /// vpcd: what the driver sends — power on, a get-ATR poll, the program's APDUs (a power cycle
    /// as a reset), power off — framed, after the target's control byte.
    static func vpcdStreams(_ inputs: ArraySlice<(String, [UInt8])>) -> [(String, [UInt8])] {
        inputs.map { name, input in
            var messages: [[UInt8]] = [[0x01], [0x04]]
            var reader = FuzzInput(input.dropFirst())
            while !reader.isEmpty {
                switch FuzzCardProgram.Operation(reader.byte()) {
                case .powerCycle: messages.append([0x02])
                default: messages.append(reader.piece())
                }
            }
            messages.append([0x00])
            return (name, [0x03 | (input[0] & 0x0F) << 4] + LengthPrefixedPieces.encode(messages))
        }
    }

    /// image: each baseline as a fresh image, and an image with journal records after it; each as
    /// it is and as the records of a checksum-mode input; the image with a journal also in the
    /// older format version 2 (records without their second length and end mark).
    private func images() throws -> [(String, [UInt8])] {
        var images = FuzzBaseline.allCases.map { ("baseline-\($0)", CardImageFormat.encode(FuzzBaselines.shared.start($0).card.state)) }
        let withJournal = try imageWithJournal()
        images.append(("with-journal", withJournal))
        let pieces = LengthPrefixedPieces.encode(checksumModePieces(of: withJournal))
        let version2 = [(String, [UInt8])]([("with-journal-v2", [0x00] + imageWithChecksums(pieces[...], rawTail: false, version: 2)),
                                             ("with-journal-v2-records", [0x05] + pieces)])
        return images.flatMap { name, image in
            [(name, [0x00] + image), (name + "-records", [0x01] + LengthPrefixedPieces.encode(checksumModePieces(of: image)))]
        } + version2
    }

    /// A real image file after a few commands: snapshot plus journal records.
    private func imageWithJournal() throws -> [UInt8] {
        let path = NSTemporaryDirectory() + "arculus-fuzz-seed-\(getpid()).img"
        defer { unlink(path) }
        do {
            let card = try VirtualCard(imageAt: path, profile: .arculusFIDO21, entropy: .seeded(fuzzSeed))
            let platform = PlatformClient(send: card.ctap2)
            _ = try platform.setPIN(fuzzPIN)
            let token = try platform.token(fuzzPIN, protocol: 2, permissions: 0x07).get()
            _ = platform.call(CTAPByte.makeCredential, PlatformClient.makeCredentialRequest(userId: [9], rk: true, token: token))
            _ = platform.call(CTAPByte.getAssertion, PlatformClient.getAssertionRequest())
        }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func write(_ target: String, _ name: String, _ bytes: [UInt8]) throws {
        let folder = directory + "/" + target
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
    }
}
