import ArculusCard
import VirtualReader

/// `ctl fault add|list|remove|clear`: the fault as a typed ``Fault``, built from the options.
extension CtlCommand {
    static func faultRequest(_ line: CtlWords) throws(UsageError) -> ControlRequest {
        switch line.words.dropFirst().first {
        case "add":
            try line.only(["--command", "--ctap-error", "--status-word", "--flags", "--away", "--bogus-signature",
                           "--leave-field", "--fail-next-write", "--decline-presence", "--delay", "--once", "--persistent"], words: 2)
            return .addFault(try fault(line.options))
        case "list":
            return try line.only([], words: 2, .listFaults)
        case "clear":
            return try line.only([], words: 2, .clearFaults)
        case "remove":
            try line.only([], words: 3)
            guard line.words.count == 3, let id = Int(line.words[2]) else {
                throw UsageError("fault remove wants the fault's ID (see 'fault list')")
            }
            return .removeFault(id: id)
        default:
            throw UsageError("fault wants add, list, remove or clear")
        }
    }

    /// The fault `fault add` describes: one effect, its scope (`--command`, default any) and
    /// whether it is one-shot.
    private static func fault(_ options: CommandLineOptions) throws(UsageError) -> Fault {
        let commandName = options.value("--command") ?? "any"
        guard let scope = FaultScope(name: commandName) else {
            throw UsageError("--command: unknown command '\(commandName)': give a CTAP command (getAssertion, "
                             + "authenticatorMakeCredential, 0x02), u2f-register, u2f-authenticate, select, "
                             + "apdu:HEX (one exact APDU, at least 4 bytes) or any")
        }
        var effects: [FaultEffect] = []
        if let code = options.value("--ctap-error") {
            guard let byte = ControlRequest.ctapStatus(.string(code)) else {
                throw UsageError("--ctap-error wants a CTAP status byte (46, 0x2E) or name (NO_CREDENTIALS), not '\(code)'")
            }
            effects.append(.ctapError(byte))
        }
        if let text = options.value("--status-word") {
            guard let word = ControlRequest.statusWord(.string(text)) else {
                throw UsageError("--status-word wants four hex digits such as 6A82, not '\(text)'")
            }
            effects.append(.statusWord(word))
        }
        if let text = options.value("--flags") { effects.append(try flags(text)) }
        if options.flag("--bogus-signature") { effects.append(.bogusSignature) }
        if options.flag("--leave-field") { effects.append(.leaveField(away: try options.duration("--away") ?? .seconds(1))) }
        if options.flag("--fail-next-write") { effects.append(.failNextWrite) }
        if options.flag("--decline-presence") { effects.append(.declinePresence) }
        if let extra = try options.duration("--delay") { effects.append(.delay(extra)) }
        guard effects.count == 1, let effect = effects.first else {
            throw UsageError(effects.isEmpty
                ? "fault add needs an effect: --ctap-error, --status-word, --bogus-signature, --flags, --leave-field, --fail-next-write, --decline-presence or --delay"
                : "fault add takes one effect, not \(effects.map(\.name).joined(separator: " and "))")
        }
        if options.value("--away") != nil, !options.flag("--leave-field") { throw UsageError("--away goes with --leave-field") }
        if options.flag("--once") && options.flag("--persistent") { throw UsageError("--once or --persistent, not both") }
        let once: Bool? = options.flag("--once") ? true : options.flag("--persistent") ? false : nil
        return Fault(effect, on: scope, once: once)
    }

    /// `--flags up=0|1[,uv=0|1]`.
    private static func flags(_ text: String) throws(UsageError) -> FaultEffect {
        var up: Bool?
        var uv: Bool?
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.lowercased() }
            guard parts.count == 2, ["up", "uv"].contains(parts[0]), ["0", "1"].contains(parts[1]) else {
                throw UsageError("--flags wants up=0|1 and/or uv=0|1 (e.g. up=0,uv=1), not '\(text)'")
            }
            if parts[0] == "up" { up = parts[1] == "1" } else { uv = parts[1] == "1" }
        }
        return .flags(userPresent: up, userVerified: uv)
    }
}
