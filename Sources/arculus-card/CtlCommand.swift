import ArculusCard
import VirtualReader

/// `arculus-card ctl`: steers a running `arculus-card serve` through its control socket — tap,
/// remove and insert the card, inject faults, set the PIN, counter and credentials, switch the
/// timing — so that a test in any language can change the card between two steps.
enum CtlCommand: Subcommand {
    static let name = "ctl"
    static let summary = "Steer a served card: tap/remove/insert, faults, PIN, counter, credentials, timing"

    static var help: String {
        """
        USAGE: arculus-card ctl [--control PATH | --slot N | --vpcd HOST:PORT] <command> [options]

        Sends one request to the control socket of a running 'arculus-card serve' and prints the
        card's answer. The request runs on the card's thread between two APDUs.

        COMMANDS:
          status                       Profile, field/reader presence, timing, faults, PIN, counter.
          tap [--delay SECONDS]        Take the card off the reader and tap it again after SECONDS
                                       (default 1; keep it at 0.5 or more for pcscd to notice).
          remove                       Take the card off the reader until 'insert'.
          insert                       Put it back (also ends a pending tap delay early).
          fault add [--command NAME] EFFECT [--once | --persistent]
                                       Inject a fault. NAME: a CTAP command (getAssertion,
                                       authenticatorMakeCredential, 0x02, …), u2f-register,
                                       u2f-authenticate, select, or any (the default). EFFECT:
            --ctap-error CODE            answer this CTAP status instead of running (0x2E, 46,
                                         NO_CREDENTIALS); CTAP2 commands only
            --status-word SW             answer this ISO 7816 status word (6A82), no data
            --bogus-signature            signatures made are wrong (one bit of s flipped)
            --flags up=0|1[,uv=0|1]      authenticator data carries these UP/UV flags
            --leave-field [--away S]     the command runs, then the card leaves the field before
                                         answering: the reader sees it vanish; back after S
                                         seconds (default 1)
            --fail-next-write            the next write to the card's memory is torn: the command
                                         answers CTAP1_ERR_OTHER, the card keeps its state
            --decline-presence           the user declines the test of user presence
                                       --leave-field and --fail-next-write act once unless
                                       --persistent; the others act until removed unless --once.
          fault list                   Injected faults, and the log of every time one acted.
          fault remove ID              Remove one fault.
          fault clear                  Remove every fault (the log stays).
          credentials list             The discoverable credentials, with public keys.
          credentials add --credential SPEC...
                                       Put credentials on the card; SPEC as in
                                       'arculus-card image --help' (rp=…,user=…,discoverable=…).
          credentials remove --id ID   Delete a discoverable credential (ID: base64url or hex).
          pin [--set PIN] [--retries N]
                                       Show the PIN state; set the PIN and/or the retries left.
          counter [--set N]            Show the signature counter; set it.
          timing [off|realistic]       Show the timing profile; switch it.
          send JSON                    Send a raw request line (see the control protocol).

        OPTIONS:
          --control PATH       The control socket. Default: the one serve uses for the slot,
                               $XDG_RUNTIME_DIR/arculus-card-<slot>.sock, or without
                               XDG_RUNTIME_DIR /tmp/arculus-card-<uid>-<port>.sock.
          --slot N, --vpcd HOST:PORT
                               Which served card, when --control is not given (as for serve).
          -h, --help           Show this help.

        CONTROL PROTOCOL:
          One JSON object per line each way on the Unix socket (mode 0600, owner only):
          {"op":"fault.add","fault":{"command":"getAssertion","effect":"ctap-error","ctapError":46}}
          → {"ok":true,"fault":{"id":1,…}}; errors are {"ok":false,"error":"…"}. Ops: status,
          tap, remove, insert, fault.add, fault.list, fault.remove, fault.clear,
          credentials.list, credentials.add, credentials.remove, pin, counter, timing.

        OUTPUT:
          The answer, one JSON object on stdout. Exit status 0 when it is ok, 1 when the card
          refused (the error also goes to stderr), 64 for a bad command line.

        EXAMPLES:
          arculus-card ctl fault add --command getAssertion --ctap-error 0x2E --once
          arculus-card ctl fault add --command any --status-word 6A82
          arculus-card ctl fault add --flags up=0
          arculus-card ctl credentials add --credential rp=example.com,user=alice
          arculus-card ctl --slot 1 tap --delay 2
        """
    }

