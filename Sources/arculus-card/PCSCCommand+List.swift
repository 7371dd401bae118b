import FIDOWire
import PCSC

/// `pcsc list`: every reader and what is in it.
extension PCSCCommand {
    static func list(_ arguments: [String]) throws -> Int32 {
        let options = try declaration.parse(arguments, action: "list")
        guard options.positionals.isEmpty else { throw UsageError("list takes no arguments") }
        let context = try PCSCContext()
        let statuses = try context.status(ofReaders: try context.readers())
        guard !statuses.isEmpty else {
            Console.error("no PC/SC readers (is a reader plugged in, or vsmartcard-vpcd installed, and pcscd running?)")
            return ExitStatus.success
        }
        let width = statuses.map(\.reader.count).max() ?? 0
        for status in statuses {
            let state: String
            if status.isCardPresent {
                state = "card present" + (status.isMute ? " (mute)" : "") + (status.atr.isEmpty ? "" : "  ATR \(Hex.string(status.atr))")
            } else if status.isEmpty {
                state = "empty"
            } else {
                state = "unavailable"
            }
            Console.output("\(status.reader.padding(width))  \(state)")
        }
        return ExitStatus.success
    }
}
