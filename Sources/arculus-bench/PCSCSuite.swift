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
/// `arculus-card serve` and to the minimal responder on the same vpcd slot, taking turns (one
/// round of each per turn, so both see the same machine load), and serve's start-up time to
/// card-present as pcscd reports it.
struct PCSCSuite {
    let slot: Int
    /// vpcd's port for the slot, when it is not 35963 + slot.
    var portOverride: Int? = nil
    let plan: RoundPlan
    let serveBinary: String
    let logPath: String
    let progress: (String) -> Void

    /// The served card's profile: the default one with an ATR of this run's own.
    var profilePath: String { (logPath as NSString).deletingLastPathComponent + "/bench-profile.json" }
    /// The ATRs the served card and the responder show in this run (set by `run()`).
    var serveATR: [UInt8] = []
    var responderATR: [UInt8] = []

    var reader: String { "Virtual PCD 00 " + (slot < 16 ? "0" : "") + String(slot, radix: 16, uppercase: true) }
    var port: Int { portOverride ?? 35963 + slot }

    struct Results {
        /// Seconds per round trip, per round.
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
        var reader = ""
    }

    /// The results, or why the rows were skipped.
    mutating func run() -> Result<Results, BenchError> {
        let context: PCSCContext
        do {
            context = try PCSCContext()
            let readers = try context.readers()
            guard readers.contains(reader) else {
                return .failure(BenchError("pcscd has no reader '\(reader)' (readers: \(readers.isEmpty ? "none" : readers.joined(separator: ", "))); is vsmartcard-vpcd installed?"))
            }
        } catch {
            return .failure(BenchError("pcscd is not reachable: \(error)"))
        }
        guard access(serveBinary, X_OK) == 0 else {
            return .failure(BenchError("no arculus-card binary at \(serveBinary) (build it in release: swift build -c release)"))
        }
        do {
            guard try waitEmpty(context, seconds: 3) else {
                return .failure(BenchError("'\(reader)' already holds a card: another process is connected to vpcd slot \(slot) (port \(port)); stop it or pass --slot N"))
            }
            // The slot may be shared (other developers' tests use it too): each process this
            // suite starts shows an ATR of its own, so a card that appears is known to be ours,
            // and every connection is exclusive, so nobody resets or reselects it mid-round.
            serveATR = Self.uniqueATR()
            responderATR = Self.uniqueATR()
            var profile = BenchCard.profile
            profile.name = "arculus-bench"
            profile.atr = serveATR.hexString.uppercased()
            guard FileManager.default.createFile(atPath: profilePath, contents: profile.jsonData()) else {
                return .failure(BenchError("cannot write \(profilePath)"))
            }
            var results = Results()
            results.reader = reader
            var answers: [[UInt8]: [UInt8]] = [:]
            var getAssertionAPDU: [UInt8] = []
            for round in 0..<plan.rounds {
                progress("  round \(round + 1)/\(plan.rounds): arculus-card serve")
                try visitCard(context, &results, answers: &answers, getAssertionAPDU: &getAssertionAPDU)
                progress("  round \(round + 1)/\(plan.rounds): minimal responder")
                try visitResponder(context, &results, answers: answers, getAssertionAPDU: getAssertionAPDU)
            }
            return .success(results)
        } catch let error as BenchError {
            return .failure(error)
        } catch {
            return .failure(BenchError("\(error)"))
        }
    }

    // MARK: - Turns

