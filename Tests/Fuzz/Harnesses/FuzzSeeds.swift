import FIDOWire
import ArculusCard
import Foundation
import Transcript

// Writes the seed corpora in Fixtures/fuzz/<target>/. Compiled into the `card` target only:
// `ARCULUS_FUZZ_WRITE_SEEDS=DIR fuzz-card` writes them into DIR and exits (fuzz.sh --seeds).
//
// The card is deterministic (fixed entropy seed) and so is the platform side here, so the
// recorded APDU sequences replay exactly in the harnesses: a seed with a setPIN, a PIN token and
// a makeCredential carries valid ECDH keys, MACs and encrypted PINs for the card it will meet.
// Sources: scripted flows below (SELECT, getInfo, makeCredential, getAssertion, clientPIN,
// credential management, reset, U2F, chained and extended APDUs, busy polling), the transcripts in
// Fixtures/transcripts/, and the RFC 8949 Appendix A vectors in Fixtures/vectors/.

@_cdecl("LLVMFuzzerInitialize")
public func fuzzCardInitialize(_ argc: UnsafeMutablePointer<Int32>?, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
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

/// A client that talks to a card in APDUs as python-fido2 does (short APDUs chained in
/// 250-byte pieces, GET RESPONSE while 61xx) and records every command APDU it sends.
final class RecordingNFCClient {
    let card: VirtualCard
    private(set) var apdus: [[UInt8]] = []
    private(set) var requests: [[UInt8]] = []

    init(card: VirtualCard) { self.card = card }

    func transmit(_ apdu: [UInt8]) -> [UInt8] {
        apdus.append(apdu)
        return card.transmit(apdu)
    }

    /// A power cycle: an empty piece in a card-target input.
    func powerCycle() {
        apdus.append([])
        requests.append([])
        card.powerCycle()
    }

    func select() { _ = transmit([0x00, 0xA4, 0x04, 0x00, 0x08] + NFCBinding.fidoAID + [0x00]) }

    /// NFCCTAP_MSG with command chaining and GET RESPONSE, as python-fido2 sends it.
    func ctap(_ request: [UInt8], extended: Bool = false) -> [UInt8] {
        requests.append(request)
        var response: [UInt8]
        if extended {
            response = transmit([0x80, 0x10, 0x00, 0x00, 0x00, UInt8(request.count >> 8), UInt8(request.count & 0xFF)] + request + [0x00, 0x00])
        } else {
            var rest = request[...]
            while rest.count > 250 {
                _ = transmit([0x90, 0x10, 0x00, 0x00, 250] + rest.prefix(250))
                rest = rest.dropFirst(250)
            }
            response = transmit([0x80, 0x10, 0x00, 0x00, UInt8(rest.count)] + rest + [0x00])
        }
        var data = Array(response.dropLast(2))
        while response.count >= 2, response[response.count - 2] == 0x61 {
            response = transmit([0x00, 0xC0, 0x00, 0x00, response[response.count - 1]])
            data += response.dropLast(2)
        }
        return data
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
        var written = 0
        var cardInputs: [(String, [UInt8])] = []
        var ctapInputs: [(String, [UInt8])] = []
        var transcripts: [(String, String)] = []
        var cborItems: [(String, [UInt8])] = []

        for flow in Self.flows {
            let baseline = flow.baseline
            let selector = UInt8(baseline.rawValue) | flow.selectorBits
            let card = try Self.card(selector: selector)
            let client = RecordingNFCClient(card: card)
            try flow.run(client)
            cardInputs.append((flow.name, [selector] + LengthPrefixedPieces.encode(client.apdus)))
            let requests = client.requests.filter { !$0.isEmpty && $0.count < 4096 }
            // The ctap2 target with and without a harness-made token and pinUvAuthParam fix-up.
            ctapInputs.append((flow.name, [UInt8(baseline.rawValue)] + LengthPrefixedPieces.encode(client.requests)))
            if baseline == .populated21 {
                ctapInputs.append((flow.name + "-token-fixup", [UInt8(baseline.rawValue) | 0x04 | 0x08 | 0x80]
                                   + LengthPrefixedPieces.encode(client.requests)))
            }
            for (index, request) in requests.enumerated() where request.count > 1 {
                cborItems.append(("\(flow.name)-\(index)", Array(request.dropFirst())))
            }
            var transcript = Transcript()
            transcript.headers = [.init("format", "1"), .init("profile", baseline.profile.name), .init("image", "blank")]
            var replay = client.apdus.makeIterator()
            let again = try Self.card(selector: selector)
            while let apdu = replay.next() {
                if apdu.isEmpty { transcript.entries.append(.event(.reset)); again.powerCycle(); continue }
                transcript.entries.append(.exchange(command: apdu, response: again.transmit(apdu), note: nil))
            }
            transcripts.append((flow.name, transcript.text))
        }

        // Recorded transcripts: their command APDUs as card inputs, their text as transcript seeds.
        let transcriptDirectory = repository + "/Fixtures/transcripts"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: transcriptDirectory))?.sorted() ?? []
        where name.hasSuffix(".transcript") {
            let text = try String(contentsOfFile: transcriptDirectory + "/" + name, encoding: .utf8)
            let stem = String(name.dropLast(".transcript".count))
            transcripts.append(("recorded-" + stem, text))
            guard let parsed = try? Transcript.parse(text) else { continue }
            let baseline: FuzzBaseline = parsed.header("profile") == "arculus-fido2" ? .blank20 : .blank21
            var pieces: [[UInt8]] = []
            for entry in parsed.entries {
                switch entry {
                case .exchange(let command, _, _): pieces.append(command)
                case .event(let event) where event != .powerOn: pieces.append([])
                default: break
                }
            }
            let busy: UInt8 = parsed.header("front")?.hasPrefix("busy-first") == true ? 0x04 | 0x10 : 0
            cardInputs.append(("transcript-" + stem, [UInt8(baseline.rawValue) | busy] + LengthPrefixedPieces.encode(pieces)))
        }

        // RFC 8949 Appendix A: the well-formed items (the decoder rejects the ones CTAP2 forbids).
        let vectors = repository + "/Fixtures/vectors/rfc8949-appendix-a.json"
        if let data = FileManager.default.contents(atPath: vectors),
           let list = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] {
            for (index, vector) in list.enumerated() {
                if let hex = vector["hex"] as? String, let bytes = [UInt8](hex: hex) {
                    cborItems.append(("rfc8949-\(index)", bytes))
                }
            }
        }

        for (name, bytes) in cardInputs { try write("card", name, bytes); written += 1 }
        for (name, bytes) in ctapInputs { try write("ctap2", name, bytes); written += 1 }
        for (name, bytes) in cborItems { try write("cbor", name, bytes); written += 1 }
        for (name, text) in transcripts { try write("transcript", name, Array(text.utf8)); written += 1 }

        // vpcd: what the driver sends: power on, get-ATR polls, the flows' APDUs, power off.
        for (name, input) in cardInputs.prefix(12) {
            var stream: [UInt8] = []
            for message in [[0x01], [0x04]] + LengthPrefixedPieces(input.dropFirst()).map({ $0.isEmpty ? [0x02] : $0 }) + [[0x00]] {
                stream += [UInt8(message.count >> 8), UInt8(message.count & 0xFF)] + message
            }
            try write("vpcd", name, [0x03 | (input[0] & 0x03 == 3 ? 0x10 : 0)] + stream)
            written += 1
        }

        // image: each baseline as a fresh image, and an image with journal records after it.
        var images = FuzzBaseline.allCases.map { ("baseline-\($0)", CardImageFormat.encode($0.state)) }
        images.append(("with-journal", try imageWithJournal()))
        for (name, image) in images {
            try write("image", name, [0x00] + image)
            try write("image", name + "-records", [0x01] + LengthPrefixedPieces.encode(checksumModePieces(of: image)))
            written += 2
        }
        return written
    }

    /// The card a card-target input with this selector meets (see FuzzCard.swift).
    static func card(selector: UInt8) throws -> VirtualCard {
        let baseline = FuzzBaseline(selector: selector)
        let card = try VirtualCard(profile: baseline.profile, storage: InMemoryStorage(state: baseline.state),
                                   frontOptions: CardFront.Options(busyFirst: selector & 0x04 != 0,
                                                                   busyPolls: Int(selector >> 4 & 0x03)),
                                   entropy: .seeded(fuzzSeed))
        var now = 0.0
        card.clock = { .seconds(now) }
        card.powerCycle()
        card.clock = { now += 1; return .seconds(now) }
        return card
    }

    /// A real image file after a few commands: snapshot plus journal records.
    private func imageWithJournal() throws -> [UInt8] {
        let path = NSTemporaryDirectory() + "arculus-fuzz-seed-\(getpid()).img"
        defer {
            unlink(path)
            unlink(path + ".lock")
        }
        do {
            let card = try VirtualCard(imageAt: path, profile: .arculusFIDO21, entropy: .seeded(fuzzSeed))
            let platform = PlatformClient(send: card.ctap2)
            _ = try platform.setPIN(fuzzPIN)
            let token = try platform.token(fuzzPIN, protocol: 2, permissions: 0x07).get()
            _ = platform.call(CTAPByte.makeCredential,
                              PlatformClient.makeCredentialRequest(userId: [9], rk: true, token: token))
            _ = platform.call(CTAPByte.getAssertion, PlatformClient.getAssertionRequest())
        }
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func write(_ target: String, _ name: String, _ bytes: [UInt8]) throws {
        let folder = directory + "/" + target
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
    }

    // MARK: - Flows

    struct Flow {
        let name: String
        let baseline: FuzzBaseline
        var selectorBits: UInt8 = 0
        let run: (RecordingNFCClient) throws -> Void
    }

    static var flows: [Flow] { [
        Flow(name: "select-getinfo", baseline: .blank21) { client in
            client.select()
            _ = client.ctap([CTAPByte.getInfo])
        },
        Flow(name: "select-getinfo-busy", baseline: .blank21, selectorBits: 0x04 | 0x20) { client in
            client.select()
            _ = client.transmit([0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00])
            _ = client.transmit([0x80, 0x11, 0x00, 0x00, 0x00])
            _ = client.transmit([0x80, 0x11, 0x00, 0x00, 0x00])
            _ = client.transmit([0x80, 0x11, 0x00, 0x00, 0x00])
            _ = client.transmit([0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00])
            _ = client.transmit([0x80, 0x11, 0x11, 0x00])
        },
        Flow(name: "setpin-token-makecredential-getassertion", baseline: .blank21) { client in
            client.select()
            let platform = PlatformClient(send: { client.ctap($0) })
            _ = platform.pinRetries()
            _ = try platform.setPIN(fuzzPIN, protocol: 2)
            let token = try platform.token(fuzzPIN, protocol: 2, permissions: 0x03, rpId: "example.com").get()
            var make = PlatformClient.makeCredentialRequest(userId: [7], userName: "alice", rk: true, token: token)
            make[int: 6] = .map(["credProtect": 2, "hmac-secret": true])
            _ = platform.call(CTAPByte.makeCredential, make)
            let token2 = try platform.token(fuzzPIN, protocol: 2, permissions: 0x02).get()
            _ = platform.call(CTAPByte.getAssertion, PlatformClient.getAssertionRequest(token: token2))
            _ = try platform.changePIN(from: fuzzPIN, to: "56789", protocol: 2)
        },
        Flow(name: "setpin-protocol1-noncredential", baseline: .blank21) { client in
            client.select()
            let platform = PlatformClient(send: { client.ctap($0) })
            _ = try platform.setPIN(fuzzPIN, protocol: 1)
            let token = try platform.token(fuzzPIN, protocol: 1).get()
            let made = platform.call(CTAPByte.makeCredential,
                                     PlatformClient.makeCredentialRequest(userId: [8], rk: false, token: token))
            let id = PlatformClient.credential(fromMakeCredential: made)?.id ?? []
            _ = platform.call(CTAPByte.getAssertion, PlatformClient.getAssertionRequest(allow: [id, [1, 2, 3]]))
            _ = platform.call(CTAPByte.selection)
        },
        Flow(name: "discoverable-getnextassertion-credmgmt", baseline: .populated21) { client in
            client.select()
            let platform = PlatformClient(send: { client.ctap($0) })
            let token = try platform.token(fuzzPIN, protocol: 2, permissions: 0x06).get()
            _ = platform.call(CTAPByte.getAssertion, PlatformClient.getAssertionRequest(token: token))
            _ = platform.call(CTAPByte.getNextAssertion)
            let cm = try platform.token(fuzzPIN, protocol: 2, permissions: 0x04).get()
            _ = platform.call(CTAPByte.credentialManagement, PlatformClient.credentialManagementRequest(1, token: cm))
            _ = platform.call(CTAPByte.credentialManagement, PlatformClient.credentialManagementRequest(2, token: cm))
            _ = platform.call(CTAPByte.credentialManagement, [.int(1): 3])
            let rpIdHash = PlatformClient.clientDataHash("example.com")
            let listed = platform.call(CTAPByte.credentialManagement,
                                       PlatformClient.credentialManagementRequest(4, [.int(1): .bytes(rpIdHash)], token: cm))
            _ = platform.call(CTAPByte.credentialManagement, [.int(1): 5])
            if let descriptor = listed.map?[int: 7] {
                let user: CBORValue = listed.map?[int: 6] ?? .map([:])
                var renamed = user.mapValue ?? CBORMap()
                renamed["name"] = "renamed"
                _ = platform.call(CTAPByte.credentialManagement, PlatformClient.credentialManagementRequest(
                    7, [.int(2): descriptor, .int(3): .map(renamed)], token: cm))
                _ = platform.call(CTAPByte.credentialManagement,
                                  PlatformClient.credentialManagementRequest(6, [.int(2): descriptor], token: cm))
            }
        },
        Flow(name: "wrong-pins-power-cycle", baseline: .populated21) { client in
            client.select()
            let platform = PlatformClient(send: { client.ctap($0) })
            for _ in 0..<3 { _ = try platform.token("0000", protocol: 1) }
            _ = platform.pinRetries()
            client.powerCycle()
            client.select()
            _ = try platform.token(fuzzPIN, protocol: 1)
        },
        Flow(name: "last-retry-blocked-reset", baseline: .lastRetry21) { client in
            client.select()
            let platform = PlatformClient(send: { client.ctap($0) })
            _ = try platform.token("9999", protocol: 2)
            _ = platform.pinRetries()
            _ = platform.call(CTAPByte.reset)
            _ = platform.pinRetries()
        },
        Flow(name: "u2f-register-authenticate", baseline: .blank20) { client in
            client.select()
            _ = client.transmit([0x00, 0x03, 0x00, 0x00])
            let challenge = PlatformClient.clientDataHash("challenge")
            let application = PlatformClient.clientDataHash("https://example.com")
            let registered = client.transmit([0x00, 0x01, 0x03, 0x00, 64] + challenge + application + [0x00])
            var handle: [UInt8] = []
            if registered.count > 67 {
                let length = Int(registered[66])
                handle = Array(registered[67..<min(registered.count, 67 + length)])
            }
            for control: UInt8 in [0x07, 0x03, 0x08] {
                _ = client.transmit([0x00, 0x02, control, 0x00, UInt8(65 + handle.count)] + challenge + application
                                    + [UInt8(handle.count)] + handle + [0x00])
            }
            _ = client.ctap([CTAPByte.getInfo])
        },
        Flow(name: "extended-and-chained", baseline: .blank21) { client in
            client.select()
            _ = client.ctap([CTAPByte.getInfo], extended: true)
            var long = PlatformClient.makeCredentialRequest(userId: Array(repeating: 0x55, count: 64),
                                                            userName: String(repeating: "n", count: 300), rk: false)
            long[int: 5] = .array((0..<4).map { .map(["id": .bytes(Array(repeating: UInt8($0), count: 81)), "type": "public-key"]) })
            _ = client.ctap(PlatformClient.request(CTAPByte.makeCredential, long))
            _ = client.ctap(PlatformClient.request(CTAPByte.makeCredential, long), extended: true)
        },
        Flow(name: "bad-apdus", baseline: .blank21) { client in
            for apdu: [UInt8] in [[0x00, 0xA4], [0x00, 0xA4, 0x04, 0x00, 0x08, 0xA0], [0xA0, 0xA4, 0x04, 0x00],
                                  [0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x00], [0x00, 0xC0, 0x00, 0x00, 0x00],
                                  [0x00, 0xA4, 0x00, 0x00, 0x02, 0x3F, 0x00]] {
                _ = client.transmit(apdu)
            }
            client.select()
            _ = client.transmit([0x90, 0x10, 0x00, 0x00, 0x02, 0x01, 0xA5])
            _ = client.transmit([0x00, 0xA4, 0x04, 0x00, 0x08] + NFCBinding.fidoAID)
            _ = client.transmit([0x80, 0x10, 0x00, 0x00, 0x03, 0x02, 0xA1, 0x01])
            _ = client.transmit([0x80, 0x11, 0x00, 0x00])
        },
    ] }
}
