import FIDOWire
import PCSC

/// `pcsc send`: APDUs to the card, each printed with its response.
extension PCSCCommand {
    static func send(_ arguments: [String]) throws -> Int32 {
        let options = try declaration.parse(arguments, action: "send")
        let apdus = try options.positionals.map(parseAPDU)
        guard !apdus.isEmpty else { throw UsageError("send needs at least one APDU") }
        let (_, card) = try connect(options)
        try card.beginTransaction()
        defer { try? card.endTransaction() }
        let chaining = options.flag("--follow-chaining")
        let traced = chaining && options.flag("--verbose")
        for apdu in apdus {
            Console.output("> \(Hex.string(apdu))")
            let response = try exchange(apdu, with: card, followingChain: chaining) { command, answer in
                if traced { Console.error("  > \(Hex.string(command))\n  < \(Hex.string(answer))") }
            }
            Console.output("< \(Hex.string(response))")
        }
        return ExitStatus.success
    }
}
