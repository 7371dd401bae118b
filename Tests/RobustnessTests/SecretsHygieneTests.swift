import ArculusCard
import CardCrypto
import Foundation
import Testing
import VirtualReader
import TestSupport

/// A card whose every APDU exchange also goes through the --verbose trace formatter.
final class TracedCard {
    let card: VirtualCard
    var formatter = APDUTraceFormatter()
    private(set) var trace: [String] = []

    init(_ card: VirtualCard) { self.card = card }

    func transmit(_ apdu: [UInt8]) -> [UInt8] {
        let response = card.transmit(apdu)
        trace += formatter.lines(command: apdu, response: response)
        return response
    }

    /// NFCCTAP_MSG in chained pieces of `piece` bytes; the response fetched `le` bytes at a time.
    func ctap(_ request: [UInt8], piece: Int, le: UInt8) -> [UInt8] {
        var rest = request[...]
        while rest.count > piece {
            _ = transmit([0x90, 0x10, 0x00, 0x00, UInt8(piece)] + rest.prefix(piece))
            rest = rest.dropFirst(piece)
        }
        var response = transmit([0x80, 0x10, 0x00, 0x00, UInt8(rest.count)] + rest + [le])
        var data = Array(response.dropLast(2))
        while response.count >= 2, response[response.count - 2] == 0x61 {
            response = transmit([0x00, 0xC0, 0x00, 0x00, min(le, response[response.count - 1])])
            data += response.dropLast(2)
        }
        return data
    }

    /// The whole trace as one string of hex digits (spaces and case removed), for searching.
    var normalizedTrace: String {
        trace.joined(separator: "\n").uppercased().filter { !$0.isWhitespace }
    }
}

/// Whether `haystack` (normalized hex) contains any `window`-byte run of `secret`.
func containsAnyRun(of secret: [UInt8], window: Int, in haystack: String) -> Bool {
    guard secret.count >= window else { return haystack.contains(TestHex.string(secret, uppercase: true)) }
    for start in 0...(secret.count - window) where haystack.contains(TestHex.string(Array(secret[start..<start + window]), uppercase: true)) {
        return true
    }
    return false
}

@Suite("Secrets hygiene")
struct SecretsHygieneTests {
    /// Finding (secrets review): the trace printed the hex of every chained piece of an
    /// NFCCTAP_MSG and of every 61xx/GET RESPONSE piece of its answer, so a client that chains
    /// in short pieces, or asks for short responses, had its encrypted PIN, PIN hash,
    /// pinUvAuthParam and the encrypted pinUvAuthToken printed in full, piece by piece — though
    /// the formatter promises to show PIN/UV material only by its first bytes.
    @Test("the --verbose trace never shows PIN/UV material, however the client chains",
          arguments: [(piece: 32, le: UInt8(16)), (piece: 64, le: UInt8(48)), (piece: 250, le: UInt8(0))])
    func traceHidesPINMaterial(_ chaining: (piece: Int, le: UInt8)) throws {
        let traced = TracedCard(try makeCard())
        _ = traced.transmit(APDU.select)
        let platform = PlatformClient(send: { traced.ctap($0, piece: chaining.piece, le: chaining.le) })
        var secrets: [(String, [UInt8])] = []

        for pinProtocol in [1, 2] {
            let set = try platform.setPINRequest("1234", protocol: pinProtocol)
            if pinProtocol == 1 {
                #expect(platform.call(CTAPByte.clientPIN, set).isOK)
                secrets += [("newPinEnc (setPIN)", set[int: 5]?.bytesValue ?? []), ("pinUvAuthParam (setPIN)", set[int: 4]?.bytesValue ?? [])]
            }
            let change = try platform.changePINRequest(from: pinProtocol == 1 ? "1234" : "5678", to: pinProtocol == 1 ? "5678" : "1234",
                                                       protocol: pinProtocol)
            #expect(platform.call(CTAPByte.clientPIN, change).isOK)
            secrets += [("newPinEnc (changePIN)", change[int: 5]?.bytesValue ?? []),
                        ("pinHashEnc (changePIN)", change[int: 6]?.bytesValue ?? []),
                        ("pinUvAuthParam (changePIN)", change[int: 4]?.bytesValue ?? [])]
            let (request, session) = try platform.tokenRequest(pinProtocol == 1 ? "5678" : "1234", protocol: pinProtocol)
            let reply = platform.call(CTAPByte.clientPIN, request)
            let encryptedToken = try #require(reply.map?[int: 2]?.bytesValue)
            let token = try session.decrypt(encryptedToken)
            secrets += [("pinHashEnc (getPinToken)", request[int: 6]?.bytesValue ?? []),
                        ("encrypted pinUvAuthToken", encryptedToken), ("pinUvAuthToken", token)]
            let auth = PlatformToken(pinProtocol: session.pinProtocol, value: token)
            let made = platform.call(CTAPByte.makeCredential, PlatformClient.makeCredentialRequest(userId: [1], rk: true, token: auth))
            #expect(made.isOK)
            secrets.append(("pinUvAuthParam (makeCredential)", auth.authenticate(PlatformClient.clientDataHash("make"))))
        }
        secrets += [("PIN 1234", Array("1234".utf8)), ("PIN 5678", Array("5678".utf8)),
                    ("PIN hash", pinHash("1234"))]
        for credential in traced.card.credentials { secrets.append(("credential private key", credential.privateKey)) }
        secrets.append(("card master secret", traced.card.authenticator.state.masterSecret))

        let trace = traced.normalizedTrace
        for (name, secret) in secrets {
            #expect(!secret.isEmpty)
            #expect(!containsAnyRun(of: secret, window: 8, in: trace), "the trace shows 8 bytes in a row of the \(name)")
        }
        // The PIN as text never appears either (it never travels, but neither may a decoding of it).
        let text = traced.trace.joined(separator: "\n")
        #expect(!text.contains("\"1234\"") && !text.contains("\"5678\""))
    }

