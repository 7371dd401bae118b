import ArculusCard
import JSONSupport
import VirtualReader

/// `arculus-card ctl`: steers a running `arculus-card serve` through its control socket — tap,
/// remove and insert the card, inject faults, set the PIN, counter and credentials, switch the
/// timing — so that a test in any language can change the card between two steps. Each command
/// line becomes one typed ``ControlRequest``; its JSON goes to the socket.
enum CtlCommand: Subcommand {
    static let name = "ctl"
    static let summary = "Steer a served card: tap/remove/insert, faults, PIN, counter, credentials, timing"

    static var declaration: CommandDeclaration {
        let effects: [CommandDeclaration.Option] = [
            .valued("--ctap-error", "CODE", "answer this CTAP status instead of running (0x2E, 46,",
                    "NO_CREDENTIALS); CTAP2 commands only"),
            .valued("--status-word", "SW", "answer this ISO 7816 status word (6A82), no data"),
            .flag("--bogus-signature", "signatures made are wrong (one bit of s flipped)"),
            .valued("--flags", "up=0|1[,uv=0|1]", "authenticator data carries these UP/UV flags"),
            .init(label: "--leave-field [--away S]", names: [("--leave-field", false, false), ("--away", true, false)],
                  help: ["the command runs, then the card leaves the field before",
                         "answering: the reader sees it vanish; back after S",
                         "seconds (default 1)"]),
            .flag("--fail-next-write", "the next write to the card's memory is torn: the command",
                  "answers CTAP1_ERR_OTHER, the card keeps its state"),
            .flag("--decline-presence", "the user declines the test of user presence"),
            .valued("--delay", "SECONDS", "the command runs as usual and answers SECONDS later (up to",
                    "3600; SIGINT/SIGTERM, a tap or a remove cuts the wait short)"),
            .flag("--once", "act once (the default of --leave-field and --fail-next-write)"),
            .flag("--persistent", "act until removed (the default of the others)"),
        ]
        return CommandDeclaration(
            usage: ["arculus-card ctl [--control PATH | --slot N | --vpcd HOST:PORT] <command> [options]"],
            about: """
            Sends one request to the control socket of a running 'arculus-card serve' and prints the
            card's answer. The request runs on the card's thread between two APDUs, or while the card
            waits for the user's answer (presence --mode ask).
            """,
            actions: [
                .init(title: "status", help: ["Profile, field/reader presence, timing, faults, PIN, counter."]),
                .init(title: "tap [--delay SECONDS]", help: ["Take the card off the reader and tap it again after SECONDS",
                                                             "(default 1; keep it at 0.5 or more for pcscd to notice)."],
                      options: [.valued("--delay", "SECONDS", "how long the card stays away")]),
                .init(title: "remove", help: ["Take the card off the reader until 'insert'."]),
                .init(title: "insert", help: ["Put it back (also ends a pending tap delay early)."]),
                .init(title: "fault add [--command NAME] EFFECT [--once | --persistent]", help: [
                    "Inject a fault. NAME: a CTAP command (getAssertion,",
                    "authenticatorMakeCredential, 0x02, …), u2f-register,",
                    "u2f-authenticate, select, apdu:HEX (one exact command",
                    "APDU, before the card reads it: a malformed one too;",
                    "with --status-word, or --ctap-error for an NFCCTAP_MSG),",
                    "or any (the default). EFFECT:"],
                      options: [.valued("--command", "NAME", "what the fault acts on (default any)")] + effects,
                      after: ["--leave-field and --fail-next-write act once unless",
                              "--persistent; the others act until removed unless --once."],
                      selector: "fault add"),
                .init(title: "fault list", help: ["Injected faults, and the log of every time one acted."], selector: "fault list"),
                .init(title: "fault remove ID", help: ["Remove one fault."], selector: "fault remove"),
                .init(title: "fault clear", help: ["Remove every fault (the log stays)."], selector: "fault clear"),
                .init(title: "credentials list", help: ["The credentials, with their algorithms and public keys."],
                      selector: "credentials list"),
                .init(title: "credentials add --credential SPEC", help: [
                    "Put a credential on the card; SPEC as in",
                    "'arculus-card image --help': rp=…,user=…,alg=…,discoverable=…,",
                    "a JSON credential (WebDriver's names too), or @FILE."],
                      options: [.repeating("--credential", "SPEC", "one credential; repeat for more")], selector: "credentials add"),
                .init(title: "credentials remove --id ID", help: ["Delete a discoverable credential (ID: base64url or hex)."],
                      options: [.valued("--id", "ID", "the credential")], selector: "credentials remove"),
                .init(title: "pin [--set PIN | --clear] [--retries N]", help: ["Show the PIN state; set or remove the PIN and/or",
                                                                                "set the retries left."],
                      options: [.valued("--set", "PIN", "the new PIN (retries back to 8)"),
                                .flag("--clear", "remove the PIN (retries back to 8)"),
                                .valued("--retries", "N", "PIN retries left, 0 to 8 (0 blocks the PIN)")]),
                .init(title: "presence [--mode MODE] [--approve ID | --decline ID]", help: [
                    "Show how the user answers tests of user presence, and the",
                    "prompt waiting for an answer; set the mode, or answer it."],
                      options: [.valued("--mode", "MODE", "approve (yes at once: the default), decline (no at once)",
                                        "or ask (the card waits for --approve/--decline: a polling",
                                        "host gets 9100 UPNEEDED meanwhile; no answer in 30 s gives",
                                        "CTAP2_ERR_USER_ACTION_TIMEOUT)"),
                                .valued("--approve", "ID", "the user agrees to prompt ID (presence.pending.id)"),
                                .valued("--decline", "ID", "the user declines prompt ID: OPERATION_DENIED, U2F 6985")]),
                .init(title: "counter [--set N]", help: ["Show the signature counter (one for all credentials:",
                                                         "WebDriver's signCount); set it."],
                      options: [.valued("--set", "N", "the new counter")]),
                .init(title: "timing [off|realistic]", help: ["Show the timing profile; switch it."]),
                .init(title: "send JSON", help: ["Send a raw request line (see the control protocol)."]),
            ],
            options: [
                .valued("--control", "PATH", "The control socket (what serve printed, or its --control).",
                        "Default: the one serve recorded for the slot's port, in",
                        "$XDG_RUNTIME_DIR/arculus-card/port-<port>, or without",
                        "XDG_RUNTIME_DIR arculus-card-<uid>/port-<port> in $TMPDIR or /tmp.",
                        "Either way checked before anything is sent (BEFORE SENDING)."),
                .together([.valued("--slot", "N"), .valued("--vpcd", "HOST:PORT")],
                          "Which served card, when --control is not given (as for serve)."),
            ],
            sections: [
                .init(title: "BEFORE SENDING", body: """
                  A request may carry a PIN or a private key, so nothing is sent until ctl is sure the
                  socket is your card's: the record that names it and its directory, the socket's
                  directory and the socket itself must be yours and writable by nobody else, and the
                  process serving it must run as you or as root (SO_PEERCRED). Otherwise ctl says which
                  and why ('refusing PATH: …; nothing was sent') and exits with status 5.
                """),
                .init(title: "CONTROL PROTOCOL", body: """
                  One JSON object per line each way on the Unix socket (mode 0600, owner only):
                  {"op":"fault.add","fault":{"command":"getAssertion","effect":"ctap-error","ctapError":46}}
                  → {"ok":true,"fault":{"id":1,…}}; errors are {"ok":false,"error":"…"}, with
                  "errorKind" "not-taken", "unanswered" or "busy" when the request timed out or the
                  connection was refused. Ops: status, tap, remove, insert, fault.add, fault.list,
                  fault.remove, fault.clear, credentials.list, credentials.add, credentials.remove, pin,
                  counter, timing, presence, presence.answer.
                """),
                .init(title: "OUTPUT", body: """
                  The answer, one JSON object on stdout (none when no answer came); any failure also goes
                  to stderr, in one line. Exit status:
                    0   the card did it
                    1   the card refused it (a bad request, a PIN too short, no such credential, …)
                    2   the card took it but did not answer within the time-out (10 s, or
                        'serve --control-timeout'): it may still have been carried out
                    3   the card did not take it (busy past the time-out, or too many connections):
                        nothing was changed, it is safe to send again
                    4   no served card answers there (no record, no socket, connection closed)
                    5   the socket is not to be trusted (see BEFORE SENDING): nothing was sent
                    64  a bad command line
                """),
                .init(title: "EXAMPLES", body: """
                  arculus-card ctl fault add --command getAssertion --ctap-error 0x2E --once
                  arculus-card ctl fault add --command any --status-word 6A82
                  arculus-card ctl fault add --flags up=0
                  arculus-card ctl fault add --command apdu:00990000 --status-word 6A80
                  arculus-card ctl fault add --command getAssertion --delay 0.3
                  arculus-card ctl credentials add --credential rp=example.com,user=alice
                  arculus-card ctl --slot 1 tap --delay 2
                  arculus-card ctl presence --mode ask; arculus-card ctl presence --approve 1
                """),
            ],
            column: 31)
    }

