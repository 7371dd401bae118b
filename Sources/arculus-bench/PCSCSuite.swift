#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArculusCard
import CardCrypto
import Foundation
import PCSC
import FIDOWire

/// The rows through pcscd + vpcd, from Swift through the PCSC module: round trips to
/// `arculus-card serve` and to the minimal responder answering the same bytes, and serve's
/// start-up time to card-present as pcscd reports it.
///
/// With a second free reader (`responderReader`) both run at once and the round trips alternate
/// between them APDU by APDU, so that each pair sees the same machine load: on a machine shared
/// with other work that load changes from one second to the next, more than the difference
/// measured. Without one they take turns on the same reader, a round each.
struct PCSCSuite {
    let reader: VPCDReader
    /// Where the responder runs at the same time; nil: it takes turns with serve on `reader`.
    let responderReader: VPCDReader?
    let plan: RoundPlan
    let serveBinary: String
    let logPath: String
    let progress: (String) -> Void

    /// The served card's profile: the default one with an ATR of this run's own.
    var profilePath: String { (logPath as NSString).deletingLastPathComponent + "/bench-profile.json" }
    /// The ATRs the served card and the responder show in this run (set by `run()`).
    var serveATR: [UInt8] = []
    var responderATR: [UInt8] = []

    struct Results {
        /// Seconds per round trip, per round (the median of the round's round trips).
        var cardGetInfo: [Double] = []
        var cardGetAssertion: [Double] = []
        var responderGetInfo: [Double] = []
        var responderGetAssertion: [Double] = []
        /// Seconds from process start to card-present, per start.
        var serveStart: [Double] = []
        var responderStart: [Double] = []
        /// Starts not counted because another process's card was in the reader meanwhile.
        var contendedStarts = 0
        var getInfoBytes = 0
        var getAssertionBytes = 0
        /// Serve's memory after each round (a near-empty card in memory).
        var serveMemory: [ProcessMemory] = []
        var reader = ""
        var responderReader: String?
    }

    /// The results, or why the rows were skipped.
    mutating func run(_ context: PCSCContext) -> Result<Results, BenchError> {
        guard access(serveBinary, X_OK) == 0 else {
            return .failure(BenchError("no arculus-card binary at \(serveBinary) (build it in release: swift build -c release)"))
        }
        do {
            for reader in [reader] + (responderReader.map { [$0] } ?? []) {
                guard try reader.waitEmpty(context, seconds: 3) else {
                    return .failure(BenchError("'\(reader.name)' already holds a card: another process is connected to vpcd port \(reader.port); stop it or pass --slot N"))
                }
            }
            // The reader may be shared (other developers' tests use it too): each process this
            // suite starts shows an ATR of its own, so a card that appears is known to be ours,
            // and every connection is exclusive, so nobody resets or reselects it mid-round.
            serveATR = VPCDReader.uniqueATR()
            responderATR = VPCDReader.uniqueATR()
            var profile = BenchCard.profile
            profile.name = "arculus-bench"
            profile.atr = serveATR.hexString.uppercased()
            guard FileManager.default.createFile(atPath: profilePath, contents: profile.jsonData()) else {
                return .failure(BenchError("cannot write \(profilePath)"))
            }
            var results = Results()
            results.reader = reader.name
            results.responderReader = responderReader?.name
            var session = Session()
            for round in 0..<plan.rounds {
                progress("  round \(round + 1)/\(plan.rounds): arculus-card serve and the minimal responder"
                         + (responderReader.map { " at once ('\(reader.name)', '\($0.name)')" } ?? ", in turn"))
                try visit(context, &results, &session)
            }
            return .success(results)
        } catch let error as BenchError {
            return .failure(error)
        } catch {
            return .failure(BenchError("\(error)"))
        }
    }

    /// This round's APDUs, and the answers of the first round's card, which the responder repeats.
    struct Session {
        var getInfo: [UInt8] = []
        var getAssertion: [UInt8] = []
        var firstAnswers: (select: [UInt8], getInfo: [UInt8], getAssertion: [UInt8])?