    private static let valued: Set<String> = ["--control", "--slot", "--vpcd", "--delay", "--command", "--ctap-error",
                                              "--status-word", "--flags", "--away", "--id", "--set", "--retries"]
    private static let flags: Set<String> = ["--bogus-signature", "--leave-field", "--fail-next-write",
                                             "--decline-presence", "--once", "--persistent"]

    static func run(_ arguments: [String]) throws -> Int32 {
        let (specs, rest) = try ImageCommand.extractRepeated("--credential", from: arguments)
        let options = try CommandLineOptions(rest, valued: valued, flags: flags)
        let request = try request(options.positionals, options: options, specs: specs)
        let path = try socketPath(options)

        let answer: ControlChannelJSON
        do {
            answer = try ControlChannelClient(path: path).send(request)
        } catch {
            Console.error("arculus-card ctl: \(error)")
            return ExitStatus.failure
        }
        Console.output(answer.jsonText)
        guard answer["ok"]?.boolValue == true else {
            Console.error("arculus-card ctl: \(answer["error"]?.stringValue ?? "the card refused the request")")
            return ExitStatus.failure
        }
        return ExitStatus.success
    }

    /// The socket: --control, else the default for --vpcd/--slot (as serve computes it).
    private static func socketPath(_ options: CommandLineOptions) throws(UsageError) -> String {
        if let path = options.value("--control") {
            guard options.value("--slot") == nil, options.value("--vpcd") == nil else {
                throw UsageError("--control names the socket; --slot and --vpcd only choose the default one")
            }
            return path
        }
        var endpoint = VPCDEndpoint.default
        if let text = options.value("--vpcd") {
            guard let parsed = VPCDEndpoint(parsing: text) else { throw UsageError("--vpcd wants HOST:PORT, not '\(text)'") }
            endpoint = parsed
        }
        if let text = options.value("--slot") {
            guard let slot = Int(text), let slotted = endpoint.slot(slot) else {
                throw UsageError("--slot wants a slot number (0, 1, ...), not '\(text)'")
            }
            endpoint = slotted
        }
        return ControlChannel.defaultPath(for: endpoint)
    }

    /// The request a command line stands for.
    private static func request(_ words: [String], options: CommandLineOptions,
                                specs: [String]) throws(UsageError) -> ControlChannelJSON {
        let command = words.prefix(2).joined(separator: " ")
        func only(_ allowed: Set<String>, wordCount: Int) throws(UsageError) {
            let given = valued.union(flags).filter { options.value($0) != nil || options.flag($0) }
            let stray = given.subtracting(allowed.union(["--control", "--slot", "--vpcd"]))
            if let first = stray.sorted().first { throw UsageError("\(first) does not apply to '\(command)'") }
            if !specs.isEmpty && !allowed.contains("--credential") { throw UsageError("--credential does not apply to '\(command)'") }
            if words.count > wordCount { throw UsageError("unexpected argument '\(words[wordCount])'") }
        }
        switch words.first {
        case "status":
            try only([], wordCount: 1)
            return ["op": "status"]
        case "tap":
            try only(["--delay"], wordCount: 1)
            guard let text = options.value("--delay") else { return ["op": "tap"] }
            guard let delay = Double(text) else { throw UsageError("--delay wants seconds, not '\(text)'") }
            return ["op": "tap", "delay": .number(delay)]
        case "remove":
            try only([], wordCount: 1)
            return ["op": "remove"]
        case "insert":
            try only([], wordCount: 1)
            return ["op": "insert"]
        case "fault":
            return try faultRequest(words, options: options, only: only)
        case "credentials":
            switch words.dropFirst().first {
            case "list":
                try only([], wordCount: 2)
                return ["op": "credentials.list"]
            case "add":
                try only(["--credential"], wordCount: 2)
                guard specs.count == 1 else {
                    throw UsageError(specs.isEmpty ? "credentials add needs --credential SPEC"
                                                   : "ctl adds one credential per call: give one --credential")
                }
                return try ImageCommand.credentialRequest(specs[0])
            case "remove":
                try only(["--id"], wordCount: 2)
                guard let id = options.value("--id") else { throw UsageError("credentials remove needs --id ID") }
                return ImageCommand.removeRequest(id)
            default:
                throw UsageError("credentials wants list, add or remove")
            }
        case "pin":
            try only(["--set", "--retries"], wordCount: 1)
            var request: [String: ControlChannelJSON] = ["op": "pin"]
            if let pin = options.value("--set") { request["set"] = .string(pin) }
            if let text = options.value("--retries") { request["retries"] = .int(try ImageCommand.integer(text, "--retries")) }
            return .object(request)
        case "counter":
            try only(["--set"], wordCount: 1)
            guard let text = options.value("--set") else { return ["op": "counter"] }
            return ["op": "counter", "set": .int(try ImageCommand.integer(text, "--set"))]
        case "timing":
            try only([], wordCount: 2)
            guard words.count == 2 else { return ["op": "timing"] }
            return ["op": "timing", "profile": .string(words[1])]
        case "send":
            try only([], wordCount: 2)
            guard words.count == 2 else { throw UsageError("send wants one JSON request") }
            do {
                return try ControlChannelJSON(parsing: words[1])
            } catch {
                throw UsageError("send: \(error)")
            }
        case nil:
            throw UsageError("which command? status, tap, remove, insert, fault, credentials, pin, counter, timing, send")
        default:
            throw UsageError("unknown command '\(words[0])'")
        }
    }

