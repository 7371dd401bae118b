import ArculusCard
import CBOR
import Foundation
import PCSC
import Transcript
import FIDOWire

/// `arculus-card pcsc`: a PC/SC client for any reader, real or virtual: list readers, send
/// APDUs, record a transcript, capture a card's profile.
enum PCSCCommand: Subcommand {
    static let name = "pcsc"
    static let summary = "Talk to a card in any PC/SC reader: list, send APDUs, record, capture a profile"

    static var help: String {
        """
        USAGE: arculus-card pcsc list
               arculus-card pcsc send [--reader NAME] [--wait SECONDS] [--follow-chaining] [--verbose] APDU...
               arculus-card pcsc record [--reader NAME] [--wait SECONDS] --output FILE [--follow-chaining]
                                        (APDU... | --from FILE)
               arculus-card pcsc capture-profile [--reader NAME] [--wait SECONDS] --output FILE [--base NAME|FILE]

        A PC/SC client (through pcscd, like any application): it drives a card in any reader,
        a real Arculus card on an NFC reader or the emulator on vpcd ('arculus-card serve').

        SUBCOMMANDS:
          list             Every reader pcscd knows, one a line: 'empty', or 'card present' and the
                           card's ATR in hex.
          send             Sends each APDU (hex; spaces allowed when quoted: "00 A4 04 00 ...")
                           in order and prints '> command' and '< response' lines (hex). The
                           responses are printed whatever their status word.
          record           Sends APDUs like 'send' and writes them as a transcript to FILE
                           (headers @source pcsc reader <name>, @atr, @date; '! power-on', then
                           one '>'/'<' pair per APDU on the wire). The card is power-cycled first
                           (SCardReconnect with SCARD_UNPOWER_CARD), so that the transcript starts
                           where a replay does.
          capture-profile  Reads what a card says about itself (ATR, the FIDO applet's SELECT
                           answer, authenticatorGetInfo) and writes a card profile (JSON) that
                           'arculus-card serve --profile FILE' uses to emulate that model. Values a
                           card does not report come from --base and are listed on stderr.

        OPTIONS:
          --reader NAME        The reader: its full name or a part only one reader's name
                               contains ('00 01'). Default: the first reader holding a card.
          --wait SECONDS       Wait up to SECONDS for a card to be present. Default 0.
          --follow-chaining    Follow '61xx' with GET RESPONSE (00 C0 00 00 xx) and re-send on
                               '6Cxx' with the right Le, as PC/SC applications do; 'send' prints
                               the whole response, 'record' records every APDU on the wire.
          --from FILE          (record) The APDUs, one hex APDU a line; blank lines and lines
                               starting with '#' are skipped.
          --output FILE        (record, capture-profile) Where to write.
          --base NAME|FILE     (capture-profile) The profile the capture starts from: a built-in
                               name (\(CardProfile.builtInNames.joined(separator: ", "))) or a file. Default: \(CardProfile.default.name).
          --verbose            (send) With --follow-chaining, also print every APDU on the wire
                               to stderr.
          -h, --help           Show this help.

        An APDU has at least the 4 header bytes CLA INS P1 P2; shorter input is refused (vpcd
        would take a 1-byte message for one of its control codes and hang the reader).

        RECORDING AN APPLICATION'S SESSION:
          A PC/SC client cannot listen to another application's traffic. To record what an
          application (python-fido2, the vendor's SDK, a browser) says to a card in a real
          reader, run it under pcsc-lite's spy (man pcsc-spy; Fixtures/pcsc-spy/README.md shows
          the exact steps, including a workaround for Debian 12's spy and pyscard) and turn the
          log into a transcript with 'arculus-card transcript import-pcsc-spy LOG'.

        capture-profile sends SELECT 00A4040008A0000006472F000100 and NFCCTAP_MSG getInfo
        80100000010400 (following 61xx) and takes aaguid, versions, extensions,
        pinUvAuthProtocols, the options credMgmt / pinUvAuthToken / makeCredUvNotRqd, maxMsgSize,
        maxCredentialCountInList, maxCredentialIdLength, transports, algorithms, minPINLength,
        firmwareVersion and remainingDiscoverableCredentials (as residentKeyCapacity: capture a
        card with no discoverable credentials on it). The profile is named captured-<first 8
        digits of the AAGUID>.

        EXAMPLES:
          arculus-card pcsc list
          arculus-card pcsc send --reader '00 01' --follow-chaining 00A4040008A0000006472F000100 80100000010400
          arculus-card pcsc record --reader '00 01' --output getinfo.transcript --follow-chaining \\
              00A4040008A0000006472F000100 80100000010400
          arculus-card pcsc capture-profile --reader 'ACS ACR1252' --output my-card.json
          arculus-card serve --profile my-card.json
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let action = arguments.first else { throw UsageError("expected list, send, record or capture-profile") }
        let rest = Array(arguments.dropFirst())
        switch action {
        case "list": return try list(rest)
        case "send": return try send(rest)
        case "record": return try record(rest)
        case "capture-profile": return try captureProfile(rest)
        default: throw UsageError("unknown action '\(action)': expected list, send, record or capture-profile")
        }
    }

    // MARK: - list

    private static func list(_ arguments: [String]) throws -> Int32 {
        let options = try CommandLineOptions(arguments, valued: [], flags: [])
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

    // MARK: - send

    private static func send(_ arguments: [String]) throws -> Int32 {
        let options = try CommandLineOptions(arguments, valued: ["--reader", "--wait"], flags: ["--follow-chaining", "--verbose"])
        let apdus = try options.positionals.map(parseAPDU)
        guard !apdus.isEmpty else { throw UsageError("send needs at least one APDU") }
        let (_, card) = try connect(options)
        try card.beginTransaction()
        defer { try? card.endTransaction() }
        let verbose = options.flag("--verbose")
        for apdu in apdus {
            Console.output("> \(Hex.string(apdu))")
            let response: [UInt8]
            if options.flag("--follow-chaining") {
                response = try ISO7816Exchange(card).transmitFollowingResponseChain(apdu) { command, answer in
                    if verbose { Console.error("  > \(Hex.string(command))\n  < \(Hex.string(answer))") }
                }
            } else {
                response = try card.transmit(apdu)
            }
            Console.output("< \(Hex.string(response))")
        }
        return ExitStatus.success
    }

    // MARK: - record

    private static func record(_ arguments: [String]) throws -> Int32 {
        let options = try CommandLineOptions(arguments, valued: ["--reader", "--wait", "--output", "--from"], flags: ["--follow-chaining"])
        guard let output = options.value("--output") else { throw UsageError("record needs --output FILE") }
        var apdus = try options.positionals.map(parseAPDU)
        if let from = options.value("--from") {
            guard apdus.isEmpty else { throw UsageError("give the APDUs as arguments or with --from, not both") }
            apdus = try readAPDUs(from)
        }
        guard !apdus.isEmpty else { throw UsageError("record needs at least one APDU (arguments or --from FILE)") }

        let (reader, card) = try connect(options)
        try card.reconnect(disposition: .unpower)
        try card.beginTransaction()
        defer { try? card.endTransaction() }
        var transcript = Transcript(headers: [
            Transcript.Header("source", "pcsc reader \(reader)"),
            Transcript.Header("atr", Hex.string(try card.atr)),
            Transcript.Header("date", ISO8601DateFormatter().string(from: Date())),
        ], entries: [.event(.powerOn)])
        for apdu in apdus {
            Console.output("> \(Hex.string(apdu))")
            let response: [UInt8]
            if options.flag("--follow-chaining") {
                response = try ISO7816Exchange(card).transmitFollowingResponseChain(apdu) { command, answer in
                    transcript.entries.append(.exchange(command: command, response: answer, note: nil))
                }
            } else {
                response = try card.transmit(apdu)
                transcript.entries.append(.exchange(command: apdu, response: response, note: nil))
            }
            Console.output("< \(Hex.string(response))")
        }
        try transcript.text.write(toFile: output, atomically: true, encoding: .utf8)
        Console.error("wrote \(transcript.exchanges.count) exchange(s) with the card in \(reader) to \(output)")
        return ExitStatus.success
    }

    private static func readAPDUs(_ path: String) throws -> [[UInt8]] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw UsageError("--from: cannot read \(path): \(error.localizedDescription)")
        }
        var apdus: [[UInt8]] = []
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            do {
                apdus.append(try parseAPDU(trimmed))
            } catch {
                throw UsageError("\(path) line \(index + 1): \(error)")
            }
        }
        return apdus
    }

    // MARK: - capture-profile

    private static let getInfo: [UInt8] = [0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x00]

    private static func captureProfile(_ arguments: [String]) throws -> Int32 {
        let options = try CommandLineOptions(arguments, valued: ["--reader", "--wait", "--output", "--base"], flags: [])
        guard options.positionals.isEmpty else { throw UsageError("unexpected argument '\(options.positionals[0])'") }
        guard let output = options.value("--output") else { throw UsageError("capture-profile needs --output FILE") }
        let base: CardProfile
        do {
            base = try CardProfile.named(options.value("--base") ?? CardProfile.default.name)
        } catch {
            throw UsageError("--base: \(error)")
        }

        let (reader, card) = try connect(options)
        try card.beginTransaction()
        defer { try? card.endTransaction() }
        let atr = try card.atr
        let exchange = ISO7816Exchange(card)
        let selected = try exchange.transmitFollowingResponseChain(NFCBinding.selectFIDOApplet)
        guard selected.suffix(2) == [0x90, 0x00] else {
            throw PCSCCommandError("the card in \(reader) refused SELECT of the FIDO applet (SW \(Hex.string(Array(selected.suffix(2))))): not a FIDO card?")
        }
        let info = try exchange.transmitFollowingResponseChain(getInfo)
        guard info.suffix(2) == [0x90, 0x00] else {
            throw PCSCCommandError("the card refused authenticatorGetInfo (SW \(Hex.string(Array(info.suffix(2))))): a U2F-only card has no CTAP2 profile")
        }
        let body = Array(info.dropLast(2))
        guard body.first == 0x00 else {
            throw PCSCCommandError("authenticatorGetInfo failed with CTAP status 0x\(Hex.string(Array(body.prefix(1))))")
        }
        let map: CBORMap
        do {
            guard let decoded = try CBORDecoder.decode(Array(body.dropFirst())).mapValue else {
                throw PCSCCommandError("authenticatorGetInfo's answer is not a CBOR map")
            }
            map = decoded
        } catch let error as CBORError {
            throw PCSCCommandError("authenticatorGetInfo's answer is not valid CBOR: \(error)")
        }

        var capture = ProfileCapture(base: base)
        try capture.apply(getInfo: map)
        capture.profile.selectResponse = String(decoding: selected.dropLast(2), as: UTF8.self)
        capture.profile.atr = Hex.string(atr)
        capture.profile.name = "captured-" + capture.profile.aaguid.prefix(8)
        capture.profile.description = "Captured from \(reader)"
        do {
            try capture.profile.validate()
        } catch {
            throw PCSCCommandError("the card's answers do not make a profile the emulator can serve: \(error)")
        }
        try capture.profile.jsonData().write(to: URL(fileURLWithPath: output), options: .atomic)
        _ = try CardProfile.load(path: output)
        if !capture.fromBase.isEmpty {
            Console.error("not reported by the card, taken from \(base.name): \(capture.fromBase.joined(separator: ", "))")
        }
        Console.output("wrote profile \(capture.profile.name) (\(capture.profile.versions.joined(separator: ", ")), AAGUID \(capture.profile.aaguid)) to \(output)")
        return ExitStatus.success
    }

    // MARK: - Shared

    /// Connects to the reader `--reader` names (or the first with a card), waiting `--wait`.
    private static func connect(_ options: CommandLineOptions) throws -> (String, PCSCCard) {
        var wait = Duration.zero
        if let text = options.value("--wait") {
            guard let seconds = Double(text), seconds >= 0, seconds <= 3600 else {
                throw UsageError("--wait wants seconds between 0 and 3600, not '\(text)'")
            }
            wait = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        let context = try PCSCContext()
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: wait)
        let reader: String
        if let requested = options.value("--reader") {
            reader = try resolve(requested, among: try context.readers())
            guard try context.waitForCardPresent(reader: reader, timeout: clock.now.duration(to: deadline)) else {
                throw PCSCCommandError("no card in \(reader)")
            }
        } else {
            var found: String?
            var readers: [String] = []
            repeat {
                readers = try context.readers()
                found = try context.status(ofReaders: readers).first { $0.isCardPresent }?.reader
                if found == nil, clock.now < deadline { Thread.sleep(forTimeInterval: 0.1) }
            } while found == nil && clock.now < deadline
            guard let found else {
                throw PCSCCommandError(readers.isEmpty
                    ? "no PC/SC readers (is pcscd running, with a reader or vsmartcard-vpcd?)"
                    : "no card in any reader (\(readers.joined(separator: ", "))); use --reader and --wait")
            }
            reader = found
        }
        return (reader, try context.connect(reader: reader))
    }

    /// `requested` as a full reader name, or the one reader whose name contains it.
    private static func resolve(_ requested: String, among readers: [String]) throws -> String {
        if readers.contains(requested) { return requested }
        let matching = readers.filter { $0.contains(requested) }
        guard matching.count == 1 else {
            let known = readers.isEmpty ? "there are no readers" : "readers: \(readers.joined(separator: ", "))"
            throw UsageError(matching.isEmpty ? "no reader matches '\(requested)' (\(known))"
                                              : "'\(requested)' matches several readers (\(matching.joined(separator: ", ")))")
        }
        return matching[0]
    }

    /// Hex with optional spaces/tabs; at least the 4 header bytes.
    private static func parseAPDU(_ text: String) throws -> [UInt8] {
        let digits = text.filter { $0 != " " && $0 != "\t" && $0 != ":" }
        guard let bytes = [UInt8](hex: digits) else {
            throw UsageError("'\(text)' is not an APDU in hex (e.g. 00A4040008A0000006472F000100)")
        }
        guard bytes.count >= 4 else {
            throw UsageError("'\(text)' is not an APDU: it needs at least CLA INS P1 P2 (4 bytes)")
        }
        return bytes
    }

}

/// A reader without a card, or a card that does not answer as `capture-profile` needs.
private struct PCSCCommandError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

/// authenticatorGetInfo (CTAP 2.1 §6.4) onto a ``CardProfile``: what the card reports replaces
/// the base profile's value; what it does not report is kept and listed in `fromBase`.
private struct ProfileCapture {
    var profile: CardProfile
    private(set) var fromBase: [String] = []

    init(base: CardProfile) {
        profile = base
    }

    mutating func apply(getInfo info: CBORMap) throws {
        profile.versions = try strings(info, 0x01, "versions") ?? profile.versions
        // An absent extensions member means none (CTAP 2.1 §6.4).
        profile.extensions = try strings(info, 0x02, "extensions", keep: false) ?? []
        guard let aaguid = info[int: 0x03]?.bytesValue, aaguid.count == 16 else {
            throw PCSCCommandError("getInfo has no 16-byte aaguid (0x03)")
        }
        profile.aaguid = Self.uuid(aaguid)
        // Absent options are false (CTAP 2.1 §6.4, "options").
        let options = info[int: 0x04]?.mapValue ?? CBORMap()
        profile.credentialManagement = options[text: "credMgmt"]?.boolValue ?? false
        profile.pinUvAuthToken = options[text: "pinUvAuthToken"]?.boolValue ?? false
        profile.makeCredUvNotRqd = options[text: "makeCredUvNotRqd"]?.boolValue ?? false
        profile.maxMsgSize = try int(info, 0x05, "maxMsgSize") ?? profile.maxMsgSize
        profile.pinUvAuthProtocols = try ints(info, 0x06, "pinUvAuthProtocols") ?? profile.pinUvAuthProtocols
        profile.maxCredentialCountInList = try int(info, 0x07, "maxCredentialCountInList") ?? profile.maxCredentialCountInList
        profile.maxCredentialIdLength = try int(info, 0x08, "maxCredentialIdLength") ?? profile.maxCredentialIdLength
        profile.transports = try strings(info, 0x09, "transports") ?? profile.transports
        if let algorithms = info[int: 0x0A] {
            guard let list = algorithms.arrayValue else { throw PCSCCommandError("getInfo algorithms (0x0A) is not an array") }
            profile.algorithms = try list.map { entry in
                guard let alg = entry.mapValue?[text: "alg"]?.intValue else {
                    throw PCSCCommandError("getInfo algorithms (0x0A) has an entry without an integer alg")
                }
                return alg
            }
        } else {
            fromBase.append("algorithms")
        }
        profile.minPINLength = try int(info, 0x0D, "minPINLength") ?? profile.minPINLength
        profile.firmwareVersion = try int(info, 0x0E, "firmwareVersion") ?? profile.firmwareVersion
        if let remaining = try int(info, 0x14, "remainingDiscoverableCredentials", keep: false) {
            profile.residentKeyCapacity = remaining
        } else {
            fromBase.append("residentKeyCapacity")
        }
    }

    private mutating func int(_ info: CBORMap, _ key: Int, _ name: String, keep: Bool = true) throws -> Int? {
        guard let value = info[int: key] else {
            if keep { fromBase.append(name) }
            return nil
        }
        guard let number = value.intValue else { throw PCSCCommandError("getInfo \(name) (0x\(String(key, radix: 16))) is not an integer") }
        return number
    }

    private mutating func ints(_ info: CBORMap, _ key: Int, _ name: String) throws -> [Int]? {
        guard let value = info[int: key] else {
            fromBase.append(name)
            return nil
        }
        guard let numbers = value.arrayValue?.compactMap(\.intValue), numbers.count == value.arrayValue?.count else {
            throw PCSCCommandError("getInfo \(name) (0x\(String(key, radix: 16))) is not an array of integers")
        }
        return numbers
    }

    private mutating func strings(_ info: CBORMap, _ key: Int, _ name: String, keep: Bool = true) throws -> [String]? {
        guard let value = info[int: key] else {
            if keep { fromBase.append(name) }
            return nil
        }
        guard let texts = value.arrayValue?.compactMap(\.textValue), texts.count == value.arrayValue?.count else {
            throw PCSCCommandError("getInfo \(name) (0x\(String(key, radix: 16))) is not an array of strings")
        }
        return texts
    }

    /// 8-4-4-4-12 lower-case hex.
    private static func uuid(_ bytes: [UInt8]) -> String {
        let hex = bytes.hexString
        var groups: [Substring] = []
        var start = hex.startIndex
        for length in [8, 4, 4, 4, 12] {
            let end = hex.index(start, offsetBy: length)
            groups.append(hex[start..<end])
            start = end
        }
        return groups.joined(separator: "-")
    }
}
