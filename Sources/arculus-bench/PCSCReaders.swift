import Foundation
import PCSC
import VirtualReader

/// A vpcd reader the pcscd rows use: its name and the port its card connects to.
struct VPCDReader: Equatable {
    let name: String
    let port: Int

    /// The vpcd readers pcscd lists, in port order: named from pcscd's configuration
    /// (`/etc/reader.conf.d`, as `serve` names them), or Debian's two when it names none.
    static func available(in context: PCSCContext) throws -> [VPCDReader] {
        var configured = VPCDReaderConfiguration.load().readers.map { VPCDReader(name: $0.name, port: Int($0.port)) }
        if configured.isEmpty {
            configured = [VPCDReader(name: "Virtual PCD 00 00", port: 35963), VPCDReader(name: "Virtual PCD 00 01", port: 35964)]
        }
        let listed = Set(try context.readers())
        return configured.filter { listed.contains($0.name) }
    }

    /// The reader of vpcd slot `slot` (port 35963 + slot, or `port` when given).
    static func slot(_ slot: Int, port: Int?, among readers: [VPCDReader]) -> VPCDReader {
        let port = port ?? 35963 + slot
        return readers.first { $0.port == port }
            ?? VPCDReader(name: "Virtual PCD 00 " + (slot < 16 ? "0" : "") + String(slot, radix: 16, uppercase: true), port: port)
    }

    // MARK: - Reader state, as pcscd reports it

    /// Until the card with `atr` is in the reader (`SCardGetStatusChange`); false when another
    /// process's card was there first (the wait then measured that card's stay).
    func waitPresent(_ context: PCSCContext, process: ChildProcess, atr: [UInt8], logPath: String) throws -> Bool {
        let deadline = monotonicNanoseconds() + 10_000_000_000
        var foreign: [UInt8]?
        while monotonicNanoseconds() < deadline {
            if try context.waitForCardPresent(reader: name, timeout: .milliseconds(250)) {
                let present = try context.status(ofReaders: [name]).first?.atr ?? []
                if present == atr { return foreign == nil }
                foreign = present
                usleep(20_000)
            }
            guard process.isRunning else { throw BenchError("\(process.commandLine) exited early (see \(logPath))") }
        }
        if let foreign {
            throw BenchError("another process's card (ATR \(foreign.hexString)) took '\(name)' (port \(port)); stop it or pass --slot N")
        }
        throw BenchError("no card appeared in '\(name)' within 10 s of starting \(process.commandLine) (see \(logPath))")
    }

    /// Until the card with `atr` has left the reader (it is empty or holds another card), at
    /// most `seconds`.
    func waitGone(_ context: PCSCContext, atr: [UInt8], seconds: Double) throws -> Bool {
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        while true {
            guard let status = try context.status(ofReaders: [name]).first else { return true }
            if !status.isCardPresent || status.atr != atr { return true }
            if monotonicNanoseconds() > deadline { return false }
            usleep(10_000)
        }
    }

    /// Until the reader is empty, at most `seconds`; false if it still holds a card.
    func waitEmpty(_ context: PCSCContext, seconds: Double) throws -> Bool {
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        while true {
            guard let status = try context.status(ofReaders: [name]).first else { return false }
            if !status.isCardPresent { return true }
            if monotonicNanoseconds() > deadline { return false }
            usleep(10_000)
        }
    }

    /// An exclusive connection to the card, retried for up to 3 s while pcscd catches up.
    func connect(_ context: PCSCContext) throws -> PCSCCard {
        let deadline = monotonicNanoseconds() + 3_000_000_000
        while true {
            do {
                return try context.connect(reader: name, shareMode: .exclusive)
            } catch {
                if monotonicNanoseconds() > deadline { throw BenchError("cannot connect to the card in '\(name)': \(error)") }
                usleep(10_000)
            }
        }
    }

    /// pcscd polls a vpcd reader for a card about every 0.4 s, and the previous card was seen
    /// gone at such a poll: starting the next process right away would always wait one whole
    /// period. A start at a random moment of the period, as a user's would be, waits half of
    /// one on average.
    static func randomPhase() {
        usleep(UInt32.random(in: 0..<400_000))
    }

    /// A contactless-card ATR (as PC/SC part 3 builds it) whose historical bytes are "Bench"
    /// and 5 random bytes, with its check byte: a card that appears is known to be ours.
    static func uniqueATR() -> [UInt8] {
        let historical = Array("Bench".utf8) + (0..<5).map { _ in UInt8.random(in: 0x20...0x7E) }
        var atr: [UInt8] = [0x3B, 0x80 | UInt8(historical.count), 0x80, 0x01] + historical
        atr.append(atr.dropFirst().reduce(0, ^))
        return atr
    }
}
