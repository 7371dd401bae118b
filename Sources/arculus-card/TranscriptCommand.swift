import Foundation
import ArculusCard
import POSIXSupport
import Transcript
import VirtualReader

/// `arculus-card transcript`: look at transcript files.
enum TranscriptCommand: Subcommand {
    static let name = "transcript"
    static let summary = "Show, check or import (from pcsc-spy) an APDU transcript file"
    static var declaration: CommandDeclaration {
        CommandDeclaration(
            usage: ["arculus-card transcript show FILE [--apdus] [--full]", "arculus-card transcript check FILE...",
                    "arculus-card transcript import-pcsc-spy LOG [--reader NAME] [--output FILE]"],
            about: """
            A transcript is what a host and a card said to each other, as text: headers (@profile,
            @seed, @image, @atr, @front, @source, @date), card events ('! power-off') and APDU
            exchanges ('> command' then '< response', hex). 'arculus-card serve --record FILE' writes
            one; 'arculus-card replay' checks the card against one; 'serve --stand-in FILE' answers a
            host from one.
            """,
            actions: [
                .init(title: "show FILE", help: [
                    "Prints the headers, then each logical message: chained pieces, GET RESPONSE",
                    "and NFCCTAP_GETRESPONSE polling joined into one request and one response;",
                    "CTAP2 with the command's name (and clientPIN / credentialManagement",
                    "subcommand), the CTAP status name and the CBOR in diagnostic notation."],
                      options: [.flag("--apdus", "Print the APDU-level trace instead, one '>' and '<' per APDU, as",
                                      "'serve --verbose' does."),
                                .flag("--full", "Do not abbreviate long byte strings.")]),
                .init(title: "check FILE...", help: [
                    "Parses each file and decodes the CBOR of every CTAP2 message; prints a line",
                    "per file, or the first error with its line number, and exits 1 on any error."]),
                .init(title: "import-pcsc-spy LOG", help: [
                    "Turns a pcsc-lite 'pcsc-spy' log (printed output or the raw FIFO log) of any",
                    "PC/SC application into a transcript: every SCardTransmit becomes a '>'/'<'",
                    "pair, connects/reconnects/disconnects with reset or unpower become events.",
                    "Fixtures/pcsc-spy/README.md shows how to capture a log."],
                      options: [.valued("--reader", "NAME", "The reader whose exchanges to keep (when the application used",
                                        "several)."),
                                .valued("--output", "FILE", "Where to write the transcript; default: print it.")]),
            ],
            column: 25)
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try declaration.parse(arguments)
        switch options.positionals.first {
        case "show":
            guard options.positionals.count == 2 else { throw UsageError("'show' takes one transcript FILE") }
            return try show(options.positionals[1], apdus: options.flag("--apdus"), full: options.flag("--full"))
        case "check":
            guard options.positionals.count >= 2 else { throw UsageError("'check' takes one or more transcript FILEs") }
            guard !options.flag("--apdus"), !options.flag("--full") else { throw UsageError("--apdus and --full are options of 'show'") }
            return check(Array(options.positionals.dropFirst()))
        case "import-pcsc-spy":
            guard options.positionals.count == 2 else { throw UsageError("'import-pcsc-spy' takes one LOG file") }
            let path = options.positionals[1]
            let transcript: Transcript
            do {
                transcript = try Transcript.importPCSCSpy(try InputFile.text(path), reader: options.value("--reader"))
            } catch let error as InputFileError {
                throw TranscriptError(line: nil, message: "cannot read the pcsc-spy log: \(error.reason)", file: path)
            } catch let error as TranscriptError {
                throw TranscriptError(line: error.line, message: error.message, file: path)
            }
            if let output = options.value("--output") {
                try transcript.write(toFile: output)
                Console.error("wrote \(transcript.exchanges.count) exchanges to \(output)")
            } else {
                Console.output(transcript.text)
            }
            return ExitStatus.success
        case nil:
            throw UsageError("expected 'show FILE', 'check FILE...' or 'import-pcsc-spy LOG'")
        case let other?:
            throw UsageError("unknown action '\(other)': expected 'show', 'check' or 'import-pcsc-spy'")
        }
    }

    private static func show(_ path: String, apdus: Bool, full: Bool) throws -> Int32 {
        // Showing what a file holds is useful even when it could not be replayed.
        let transcript = try Transcript.load(path: path, validation: .syntax)
        for header in transcript.headers { Console.output("@\(header.name) \(header.value)") }
        if apdus {
            var formatter = APDUTraceFormatter(maximumBytes: full ? Int.max : 64)
            for (index, entry) in transcript.entries.enumerated() {
                switch entry {
                case .comment(let text):
                    Console.output("# \(text)")
                case .event(let event):
                    formatter.reset()
                    Console.output("line \(transcript.line(ofEntry: index)): ! \(event.rawValue)")
                case .exchange(let command, let response, _):
                    let lines = formatter.lines(command: command, response: response)
                    Console.output(lines.enumerated().map { $0.offset == 0 ? "line \(transcript.line(ofEntry: index)): \($0.element)" : "    \($0.element)" }
                        .joined(separator: "\n"))
                }
            }
            return ExitStatus.success
        }
        for message in TranscriptMessages.messages(of: transcript) {
            Console.output(message.describe(maximumBytes: full ? Int.max : CBORRendering.maximumBytes).joined(separator: "\n"))
        }
        return ExitStatus.success
    }

    private static func check(_ paths: [String]) -> Int32 {
        var status = ExitStatus.success
        for path in paths {
            do {
                let transcript = try Transcript.load(path: path)
                let messages = TranscriptMessages.messages(of: transcript)
                var ctap = 0
                for message in messages where message.ctapRequest != nil {
                    _ = try message.requestCBOR()
                    _ = try message.responseCBOR()
                    ctap += 1
                }
                let unfinished = messages.filter { !$0.isComplete }.count
                let seeded = transcript.seed == nil ? "unseeded (structural replay)" : "seeded (byte-exact replay)"
                Console.output("\(path): ok, \(transcript.exchanges.count) APDU exchanges, \(messages.count) messages (\(ctap) CTAP2)"
                               + (unfinished > 0 ? ", \(unfinished) unfinished" : "") + ", \(seeded)")
            } catch let error as TranscriptError {
                Console.error("\(error)")  // names the file (and line) itself
                status = ExitStatus.failure
            } catch {
                Console.error("\(path): \(error)")
                status = ExitStatus.failure
            }
        }
        return status
    }
}
