import ArculusCard
import Foundation
import PCSC

/// `arculus-card pcsc`: a PC/SC client for any reader, real or virtual: list readers, send
/// APDUs, record a transcript, capture a card's profile (one file per action).
enum PCSCCommand: Subcommand {
    static let name = "pcsc"
    static let summary = "Talk to a card in any PC/SC reader: list, send APDUs, record, capture a profile"

    static var declaration: CommandDeclaration {
        let reader = ["--reader", "--wait"]
        return CommandDeclaration(
            usage: ["arculus-card pcsc list",
                    "arculus-card pcsc send [--reader NAME] [--wait SECONDS] [--follow-chaining] [--verbose] APDU...",
                    "arculus-card pcsc record [--reader NAME] [--wait SECONDS] --output FILE [--follow-chaining]",
                    "                         [--profile NAME|FILE]",
                    "                         (APDU... | --from FILE)",
                    "arculus-card pcsc capture-profile [--reader NAME] [--wait SECONDS] --output FILE [--base NAME|FILE]",
                    "                                  [--strict]",
                    "arculus-card pcsc probe [--reader NAME] [--wait SECONDS] --out FILE [--allow-writes] [--no-timing]"],
            about: """
            A PC/SC client (through pcscd, like any application): it drives a card in any reader,
            a real Arculus card on an NFC reader or the emulator on vpcd ('arculus-card serve').
            """,
            actionsTitle: "SUBCOMMANDS",
            actions: [
                .init(title: "list", help: ["Every reader pcscd knows, one a line: 'empty', or 'card present' and the",
                                            "card's ATR in hex."], accepts: []),
                .init(title: "send", help: ["Sends each APDU (hex; spaces allowed when quoted: \"00 A4 04 00 ...\")",
                                            "in order and prints '> command' and '< response' lines (hex). The",
                                            "responses are printed whatever their status word."],
                      accepts: reader + ["--follow-chaining", "--verbose"]),
                .init(title: "record", help: ["Sends APDUs like 'send' and writes them as a transcript to FILE",
                                              "(headers @profile, @source pcsc reader <name>, @atr, @date; '! power-on',",
                                              "then one '>'/'<' pair per APDU on the wire). The card is power-cycled",
                                              "first (SCardReconnect with SCARD_UNPOWER_CARD), so that the transcript",
                                              "starts where a replay does. @profile, what a replay emulates, is",
                                              "--profile, else the built-in profile the card's getInfo names (AAGUID,",
                                              "versions, extensions), else the card's identity captured to",
                                              "FILE.profile.json (read before the power cycle); stderr says which."],
                      accepts: reader + ["--output", "--from", "--follow-chaining", "--profile"]),
                .init(title: "capture-profile", help: [
                    "Reads what a card says about itself (ATR, the FIDO applet's SELECT",
                    "answer, authenticatorGetInfo) and writes a card profile (JSON) that",
                    "'arculus-card serve --profile FILE' uses to emulate that model. Values a",
                    "card does not report come from --base and are listed on stderr. What",
                    "the emulator cannot serve (a version, extension, algorithm, option it",
                    "does not implement) is dropped, each named on stderr and in the",
                    "profile's description: the nearest profile it can serve. The identity",
                    "only: for the card's behaviour too, 'pcsc probe' then 'probe profile'."],
                      accepts: reader + ["--output", "--base", "--strict"]),
                .init(title: "probe", help: ["Sends the probe's fixed battery and writes the card's fingerprint",
                                             "(see 'arculus-card probe --help'). Read-only unless --allow-writes."],
                      accepts: reader + ["--out", "--output", "--allow-writes", "--no-timing"]),
            ],
            options: [
                .valued("--reader", "NAME", "The reader: its full name or a part only one reader's name",
                        "contains ('00 01'). Default: the first reader holding a card."),
                .valued("--wait", "SECONDS", "Wait up to SECONDS for a card to be present. Default 0."),
                .flag("--follow-chaining", "Follow '61xx' with GET RESPONSE (00 C0 00 00 xx) and re-send on",
                      "'6Cxx' with the right Le, as PC/SC applications do; 'send' prints",
                      "the whole response, 'record' records every APDU on the wire."),
                .valued("--from", "FILE", "(record) The APDUs, one hex APDU a line; blank lines and lines",
                        "starting with '#' are skipped."),
                .valued("--output", "FILE", "(record, capture-profile) Where to write."),
                .valued("--out", "FILE", "(probe) Where to write the fingerprint (--output works too)."),
                .flag("--strict", "(capture-profile) Refuse, writing nothing, when the card reports",
                      "anything the emulator cannot serve (exit 1)."),
                .flag("--allow-writes", "(probe) This is a test card: run the writing part too (reset, PIN set,",
                      "changed and blocked, credentials, U2F registration), ending with a reset: the card",
                      "ends blank. It stops before any PIN entry (exit 1) when the card refuses the first",
                      "reset or keeps its PIN; its PINs are random for each run."),
                .flag("--no-timing", "(probe) Do not time round trips."),
                .valued("--profile", "NAME|FILE", "(record) The card's profile for @profile: a built-in name or a file",
                        "(written relative to the transcript)."),
                .valued("--base", "NAME|FILE", "(capture-profile) The profile the capture starts from: a built-in",
                        "name (\(CardProfile.builtInNames.joined(separator: ", "))) or a file. Default: \(CardProfile.default.name)."),
                .flag("--verbose", "(send) With --follow-chaining, also print every APDU on the wire",
                      "to stderr."),
            ],
            sections: [
                .init(title: "APDUS", body: """
                  An APDU has at least the 4 header bytes CLA INS P1 P2; shorter input is refused (vpcd
                  would take a 1-byte message for one of its control codes and hang the reader).
                """),
                .init(title: "RECORDING AN APPLICATION'S SESSION", body: """
                  A PC/SC client cannot listen to another application's traffic. To record what an
                  application (python-fido2, the vendor's SDK, a browser) says to a card in a real
                  reader, run it under pcsc-lite's spy (man pcsc-spy; Fixtures/pcsc-spy/README.md shows
                  the exact steps, including a workaround for Debian 12's spy and pyscard) and turn the
                  log into a transcript with 'arculus-card transcript import-pcsc-spy LOG'.
                """),
                .init(title: "CAPTURE-PROFILE", body: """
                  capture-profile runs the host-side CTAP2 client (SELECT 00A4040008A0000006472F000100, then
                  authenticatorGetInfo in NFCCTAP_MSG, following 61xx and 9100) and takes aaguid, versions, extensions,
                  pinUvAuthProtocols, the options credMgmt / pinUvAuthToken / makeCredUvNotRqd, maxMsgSize,
                  maxCredentialCountInList, maxCredentialIdLength, transports, algorithms, minPINLength,
                  firmwareVersion and remainingDiscoverableCredentials (as residentKeyCapacity: capture a
                  card with no discoverable credentials on it). The profile is named captured-<first 8
                  digits of the AAGUID>. What the emulator cannot serve is dropped ('dropped: …' on
                  stderr), and a number outside the range it serves is clamped to the nearest bound
                  ('clamped: …'); both are noted in the profile's description. --strict refuses instead.
                """),
                .init(title: "EXAMPLES", body: """
                  arculus-card pcsc list
                  arculus-card pcsc send --reader '00 01' --follow-chaining 00A4040008A0000006472F000100 80100000010400
                  arculus-card pcsc record --reader '00 01' --output getinfo.transcript --follow-chaining \\
                      00A4040008A0000006472F000100 80100000010400
                  arculus-card pcsc capture-profile --reader 'ACS ACR1252' --output my-card.json
                  arculus-card serve --profile my-card.json
                  arculus-card pcsc probe --reader 'ACS ACR1252' --out my-card.fingerprint.json
                """),
            ],
            column: 19)
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let action = arguments.first else { throw UsageError("expected list, send, record, capture-profile or probe") }
        let rest = Array(arguments.dropFirst())
        switch action {
        case "list": return try list(rest)
        case "send": return try send(rest)
        case "record": return try record(rest)
        case "capture-profile": return try captureProfile(rest)
        case "probe": return try probe(rest)
        default: throw UsageError("unknown action '\(action)': expected list, send, record, capture-profile or probe")
        }
    }
}