    /// ctl's exit statuses (the OUTPUT section of its help).
    enum Status {
        static let refused: Int32 = 1
        static let unanswered: Int32 = 2
        static let notTaken: Int32 = 3
        static let unreachable: Int32 = 4
        static let untrusted: Int32 = 5
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        // Every option of every ctl command; each command takes its own (``CtlWords/only(_:words:)``).
        let options = try declaration.parse(arguments)
        let request = try request(CtlWords(options))
        let socket = try socket(options)

        let answer: JSONValue
        do throws(ControlChannelError) {
            let client = switch socket {
            case .path(let path): try ControlChannelClient(path: path)
            case .servingFor(let endpoint): try ControlChannelClient(servingFor: endpoint)
            }
            answer = try client.send(request)
        } catch {
            Console.error("arculus-card ctl: \(error)")
            if case .untrusted = error { return Status.untrusted }
            return Status.unreachable
        }
        Console.output(answer.text)
        guard answer["ok"]?.boolValue == true else {
            Console.error("arculus-card ctl: \(answer["error"]?.stringValue ?? "the card refused the request")")
            switch answer["errorKind"]?.stringValue {
            case "unanswered": return Status.unanswered
            case "not-taken", "busy": return Status.notTaken
            default: return Status.refused
            }
        }
        return ExitStatus.success
    }

