/// The table of subcommands and the dispatcher over it.
enum Subcommands {
    /// Every subcommand, in the order the overview lists them. Add new ones here.
    static let all: [any Subcommand.Type] = [
        ServeCommand.self,
        ProfileCommand.self,
        AttestationCommand.self,
        ReplayCommand.self,
        TranscriptCommand.self,
        SDKCommand.self,
        PCSCCommand.self,
        ProbeCommand.self,
        ImageCommand.self,
        CtlCommand.self,
    ]

    static var overview: String {
        let width = all.map { $0.name.count }.max() ?? 0
        let list = all.map { "  \($0.name.padding(width))  \($0.summary)" }.joined(separator: "\n")
        return """
        arculus-card: an emulated Arculus FIDO2 (CTAP2) NFC card.

        The card speaks ISO 7816 / NFC (SELECT, chaining, GET RESPONSE, NFCCTAP, U2F) and
        CTAP 2.1 behind it, keeps its memory in a card image file, and can sit on a PC/SC
        virtual reader so that PC/SC applications (python-fido2, opensc-tool, the vendor's
        desktop SDK) use it like a real card on an NFC reader.

        USAGE: arculus-card <subcommand> [options]

        SUBCOMMANDS:
        \(list)
          \("help".padding(width))  Show the help of a subcommand: arculus-card help <subcommand>
          \("version".padding(width))  Show the tool's version (also --version)

        Run 'arculus-card <subcommand> --help' for a subcommand's options.
        """
    }

    /// Runs the command line; returns the exit status.
    static func dispatch(_ arguments: [String]) -> Int32 {
        guard let first = arguments.first else {
            Console.error(overview)
            return ExitStatus.usage
        }
        switch first {
        case "-h", "--help":
            Console.output(overview)
            return ExitStatus.success
        case "--version", "version":
            guard arguments.count == 1 else {
                Console.error("arculus-card \(first): takes no arguments")
                return ExitStatus.usage
            }
            Console.output(ToolVersion.text)
            return ExitStatus.success
        case "help":
            guard arguments.count > 1 else {
                Console.output(overview)
                return ExitStatus.success
            }
            guard let command = find(arguments[1]) else { return unknown(arguments[1]) }
            Console.output(command.help)
            return ExitStatus.success
        default:
            break
        }
        guard let command = find(first) else { return unknown(first) }
        let rest = Array(arguments.dropFirst())
        do {
            // The first word may be a subcommand's action (`pcsc send`), so help right after the
            // subcommand's name is seen here; anywhere else the subcommand's options parser sees it.
            if let word = rest.first, word == "-h" || word == "--help" { throw HelpRequest() }
            return try command.run(rest)
        } catch is HelpRequest {
            Console.output(command.help)
            return ExitStatus.success
        } catch let error as UsageError {
            Console.error("arculus-card \(command.name): \(error)")
            Console.error("Run 'arculus-card \(command.name) --help' for its options.")
            return ExitStatus.usage
        } catch {
            Console.error("arculus-card \(command.name): \(error)")
            return ExitStatus.failure
        }
    }

    private static func find(_ name: String) -> (any Subcommand.Type)? {
        all.first { $0.name == name }
    }

    private static func unknown(_ name: String) -> Int32 {
        Console.error("arculus-card: unknown subcommand '\(name)'. Known: \(all.map { $0.name }.joined(separator: ", ")).")
        Console.error("Run 'arculus-card --help' for an overview.")
        return ExitStatus.usage
    }
}

extension String {
    /// The string padded with spaces to `width` characters.
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
