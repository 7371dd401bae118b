import FIDOWire
import Foundation
import PCSC

/// What the pcsc actions share: choosing the reader (`--reader`, `--wait`), reading APDUs and
/// sending them.
extension PCSCCommand {
    /// Connects to the reader `--reader` names (or the first with a card), waiting `--wait`.
    static func connect(_ options: CommandLineOptions) throws -> (reader: String, card: PCSCCard) {
        let wait = try options.duration("--wait") ?? .zero
        let context = try PCSCContext()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: wait)
        let reader: String
        if let requested = options.value("--reader") {
            reader = try resolve(requested, among: try context.readers())
            guard try context.waitForCardPresent(reader: reader, timeout: clock.now.duration(to: deadline)) else {
                throw PCSCCommandError("no card in \(reader)")
            }
        } else {
            var found: String?
            var readers: [String] = []
            repeat {
                readers = try context.readers()
                found = try context.status(ofReaders: readers).first { $0.isCardPresent }?.reader
                if found == nil, clock.now < deadline { Thread.sleep(forTimeInterval: 0.1) }
            } while found == nil && clock.now < deadline
            guard let found else {
                throw PCSCCommandError(readers.isEmpty
                    ? "no PC/SC readers (is pcscd running, with a reader or vsmartcard-vpcd?)"
                    : "no card in any reader (\(readers.joined(separator: ", "))); use --reader and --wait")
            }
            reader = found
        }
        return (reader, try connect(to: reader, in: context, until: max(deadline, clock.now.advanced(by: .seconds(2)))))
    }

    /// Connects, waiting out what pcscd answers while it is still powering a card it has just
    /// seen arrive (or another application holds it for a moment): unpowered, reset, shared.
    private static func connect(to reader: String, in context: PCSCContext, until deadline: ContinuousClock.Instant) throws -> PCSCCard {
        let passing: [PCSCError.Code] = [.unpoweredCard, .resetCard, .sharingViolation]
        while true {
            do {
                return try context.connect(reader: reader)
            } catch {
                guard passing.contains(error.code), ContinuousClock.now < deadline else { throw error }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
    }

    /// `requested` as a full reader name, or the one reader whose name contains it.
    private static func resolve(_ requested: String, among readers: [String]) throws -> String {
        if readers.contains(requested) { return requested }
        let matching = readers.filter { $0.contains(requested) }
        guard matching.count == 1 else {
            let known = readers.isEmpty ? "there are no readers" : "readers: \(readers.joined(separator: ", "))"
            throw UsageError(matching.isEmpty ? "no reader matches '\(requested)' (\(known))"
                                              : "'\(requested)' matches several readers (\(matching.joined(separator: ", ")))")
        }
        return matching[0]
    }

    /// Hex with optional spaces/tabs; at least the 4 header bytes.
    static func parseAPDU(_ text: String) throws -> [UInt8] {
        let digits = text.filter { $0 != " " && $0 != "\t" && $0 != ":" }
        guard let bytes = [UInt8](hex: digits) else {
            throw UsageError("'\(text)' is not an APDU in hex (e.g. 00A4040008A0000006472F000100)")
        }
        guard bytes.count >= 4 else {
            throw UsageError("'\(text)' is not an APDU: it needs at least CLA INS P1 P2 (4 bytes)")
        }
        return bytes
    }

    /// Sends `apdu` and returns the response; with `followingChain`, the whole response after
    /// 61xx / 6Cxx. `onWire` sees every APDU that went to the card and its answer.
    static func exchange(_ apdu: [UInt8], with card: PCSCCard, followingChain: Bool,
                         onWire: ([UInt8], [UInt8]) -> Void) throws -> [UInt8] {
        guard followingChain else {
            let response = try card.transmit(apdu)
            onWire(apdu, response)
            return response
        }
        return try ISO7816Exchange(card).transmitFollowingResponseChain(apdu, observe: onWire)
    }
}

/// A reader without a card, or a card that does not answer as a pcsc action needs.
struct PCSCCommandError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