    private func visitCard(_ context: PCSCContext, _ results: inout Results, answers: inout [[UInt8]: [UInt8]],
                           getAssertionAPDU: inout [UInt8]) throws {
        Self.randomPhase()
        let start = monotonicNanoseconds()
        let endpoint = portOverride.map { ["--vpcd", "127.0.0.1:\($0)"] } ?? ["--slot", String(slot)]
        let serve = try ChildProcess(path: serveBinary, arguments: ["serve", "--profile", profilePath] + endpoint,
                                     logPath: logPath)
        defer { serve.stop() }
        if try waitPresent(context, process: serve, atr: serveATR) {
            results.serveStart.append(Double(monotonicNanoseconds() - start) / 1e9)
        } else {
            results.contendedStarts += 1
        }

        let card = try connect(context)
        let exchange = ISO7816Exchange(card)
        let selected = try exchange.transmitFollowingResponseChain(Platform.select)
        guard selected.suffix(2) == [0x90, 0x00] else { throw BenchError("SELECT through pcscd answered \(selected.hexString)") }
        // A fresh in-memory card each turn: make its credential (makeCredential's answer is
        // longer than one short APDU, so GET RESPONSE follows).
        let made = try exchange.transmitFollowingResponseChain(try Platform.nfcctapMessage(
            Platform.makeCredential(clientDataHash: SecureRandom.bytes(32), userId: SecureRandom.bytes(16), discoverable: false)))
        let body = try Platform.body(of: Array(made.dropLast(2)), "makeCredential through pcscd")
        guard let authData = body[int: 0x02]?.bytesValue, authData.count > 55 else { throw BenchError("no authData") }
        let idLength = Int(authData[53]) << 8 | Int(authData[54])
        let credentialId = Array(authData[55..<(55 + idLength)])
        let getAssertion = try Platform.nfcctapMessage(
            Platform.getAssertion(clientDataHash: SecureRandom.bytes(32), credentialId: credentialId))
        let getInfo = try Platform.nfcctapMessage(Platform.getInfo)

        if answers.isEmpty {
            // What the responder will answer: the card's own answers, byte for byte as long.
            let info = try card.transmit(getInfo)
            let assertion = try card.transmit(getAssertion)
            for (name, answer) in [("getInfo", info), ("getAssertion", assertion)] where answer.suffix(2) != [0x90, 0x00] {
                throw BenchError("\(name) through pcscd answered SW \(answer.suffix(2).hexString) (a 61xx chain is not benchmarked)")
            }
            answers[Platform.select] = selected
            answers[getInfo] = info
            getAssertionAPDU = getAssertion
            answers[getAssertion] = assertion
            results.getInfoBytes = info.count
            results.getAssertionBytes = assertion.count
        }
        results.cardGetInfo.append(try roundTrips(card, getInfo))
        results.cardGetAssertion.append(try roundTrips(card, getAssertion))
        try? card.disconnect()
        serve.stop()
        guard try waitGone(context, atr: serveATR, seconds: 5) else { throw BenchError("the card stayed on '\(reader)' after serve stopped") }
    }

    private func visitResponder(_ context: PCSCContext, _ results: inout Results, answers: [[UInt8]: [UInt8]],
                                getAssertionAPDU: [UInt8]) throws {
        var arguments = ["--responder", String(port), "--atr", responderATR.hexString]
        for (command, response) in answers { arguments += ["--answer", "\(command.hexString)=\(response.hexString)"] }
        Self.randomPhase()
        let start = monotonicNanoseconds()
        let responder = try ChildProcess(path: ChildProcess.currentExecutable, arguments: arguments, logPath: logPath)
        defer { responder.stop() }
        if try waitPresent(context, process: responder, atr: responderATR) {
            results.responderStart.append(Double(monotonicNanoseconds() - start) / 1e9)
        } else {
            results.contendedStarts += 1
        }

        let card = try connect(context)
        let selected = try card.transmit(Platform.select)
        guard selected.suffix(2) == [0x90, 0x00] else { throw BenchError("responder SELECT answered \(selected.hexString)") }
        results.responderGetInfo.append(try roundTrips(card, try Platform.nfcctapMessage(Platform.getInfo)))
        results.responderGetAssertion.append(try roundTrips(card, getAssertionAPDU))
        try? card.disconnect()
        responder.stop()
        guard try waitGone(context, atr: responderATR, seconds: 5) else { throw BenchError("the responder stayed on '\(reader)' after it stopped") }
    }