        /// What the responder answers this round: the first card's bytes, to this round's APDUs
        /// (each round's card is new, so its credential and its getAssertion are too).
        var answers: [[UInt8]: [UInt8]] {
            guard let first = firstAnswers else { return [:] }
            return [Platform.select: first.select, getInfo: first.getInfo, getAssertion: first.getAssertion]
        }
    }

    // MARK: - One round

    private func visit(_ context: PCSCContext, _ results: inout Results, _ session: inout Session) throws {
        let serve = try start(serveBinary, ["serve", "--profile", profilePath, "--vpcd", "127.0.0.1:\(reader.port)"],
                              on: reader, atr: serveATR, context) { results.serveStart.append($0) } contended: { results.contendedStarts += 1 }
        defer { serve.stop() }
        let card = try reader.connect(context)
        try prepare(card, &results, &session)
        if responderReader == nil {
            results.cardGetInfo.append(try Self.roundTrips(card, session.getInfo, plan: plan))
            results.cardGetAssertion.append(try Self.roundTrips(card, session.getAssertion, plan: plan))
            results.serveMemory.append(ProcessMemory(pid: serve.pid))
            try finish(card, serve, on: reader, atr: serveATR, context)
        }
        let responderOn = responderReader ?? reader
        var arguments = ["--responder", String(responderOn.port), "--atr", responderATR.hexString]
        for (command, response) in session.answers { arguments += ["--answer", "\(command.hexString)=\(response.hexString)"] }
        let responder = try start(ChildProcess.currentExecutable, arguments, on: responderOn, atr: responderATR, context) {
            results.responderStart.append($0)
        } contended: { results.contendedStarts += 1 }
        defer { responder.stop() }
        let responderCard = try responderOn.connect(context)
        let selected = try responderCard.transmit(Platform.select)
        guard selected.suffix(2) == [0x90, 0x00] else { throw BenchError("responder SELECT answered \(selected.hexString)") }
        if responderReader != nil {
            for (apdu, cardRow, responderRow) in [(session.getInfo, \Results.cardGetInfo, \Results.responderGetInfo),
                                                  (session.getAssertion, \Results.cardGetAssertion, \Results.responderGetAssertion)] {
                let (cardSeconds, responderSeconds) = try Self.pairedRoundTrips(card, responderCard, apdu, plan: plan)
                results[keyPath: cardRow].append(cardSeconds)
                results[keyPath: responderRow].append(responderSeconds)
            }
            results.serveMemory.append(ProcessMemory(pid: serve.pid))
            try finish(card, serve, on: reader, atr: serveATR, context)
        } else {
            results.responderGetInfo.append(try Self.roundTrips(responderCard, session.getInfo, plan: plan))
            results.responderGetAssertion.append(try Self.roundTrips(responderCard, session.getAssertion, plan: plan))
        }
        try finish(responderCard, responder, on: responderOn, atr: responderATR, context)
    }

    /// Starts a card process at a random moment of pcscd's poll and times it to card-present.
    func start(_ path: String, _ arguments: [String], on reader: VPCDReader, atr: [UInt8], _ context: PCSCContext,
                       started: (Double) -> Void, contended: () -> Void) throws -> ChildProcess {
        VPCDReader.randomPhase()
        let begin = monotonicNanoseconds()
        let process = try ChildProcess(path: path, arguments: arguments, logPath: logPath)
        if try reader.waitPresent(context, process: process, atr: atr, logPath: logPath) {
            started(Double(monotonicNanoseconds() - begin) / 1e9)
        } else {
            contended()
        }
        return process
    }

    func finish(_ card: PCSCCard, _ process: ChildProcess, on reader: VPCDReader, atr: [UInt8], _ context: PCSCContext) throws {
        try? card.disconnect()
        process.stop()
        guard try reader.waitGone(context, atr: atr, seconds: 5) else {
            throw BenchError("the card stayed on '\(reader.name)' after \(process.commandLine) stopped")
        }
    }

