/// The calls of a pcsc-spy log, in the order they were made, and the readers they connected to.
struct PCSCSpyLog {
    let calls: [PCSCSpyCall]
    private let lineCount: Int

    init(_ log: String) throws(TranscriptError) {
        let lines = log.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            Self.withoutColours(line.hasSuffix("\r") ? String(line.dropLast()) : String(line))
        }
        lineCount = lines.count
        let firstLine = lines.first { !$0.withoutSurroundingSpaces.isEmpty } ?? ""
        var calls = PCSCSpyRawParser.isRawLine(firstLine)
            ? try PCSCSpyRawParser.calls(in: lines)
            : try PCSCSpyTextParser.calls(in: lines)
        guard !calls.isEmpty else {
            throw TranscriptError(line: 1, message: "no PC/SC calls found: not a pcsc-spy log (its text output or its raw FIFO log)")
        }
        calls.sort { $0.line < $1.line }
        self.calls = calls
    }

    /// The reader to import: the one `requested` names (or uniquely contains), or the only one
    /// a successful `SCardConnect` used.
    func chooseReader(_ requested: String?) throws(TranscriptError) -> String {
        var used: [(name: String, line: Int)] = []
        for call in calls where call.function == "SCardConnect" && call.succeeded {
            let name = try call.field("i szReader")
            if !used.contains(where: { $0.name == name.value }) { used.append((name.value, name.line)) }
        }
        let names = used.map(\.name)
        guard !used.isEmpty else {
            throw TranscriptError(line: lineCount, message: "no card was connected: the log has no successful SCardConnect")
        }
        guard let requested else {
            guard used.count == 1 else {
                throw TranscriptError(line: used[1].line, message: "the application used several readers (\(names.joined(separator: ", "))): choose one")
            }
            return used[0].name
        }
        if names.contains(requested) { return requested }
        let matching = names.filter { $0.contains(requested) }
        guard matching.count == 1 else {
            let problem = matching.isEmpty ? "no SCardConnect to a reader matching" : "several readers match"
            throw TranscriptError(line: matching.isEmpty ? used[0].line : used.first { $0.name == matching[1] }?.line ?? lineCount,
                                  message: "\(problem) '\(requested)' (readers connected: \(names.joined(separator: ", ")))")
        }
        return matching[0]
    }

    /// Removes ANSI colour sequences (`ESC [ … m`), which pcsc-spy prints without `-n`.
    private static func withoutColours(_ line: String) -> String {
        guard line.contains("\u{1B}") else { return line }
        var result = ""
        var index = line.startIndex
        while index < line.endIndex {
            if line[index] == "\u{1B}", line[line.index(after: index)...].hasPrefix("["),
               let end = line[index...].firstIndex(where: { $0.isLetter }) {
                index = line.index(after: end)
            } else {
                result.append(line[index])
                index = line.index(after: index)
            }
        }
        return result
    }
}