    private static func faultRequest(_ words: [String], options: CommandLineOptions,
                                     only: (Set<String>, Int) throws(UsageError) -> Void) throws(UsageError) -> ControlChannelJSON {
        switch words.dropFirst().first {
        case "add":
            try only(["--command", "--ctap-error", "--status-word", "--flags", "--away", "--bogus-signature",
                      "--leave-field", "--fail-next-write", "--decline-presence", "--once", "--persistent"], 2)
            var fault: [String: ControlChannelJSON] = ["command": .string(options.value("--command") ?? "any")]
            var effects: [String] = []
            if let code = options.value("--ctap-error") {
                effects.append("ctap-error")
                fault["ctapError"] = .string(code)
            }
            if let word = options.value("--status-word") {
                effects.append("status-word")
                fault["statusWord"] = .string(word)
            }
            if let text = options.value("--flags") {
                effects.append("flags")
                for pair in text.split(separator: ",") {
                    let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                    guard parts.count == 2, ["up", "uv"].contains(parts[0].lowercased()), ["0", "1"].contains(parts[1]) else {
                        throw UsageError("--flags wants up=0|1 and/or uv=0|1 (e.g. up=0,uv=1), not '\(text)'")
                    }
                    fault[parts[0].lowercased()] = .bool(parts[1] == "1")
                }
            }
            if options.flag("--bogus-signature") { effects.append("bogus-signature") }
            if options.flag("--leave-field") { effects.append("leave-field") }
            if options.flag("--fail-next-write") { effects.append("fail-next-write") }
            if options.flag("--decline-presence") { effects.append("decline-presence") }
            guard effects.count == 1 else {
                throw UsageError(effects.isEmpty
                    ? "fault add needs an effect: --ctap-error, --status-word, --bogus-signature, --flags, --leave-field, --fail-next-write or --decline-presence"
                    : "fault add takes one effect, not \(effects.joined(separator: " and "))")
            }
            fault["effect"] = .string(effects[0])
            if let text = options.value("--away") {
                guard effects[0] == "leave-field" else { throw UsageError("--away goes with --leave-field") }
                guard let away = Double(text) else { throw UsageError("--away wants seconds, not '\(text)'") }
                fault["away"] = .number(away)
            }
            if options.flag("--once") && options.flag("--persistent") { throw UsageError("--once or --persistent, not both") }
            if options.flag("--once") { fault["once"] = true }
            if options.flag("--persistent") { fault["once"] = false }
            return ["op": "fault.add", "fault": .object(fault)]
        case "list":
            try only([], 2)
            return ["op": "fault.list"]
        case "clear":
            try only([], 2)
            return ["op": "fault.clear"]
        case "remove":
            try only([], 3)
            guard words.count == 3, let id = Int(words[2]) else { throw UsageError("fault remove wants the fault's ID (see 'fault list')") }
            return ["op": "fault.remove", "id": .int(id)]
        default:
            throw UsageError("fault wants add, list, remove or clear")
        }
    }
}