    /// SELECT and a credential on a fresh card (makeCredential's answer is longer than one short
    /// APDU, so GET RESPONSE follows); the first round also notes the APDUs and the answers.
    func prepare(_ card: PCSCCard, _ results: inout Results, _ session: inout Session) throws {
        let exchange = ISO7816Exchange(card)
        let selected = try exchange.transmitFollowingResponseChain(Platform.select)
        guard selected.suffix(2) == [0x90, 0x00] else { throw BenchError("SELECT through pcscd answered \(selected.hexString)") }
        let made = try exchange.transmitFollowingResponseChain(try Platform.nfcctapMessage(
            Platform.makeCredential(clientDataHash: SecureRandom.bytes(32), userId: SecureRandom.bytes(16), discoverable: false)))
        let body = try Platform.body(of: Array(made.dropLast(2)), "makeCredential through pcscd")
        guard let authData = body[int: 0x02]?.bytesValue, authData.count > 55 else { throw BenchError("no authData") }
        let idLength = Int(authData[53]) << 8 | Int(authData[54])
        let credentialId = Array(authData[55..<(55 + idLength)])
        session.getAssertion = try Platform.nfcctapMessage(
            Platform.getAssertion(clientDataHash: SecureRandom.bytes(32), credentialId: credentialId))
        session.getInfo = try Platform.nfcctapMessage(Platform.getInfo)
        // Every round's card is new (in memory): the responder answers the first one's bytes.
        guard session.firstAnswers == nil else { return }
        let info = try card.transmit(session.getInfo)
        let assertion = try card.transmit(session.getAssertion)
        for (name, answer) in [("getInfo", info), ("getAssertion", assertion)] where answer.suffix(2) != [0x90, 0x00] {
            throw BenchError("\(name) through pcscd answered SW \(answer.suffix(2).hexString) (a 61xx chain is not benchmarked)")
        }
        session.firstAnswers = (selected, info, assertion)
        results.getInfoBytes = info.count
        results.getAssertionBytes = assertion.count
    }

    // MARK: - Round trips

    /// One round: `apdu` again and again for the round's wall time; the median round trip in
    /// seconds (the median, not the mean, so that the odd round trip during which another
    /// process had the CPU does not count more than once).
    static func roundTrips(_ card: PCSCCard, _ apdu: [UInt8], plan: RoundPlan) throws -> Double {
        _ = try card.transmit(apdu)
        var samples: [Double] = []
        let budget = UInt64(plan.seconds * 1e9)
        let start = monotonicNanoseconds()
        while samples.count < plan.minimumOperations || monotonicNanoseconds() - start < budget {
            samples.append(try timedRoundTrip(card, apdu))
        }
        return Samples.median(samples)
    }

    /// One round of round trips alternating between the two cards; each one's median.
    static func pairedRoundTrips(_ first: PCSCCard, _ second: PCSCCard, _ apdu: [UInt8], plan: RoundPlan) throws -> (Double, Double) {
        _ = try first.transmit(apdu)
        _ = try second.transmit(apdu)
        var samples: ([Double], [Double]) = ([], [])
        let budget = UInt64(2 * plan.seconds * 1e9)
        let start = monotonicNanoseconds()
        while samples.0.count < plan.minimumOperations || monotonicNanoseconds() - start < budget {
            samples.0.append(try timedRoundTrip(first, apdu))
            samples.1.append(try timedRoundTrip(second, apdu))
        }
        return (Samples.median(samples.0), Samples.median(samples.1))
    }

    /// One round trip that must answer CTAP success + 9000, in seconds.
    static func timedRoundTrip(_ card: PCSCCard, _ apdu: [UInt8]) throws -> Double {
        var response: [UInt8] = []
        let elapsed = try timed { response = try card.transmit(apdu) }
        guard response.suffix(2) == [0x90, 0x00], response.first == 0x00 else {
            throw BenchError("a round trip answered \(response.hexString) instead of CTAP success + 9000")
        }
        return Double(elapsed) / 1e9
    }
}
