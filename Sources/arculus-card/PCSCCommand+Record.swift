import FIDOWire
import Foundation
import PCSC
import POSIXSupport
import Transcript

/// `pcsc record`: APDUs to the card, written as a transcript.
extension PCSCCommand {
    static func record(_ arguments: [String]) throws -> Int32 {
        let options = try declaration.parse(arguments, action: "record")
        guard let output = options.value("--output") else { throw UsageError("record needs --output FILE") }
        var apdus = try options.positionals.map(parseAPDU)
        if let from = options.value("--from") {
            guard apdus.isEmpty else { throw UsageError("give the APDUs as arguments or with --from, not both") }
            apdus = try readAPDUs(from)
            guard !apdus.isEmpty else { throw UsageError("--from: \(from) holds no APDU (one hex APDU a line)") }
        }
        guard !apdus.isEmpty else { throw UsageError("record needs at least one APDU (arguments or --from FILE)") }
        _ = try options.profile("--profile")  // checked before the card is reached

        let (reader, card) = try connect(options)
        let profile = try recordedProfile(options, card: card, reader: reader, output: output)
        try card.reconnect(disposition: .unpower)
        try card.beginTransaction()
        defer { try? card.endTransaction() }
        var transcript = Transcript(headers: profile.reference.map { [Transcript.Header("profile", $0)] } ?? [])
        transcript.headers += [
            Transcript.Header("source", "pcsc reader \(reader)"),
            Transcript.Header("atr", Hex.string(try card.atr)),
            Transcript.Header("date", ISO8601DateFormatter().string(from: Date())),
        ]
        transcript.entries = [.event(.powerOn)]
        for apdu in apdus {
            Console.output("> \(Hex.string(apdu))")
            let response = try exchange(apdu, with: card, followingChain: options.flag("--follow-chaining")) { command, answer in
                transcript.entries.append(.exchange(command: command, response: answer, note: nil))
            }
            Console.output("< \(Hex.string(response))")
        }
        try transcript.write(toFile: output)
        Console.error(profile.said)
        Console.error("wrote \(transcript.exchanges.count) exchange(s) with the card in \(reader) to \(output)")
        return ExitStatus.success
    }

    private static func readAPDUs(_ path: String) throws -> [[UInt8]] {
        let text: String
        do {
            text = try InputFile.text(path)
        } catch {
            throw UsageError("--from: cannot read \(path): \(error.reason)")
        }
        var apdus: [[UInt8]] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            do {
                apdus.append(try parseAPDU(trimmed))
            } catch {
                throw UsageError("\(path) line \(index + 1): \(error)")
            }
        }
        return apdus
    }
}
