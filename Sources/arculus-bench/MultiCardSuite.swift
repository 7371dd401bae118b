#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import CardCrypto
import PCSC
import POSIXSupport
import Synchronization

/// Several cards busy at once through pcscd: the aggregate rate of getAssertion round trips
/// with 1, 2 and 4 cards, each driven by a client thread of its own (its own PC/SC context and
/// exclusive connection), for the two ways to have several cards: all in one `serve --cards N`,
/// and one `serve` per card. Also what they cost in memory.
struct MultiCardSuite {
    /// The free readers, on consecutive ports (at least two).
    let readers: [VPCDReader]
    let plan: RoundPlan
    let serveBinary: String
    let logPath: String
    let profilePath: String
    let atr: [UInt8]
    let progress: (String) -> Void

    enum Design: String, CaseIterable {
        case oneProcess = "in one serve (serve --cards N)"
        case processPerCard = "one serve per card"
    }

    struct Results {
        /// The numbers of busy cards measured: 1, 2 and (with four readers) 4.
        var counts: [Int] = []
        /// Aggregate round trips per second, per round, by design and number of busy cards.
        var rates: [Design: [Int: [Double]]] = [:]
        /// The serve of all the cards, after its rounds.
        var oneProcessMemory = ProcessMemory(residentKiB: 0, privateKiB: 0)
        /// The serves of one card each, after their rounds.
        var perCardMemory: [ProcessMemory] = []
    }

    func run() throws -> Results {
        var results = Results()
        results.counts = [1, 2, 4].filter { $0 <= readers.count }
        let cardCount = results.counts.last ?? 1
        for design in Design.allCases {
            progress("  \(cardCount) cards \(design.rawValue)")
            var processes: [ChildProcess] = []
            defer { for process in processes { process.stop() } }
            let arguments = ["serve", "--profile", profilePath, "--no-control"]
            switch design {
            case .oneProcess:
                processes = [try ChildProcess(path: serveBinary, arguments: arguments + [
                    "--cards", String(cardCount), "--vpcd", "127.0.0.1:\(readers[0].port)"], logPath: logPath)]
            case .processPerCard:
                processes = try readers.prefix(cardCount).map {
                    try ChildProcess(path: serveBinary, arguments: arguments + ["--vpcd", "127.0.0.1:\($0.port)"], logPath: logPath)
                }
            }
            let clients = try readers.prefix(cardCount).enumerated().map { index, reader in
                try Client(reader, process: processes[design == .oneProcess ? 0 : index], atr: atr, logPath: logPath)
            }
            for _ in 0..<plan.rounds {
                for count in results.counts {
                    results.rates[design, default: [:]][count, default: []].append(try Self.busy(Array(clients.prefix(count)), plan: plan))
                }
            }
            switch design {
            case .oneProcess: results.oneProcessMemory = ProcessMemory(pid: processes[0].pid)
            case .processPerCard: results.perCardMemory = processes.map { ProcessMemory(pid: $0.pid) }
            }
            for client in clients { client.disconnect() }
            for process in processes { process.stop() }
            let context = try PCSCContext()
            for reader in readers.prefix(cardCount) {
                guard try reader.waitGone(context, atr: atr, seconds: 5) else {
                    throw BenchError("the card stayed on '\(reader.name)' after serve stopped")
                }
            }
        }
        return results
    }

    /// All `clients` doing round trips at once for the round's time: the round trips per second
    /// they did together.
    static func busy(_ clients: [Client], plan: RoundPlan) throws -> Double {
        let counts = Mutex<[Int]>(Array(repeating: 0, count: clients.count))
        let failure = Mutex<String?>(nil)
        let deadline = monotonicNanoseconds() + UInt64(plan.seconds * 1e9)
        let start = monotonicNanoseconds()
        var threads: [POSIXThread] = []
        for (index, client) in clients.enumerated() {
            threads.append(try POSIXThread.start {
                var done = 0
                do {
                    while done < plan.minimumOperations || monotonicNanoseconds() < deadline {
                        _ = try PCSCSuite.timedRoundTrip(client.card, client.apdu)
                        done += 1
                    }
                } catch {
                    failure.withLock { $0 = "\(client.reader.name): \(error)" }
                }
                counts.withLock { $0[index] = done }
            })
        }
        for thread in threads { thread.join() }
        let elapsed = Double(monotonicNanoseconds() - start) / 1e9
        if let message = failure.withLock({ $0 }) { throw BenchError("a busy card failed: \(message)") }
        return Double(counts.withLock { $0.reduce(0, +) }) / elapsed
    }

    /// One card's client: its own context and exclusive connection, a credential on the card and
    /// the getAssertion APDU for it. Used by one thread at a time.
    final class Client: @unchecked Sendable {
        let reader: VPCDReader
        let context: PCSCContext
        let card: PCSCCard
        let apdu: [UInt8]

        init(_ reader: VPCDReader, process: ChildProcess, atr: [UInt8], logPath: String) throws {
            self.reader = reader
            context = try PCSCContext()
            _ = try reader.waitPresent(context, process: process, atr: atr, logPath: logPath)
            card = try reader.connect(context)
            let exchange = ISO7816Exchange(card)
            guard try exchange.transmitFollowingResponseChain(Platform.select).suffix(2) == [0x90, 0x00] else {
                throw BenchError("SELECT on '\(reader.name)' failed")
            }
            let made = try exchange.transmitFollowingResponseChain(try Platform.nfcctapMessage(
                Platform.makeCredential(clientDataHash: SecureRandom.bytes(32), userId: SecureRandom.bytes(16), discoverable: false)))
            let body = try Platform.body(of: Array(made.dropLast(2)), "makeCredential on '\(reader.name)'")
            guard let authData = body[int: 0x02]?.bytesValue, authData.count > 55 else { throw BenchError("no authData") }
            let idLength = Int(authData[53]) << 8 | Int(authData[54])
            apdu = try Platform.nfcctapMessage(Platform.getAssertion(clientDataHash: SecureRandom.bytes(32),
                                                                     credentialId: Array(authData[55..<(55 + idLength)])))
        }

        func disconnect() {
            try? card.disconnect()
        }
    }
}