    /// One round: `apdu` again and again for the round's wall time; the median round trip in
    /// seconds (the median, not the mean, so that the odd round trip during which another
    /// process had the CPU does not count more than once).
    private func roundTrips(_ card: PCSCCard, _ apdu: [UInt8]) throws -> Double {
        _ = try card.transmit(apdu)
        var samples: [Double] = []
        let budget = UInt64(plan.seconds * 1e9)
        let start = monotonicNanoseconds()
        while samples.count < plan.minimumOperations || monotonicNanoseconds() - start < budget {
            var response: [UInt8] = []
            let elapsed = try timed { response = try card.transmit(apdu) }
            guard response.suffix(2) == [0x90, 0x00], response.first == 0x00 else {
                throw BenchError("a round trip answered \(response.hexString) instead of CTAP success + 9000")
            }
            samples.append(Double(elapsed) / 1e9)
        }
        return Samples.median(samples)
    }

    // MARK: - Reader state

    /// pcscd polls a vpcd reader for a card about every 0.4 s, and the previous card was seen
    /// gone at such a poll: starting the next process right away would always wait one whole
    /// period. A start at a random moment of the period, as a user's would be, waits half of
    /// one on average.
    private static func randomPhase() {
        usleep(UInt32.random(in: 0..<400_000))
    }

    private func connect(_ context: PCSCContext) throws -> PCSCCard {
        let deadline = monotonicNanoseconds() + 3_000_000_000
        while true {
            do {
                return try context.connect(reader: reader, shareMode: .exclusive)
            } catch {
                if monotonicNanoseconds() > deadline { throw BenchError("cannot connect to the card in '\(reader)': \(error)") }
                usleep(10_000)
            }
        }
    }

    /// Until pcscd reports the card with `atr` in the reader (`SCardGetStatusChange`); false
    /// when another process's card was there first (the wait then measured that card's stay).
    private func waitPresent(_ context: PCSCContext, process: ChildProcess, atr: [UInt8]) throws -> Bool {
        let deadline = monotonicNanoseconds() + 10_000_000_000
        var foreign: [UInt8]?
        while monotonicNanoseconds() < deadline {
            if try context.waitForCardPresent(reader: reader, timeout: .milliseconds(250)) {
                let present = try context.status(ofReaders: [reader]).first?.atr ?? []
                if present == atr { return foreign == nil }
                foreign = present
                usleep(20_000)
            }
            guard process.isRunning else { throw BenchError("\(process.commandLine) exited early (see \(logPath))") }
        }
        if let foreign {
            throw BenchError("another process's card (ATR \(foreign.hexString)) took '\(reader)' (vpcd slot \(slot), port \(port)); stop it or pass --slot N")
        }
        throw BenchError("no card appeared in '\(reader)' within 10 s of starting \(process.commandLine) (see \(logPath))")
    }

    /// A contactless-card ATR (as PC/SC part 3 builds it) whose historical bytes are "Bench"
    /// and 5 random bytes, with its check byte.
    static func uniqueATR() -> [UInt8] {
        let historical = Array("Bench".utf8) + (0..<5).map { _ in UInt8.random(in: 0x20...0x7E) }
        var atr: [UInt8] = [0x3B, 0x80 | UInt8(historical.count), 0x80, 0x01] + historical
        atr.append(atr.dropFirst().reduce(0, ^))
        return atr
    }

    /// Until the card with `atr` has left the reader (it is empty or holds another card), at
    /// most `seconds`.
    private func waitGone(_ context: PCSCContext, atr: [UInt8], seconds: Double) throws -> Bool {
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        while true {
            guard let status = try context.status(ofReaders: [reader]).first else { return true }
            if !status.isCardPresent || status.atr != atr { return true }
            if monotonicNanoseconds() > deadline { return false }
            usleep(10_000)
        }
    }

    /// Until the reader is empty, at most `seconds`; false if it still holds a card.
    private func waitEmpty(_ context: PCSCContext, seconds: Double) throws -> Bool {
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        while true {
            guard let status = try context.status(ofReaders: [reader]).first else { return false }
            if !status.isCardPresent { return true }
            if monotonicNanoseconds() > deadline { return false }
            usleep(10_000)
        }
    }
}