    @Test("card images are created owner-only (0600), also after compaction, with nothing beside them")
    func imagePermissions() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        func mode(_ path: String) throws -> Int {
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
        }
        let file = try CardImageFile(path: path)
        let card = try VirtualCard(profile: .arculusFIDO21, storage: file, entropy: .seeded(testSeed))
        #expect(try mode(path) == 0o600)
        file.compactionThreshold = 0
        let platform = PlatformClient(send: card.ctap2)
        for user: UInt8 in 0..<20 {
            _ = platform.call(CTAPByte.makeCredential, PlatformClient.makeCredentialRequest(userId: [user], rk: true))
        }
        #expect(try mode(path) == 0o600, "after compaction (temporary file renamed over the image)")
        #expect(try directory.contents() == ["card.img"], "no lock or temporary file beside the image")
    }

    @Test("the reader bridge's default endpoint is loopback; --slot keeps the host")
    func loopbackByDefault() {
        #expect(VPCDEndpoint.default.host == "127.0.0.1")
        #expect(VPCDEndpoint().host == "127.0.0.1")
        #expect(VPCDEndpoint.default.slot(1) == VPCDEndpoint(host: "127.0.0.1", port: 35964))
        #expect(VPCDEndpoint(parsing: "192.0.2.7:35964")?.slot(0)?.host == "192.0.2.7", "an explicit host is the only way off loopback")
        #expect(VPCDEndpoint(parsing: "[::1]:35963") == VPCDEndpoint(host: "::1", port: 35963))
    }

    /// Secrets are compared in constant time (ConstantTime.equals, CRYPTO_memcmp): PIN hashes,
    /// pinUvAuthParam, saltAuth, credential-ID tags. This scans the card's sources for `==`/`!=`
    /// between values whose names say they are such secrets, so a later change cannot slip one in.
    @Test("no == or != on PIN hashes, MACs, pinUvAuthParam or tags in the card's sources")
    func secretsComparedInConstantTime() throws {
        let root = Repository.root
        // An operand of == / != whose name says it holds a secret (enum cases, lengths and
        // flags are not secrets).
        let operand = #"([A-Za-z_][\w.]*)"#
        let comparison = try Regex(operand + #"\s*(?:==|!=)\s*"# + #"([A-Za-z_.][\w.]*)"#)
        let secretWords = ["pinhash", "pinuvauthparam", "saltauth", "hmac", "tag", "mac", "mackey", "digest",
                           "sharedsecret", "mastersecret", "signature", "token"]
        func isSecret(_ token: Substring) -> Bool {
            guard !token.hasPrefix(".") else { return false }
            let last = token.split(separator: ".").last.map { $0.lowercased() } ?? ""
            if ["count", "isempty", "rawvalue", "name", "first", "last"].contains(last) { return false }
            return secretWords.contains(last) || token.lowercased().contains("token.value") || last.hasSuffix("pinhash")
        }
        var offenders: [String] = []
        for module in ["CTAP2", "CardCrypto", "ArculusCard", "ISO7816"] {
            let folder = root.appendingPathComponent("Sources/\(module)")
            guard let files = FileManager.default.enumerator(atPath: folder.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
                for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let line = rawLine.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                    for match in line.matches(of: comparison) {
                        let left = match.output[1].substring ?? ""
                        let right = match.output[2].substring ?? ""
                        if left == "nil" || right == "nil" || left == "true" || right == "false" || right == "true" { continue }
                        if isSecret(left) || isSecret(right) {
                            offenders.append("Sources/\(module)/\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
                        }
                    }
                }
            }
        }
        #expect(offenders.isEmpty, "secrets compared with ==/!=:\n\(offenders.joined(separator: "\n"))")
    }
}