    /// Which socket: --control, else the one serve recorded for --vpcd/--slot.
    private enum Socket {
        case path(String)
        case servingFor(VPCDEndpoint)
    }

    private static func socket(_ options: CommandLineOptions) throws(UsageError) -> Socket {
        if let path = options.value("--control") {
            guard options.given.isDisjoint(with: SharedOptions.endpoint) else {
                throw UsageError("--control names the socket; --slot and --vpcd only choose the default one")
            }
            return .path(path)
        }
        return .servingFor(try options.vpcdEndpoint())
    }

    /// `presence`: read or set the mode, or answer a prompt (one of the three).
    private static func presenceRequest(_ line: CtlWords) throws(UsageError) -> ControlRequest {
        let given = ["--mode", "--approve", "--decline"].filter { line.options.value($0) != nil }
        guard given.count <= 1 else { throw UsageError("presence takes one of --mode, --approve ID and --decline ID") }
        try line.only(["--mode", "--approve", "--decline"], words: 1)
        if let name = line.options.value("--mode") {
            guard let mode = PresenceMode(rawValue: name) else {
                throw UsageError("--mode is approve, decline or ask, not '\(name)'")
            }
            return .presence(mode: mode)
        }
        for (option, approve) in [("--approve", true), ("--decline", false)] {
            guard let text = line.options.value(option) else { continue }
            guard let id = Int(text), id > 0 else { throw UsageError("\(option) takes the prompt's number (presence.pending.id), not '\(text)'") }
            return .answerPresence(id: id, approve: approve)
        }
        return .presence(mode: nil)
    }

    /// The request object a command line stands for: a typed request's JSON, or `send`'s own.
    private static func request(_ line: CtlWords) throws(UsageError) -> JSONValue {
        switch line.words.first {
        case "status": return try line.only([], words: 1, .status).json
        case "tap":
            return try line.only(["--delay"], words: 1, .tap(delay: try line.options.seconds("--delay") ?? 1)).json
        case "remove": return try line.only([], words: 1, .remove).json
        case "insert": return try line.only([], words: 1, .insert).json
        case "fault": return try faultRequest(line).json
        case "credentials":
            return line.words.dropFirst().first == "remove" ? try credentialsRemoveJSON(line) : try credentialsRequest(line).json
        case "pin":
            let retries = try line.options.integer("--retries")
            guard line.options.flag("--clear") else {
                return try line.only(["--set", "--retries"], words: 1, .pin(set: line.options.value("--set"), retries: retries)).json
            }
            guard line.options.value("--set") == nil else { throw UsageError("pin takes --set or --clear, not both") }
            return try line.only(["--clear", "--retries"], words: 1, .clearPIN(retries: retries)).json
        case "presence": return try presenceRequest(line).json
        case "counter": return try line.only(["--set"], words: 1, .counter(set: try line.options.counter("--set"))).json
        case "timing": return try line.only([], words: 2, .timing(try timing(line.words.dropFirst().first))).json
        case "send":
            try line.only([], words: 2)
            guard line.words.count == 2 else { throw UsageError("send wants one JSON request") }
            do throws(JSONValue.ParseError) {
                return try JSONValue(parsing: line.words[1])
            } catch {
                throw UsageError("send: bad request: \(error)")
            }
        case nil:
            throw UsageError("which command? status, tap, remove, insert, fault, credentials, pin, counter, timing, send")
        case let word?:
            throw UsageError("unknown command '\(word)'")
        }
    }

    private static func timing(_ name: String?) throws(UsageError) -> TimingProfile? {
        guard let name else { return nil }
        guard let profile = TimingProfile.named(name) else {
            throw UsageError("timing wants \(TimingProfile.builtIn.map(\.name).joined(separator: " or ")), not '\(name)'")
        }
        return profile
    }
}

/// A ctl command line: its words (`fault add`) and options, and the check that it gives only
/// the options its command takes.
struct CtlWords {
    let options: CommandLineOptions
    var words: [String] { options.positionals }

    init(_ options: CommandLineOptions) {
        self.options = options
    }

    /// Refuses options beyond `allowed` (and the socket options) and words beyond `words`.
    func only(_ allowed: Set<String>, words count: Int) throws(UsageError) {
        let command = words.prefix(2).joined(separator: " ")
        try options.allow(allowed.union(SharedOptions.endpoint).union(["--control"]), words: count, what: command)
    }

    /// ``only(_:words:)``, then `request`.
    func only(_ allowed: Set<String>, words count: Int, _ request: ControlRequest) throws(UsageError) -> ControlRequest {
        try only(allowed, words: count)
        return request
    }
}
