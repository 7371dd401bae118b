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
                                       u2f-authenticate, select, apdu:HEX (one exact command
                                       APDU, before the card reads it: a malformed one too;
                                       with --status-word, or --ctap-error for an NFCCTAP_MSG),
                                       or any (the default). EFFECT:
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
            --delay SECONDS              the command runs as usual and answers SECONDS later
                                       --leave-field and --fail-next-write act once unless
                                       --persistent; the others act until removed unless --once.
          fault list                   Injected faults, and the log of every time one acted.
          fault remove ID              Remove one fault.
          fault clear                  Remove every fault (the log stays).
          credentials list             The discoverable credentials, with public keys.
          credentials add --credential SPEC
                                       Put a credential on the card; SPEC as in
                                       'arculus-card image --help': rp=…,user=…,discoverable=…,
                                       a JSON credential (WebDriver's names too), or @FILE.
          credentials remove --id ID   Delete a discoverable credential (ID: base64url or hex).
          pin [--set PIN] [--retries N]
                                       Show the PIN state; set the PIN and/or the retries left.
          counter [--set N]            Show the signature counter (one for all credentials:
                                       WebDriver's signCount); set it.
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
          arculus-card ctl fault add --command apdu:00990000 --status-word 6A80
          arculus-card ctl fault add --command getAssertion --delay 0.3
          arculus-card ctl credentials add --credential rp=example.com,user=alice
          arculus-card ctl --slot 1 tap --delay 2
        """
    }

    /// Every option of every ctl command; each command takes its own subset (``CtlWords/only(_:words:)``).
    static let valued: Set<String> = SharedOptions.endpoint.union([
        "--control", "--delay", "--command", "--ctap-error", "--status-word", "--flags", "--away", "--id", "--set", "--retries",
    ])
    static let flags: Set<String> = ["--bogus-signature", "--leave-field", "--fail-next-write", "--decline-presence",
                                     "--once", "--persistent"]

    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try CommandLineOptions(arguments, valued: valued, flags: flags, repeatable: ["--credential"])
        let request = try request(CtlWords(options))
        let path = try socketPath(options)

        let answer: JSONValue
        do {
            answer = try ControlChannelClient(path: path).send(request)
        } catch {
            Console.error("arculus-card ctl: \(error)")
            return ExitStatus.failure
        }
        Console.output(answer.text)
        guard answer["ok"]?.boolValue == true else {
            Console.error("arculus-card ctl: \(answer["error"]?.stringValue ?? "the card refused the request")")
            return ExitStatus.failure
        }
        return ExitStatus.success
    }

    /// The socket: --control, else the default for --vpcd/--slot (as serve computes it).
    private static func socketPath(_ options: CommandLineOptions) throws(UsageError) -> String {
        if let path = options.value("--control") {
            guard options.given.isDisjoint(with: SharedOptions.endpoint) else {
                throw UsageError("--control names the socket; --slot and --vpcd only choose the default one")
            }
            return path
        }
        return ControlChannel.defaultPath(for: try options.vpcdEndpoint())
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
        case "credentials": return try credentialsRequest(line).json
        case "pin":
            let pin = ControlRequest.pin(set: line.options.value("--set"), retries: try line.options.integer("--retries"))
            return try line.only(["--set", "--retries"], words: 1, pin).json
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
