import ArculusCard
import Foundation
import Testing
import TestSupport
import Transcript
import FIDOWire

/// `Transcript.importPCSCSpy` on real pcsc-spy logs (Fixtures/pcsc-spy, see its README for how
/// they were made) and on hand-made logs in pcsc-spy's text format.
@Suite("pcsc-spy import")
struct PCSCSpyImportTests {
    static let fixtures = Repository.fixtures.appendingPathComponent("pcsc-spy")

    static func fixture(_ name: String) throws -> String {
        try String(contentsOf: fixtures.appendingPathComponent(name), encoding: .utf8)
    }

    static let select = bytes("00A4040008A0000006472F000100")
    static let getInfo = bytes("80108000010400")
    /// getInfo's answer in the fixture logs, copied from the raw log's bRecvBuffer line.
    static let getInfoResponse = bytes("""
        00AE0183665532465F5632684649444F5F325F30684649444F5F325F3102826B63726564\
        50726F746563746B686D61632D73656372657403503F59672F20AA4AFEB6F47E5E916B6D\
        9804A762726BF5627570F564706C6174F468637265644D676D74F569636C69656E745069\
        6EF56E70696E557641757468546F6B656EF5706D616B654372656455764E6F745271\
        64F505190800068202010708081880098163\
        6E66630A81A263616C672664747970656A7075626C69632D6B65790CF40D040E19020114\
        18319000
        """)
    static let getPINRetries = bytes("80 10 80 00 06 06 A2 01 02 02 01 00")

    static func bytes(_ hex: String) -> [UInt8] {
        [UInt8](hex: hex.filter { !$0.isWhitespace }) ?? []
    }

    // MARK: Real logs

    @Test("python-fido2's getInfo + getPINRetries session, in all three forms of the log",
          arguments: ["fido2-get-info-pin-retries.raw", "fido2-get-info-pin-retries.txt",
                      "fido2-get-info-pin-retries.color-d-t.txt"])
    func realLog(file: String) throws {
        let transcript = try Transcript.importPCSCSpy(try Self.fixture(file))
        #expect(transcript.header("source") == "pcsc-spy")
        #expect(transcript.header("reader") == "Virtual PCD 00 01")
        #expect(transcript.entries.first == .event(.powerOn))
        #expect(transcript.entries.last == .event(.powerOff), "python-fido2 disconnects with SCARD_UNPOWER_CARD")

        let exchanges = transcript.exchanges
        #expect(exchanges.count == 5)
        #expect(exchanges.first?.command == Self.select)
        #expect(exchanges.first?.response == Array("FIDO_2_0".utf8) + [0x90, 0x00])
        let getInfos = exchanges.filter { $0.command == Self.getInfo }
        #expect(getInfos.count == 3, "list_devices' probe, Ctap2's and ClientPin's")
        for exchange in getInfos {
            #expect(exchange.response == Self.getInfoResponse)
        }
        let info = try #require(try CBORDecoder.decode(Array(Self.getInfoResponse.dropFirst().dropLast(2))).mapValue)
        #expect(info[int: 3] == .bytes(try CardProfile.arculusFIDO21.aaguidBytes))

        #expect(exchanges.last?.command == Self.getPINRetries)
        #expect(exchanges.last?.response == Self.bytes("00A2030804F49000"), "8 retries, powerCycleState false")

        // What the text form writes, it reads back the same.
        #expect(try Transcript.parse(transcript.text).text == transcript.text)
        #expect(try Transcript.parse(transcript.text).entries == transcript.entries)
    }

    @Test("the three forms of the same session import to the same transcript")
    func formsAgree() throws {
        let raw = try Transcript.importPCSCSpy(try Self.fixture("fido2-get-info-pin-retries.raw"))
        #expect(try Transcript.importPCSCSpy(try Self.fixture("fido2-get-info-pin-retries.txt")) == raw)
        #expect(try Transcript.importPCSCSpy(try Self.fixture("fido2-get-info-pin-retries.color-d-t.txt")) == raw)
    }

    @Test("choosing the reader by a unique part of its name")
    func readerBySubstring() throws {
        let log = try Self.fixture("fido2-get-info-pin-retries.txt")
        #expect(try Transcript.importPCSCSpy(log, reader: "00 01").header("reader") == "Virtual PCD 00 01")
        #expect(throws: TranscriptError(line: 26, message: "no SCardConnect to a reader matching 'PCD 00 00' (readers connected: Virtual PCD 00 01)")) {
            try Transcript.importPCSCSpy(log, reader: "PCD 00 00")
        }
    }

    // MARK: Events and readers (hand-made logs)

    @Test("connect, reconnect and disconnect dispositions become card events")
    func events() throws {
        var log = SpyLog()
        log.connect("Reader A", handle: "0x0A")
        log.transmit("0x0A", send: "00A4040000", receive: "9000")
        log.reconnect("0x0A", initialization: 1)  // SCARD_RESET_CARD
        log.reconnect("0x0A", initialization: 2)  // SCARD_UNPOWER_CARD
        log.reconnect("0x0A", initialization: 0)  // SCARD_LEAVE_CARD: nothing
        log.endTransaction("0x0A", disposition: 1)
        log.disconnect("0x0A", disposition: 2)
        log.connect("Reader A", handle: "0x0B")
        log.disconnect("0x0B", disposition: 0)
        let transcript = try Transcript.importPCSCSpy(log.text)
        #expect(transcript.entries == [
            .event(.powerOn),
            .exchange(command: Self.bytes("00A4040000"), response: [0x90, 0x00], note: nil),
            .event(.reset),
            .event(.powerOff), .event(.powerOn),
            .event(.reset),
            .event(.powerOff),
            .event(.powerOn),
        ])
    }

    @Test("a removed card: the failed transmit is a comment, then 'removed', and the next connect 'tapped'")
    func removal() throws {
        var log = SpyLog()
        log.connect("Reader A", handle: "0x0A")
        log.transmit("0x0A", send: "00A4040000", receive: "", returnCode: 0x8010_0069, name: "SCARD_W_REMOVED_CARD")
        log.connect("Reader A", handle: "0x0B")
        log.transmit("0x0B", send: "00A4040000", receive: "6A82")
        let transcript = try Transcript.importPCSCSpy(log.text)
        #expect(transcript.entries == [
            .event(.powerOn),
            .comment("SCardTransmit failed: SCARD_W_REMOVED_CARD [0x80100069]"),
            .event(.removed),
            .event(.tapped),
            .exchange(command: Self.bytes("00A4040000"), response: [0x6A, 0x82], note: nil),
        ])
    }

    @Test("with two readers, only the chosen reader's card is imported; SCardStatus gives @atr")
    func twoReaders() throws {
        var log = SpyLog()
        log.connect("Reader A", handle: "0x0A")
        log.connect("Reader B", handle: "0x0B")
        log.status("0x0B", reader: "Reader B", atr: "3B8A8001417263756C7573456D7519")
        log.transmit("0x0A", send: "00A4040001AA", receive: "6A82")
        log.transmit("0x0B", send: "00B0000000", receive: "01029000")
        #expect(throws: TranscriptError(line: 12, message: "the application used several readers (Reader A, Reader B): choose one")) {
            try Transcript.importPCSCSpy(log.text)
        }
        let b = try Transcript.importPCSCSpy(log.text, reader: "Reader B")
        #expect(b.header("reader") == "Reader B")
        #expect(b.header("atr") == "3B8A8001417263756C7573456D7519")
        #expect(b.exchanges.map(\.command) == [Self.bytes("00B0000000")])
        let a = try Transcript.importPCSCSpy(log.text, reader: "A")
        #expect(a.header("atr") == nil)
        #expect(a.exchanges.map(\.command) == [Self.bytes("00A4040001AA")])
        #expect(throws: TranscriptError(line: 12, message: "several readers match 'Reader' (readers connected: Reader A, Reader B)")) {
            try Transcript.importPCSCSpy(log.text, reader: "Reader")
        }
    }

    @Test("hidden handles (pcsc-spy -d) follow the card connected at the time, and are refused when two are")
    func hiddenHandles() throws {
        var one = SpyLog()
        one.connect("Reader A", handle: "0x0A")
        one.transmit("0x????", send: "00A4040000", receive: "9000")
        one.disconnect("0x????", disposition: 0)
        one.connect("Reader B", handle: "0x0B")
        one.transmit("0x????", send: "00B0000000", receive: "9000")
        let a = try Transcript.importPCSCSpy(one.text, reader: "Reader A")
        #expect(a.exchanges.map(\.command) == [Self.bytes("00A4040000")])

        var two = SpyLog()
        two.connect("Reader A", handle: "0x0A")
        two.connect("Reader B", handle: "0x0B")
        two.transmit("0x????", send: "00A4040000", receive: "9000")
        #expect(throws: TranscriptError(line: 19, message: "SCardTransmit on a hidden handle (pcsc-spy -d) while cards in several readers are connected (Reader A, Reader B): record without -d")) {
            try Transcript.importPCSCSpy(two.text, reader: "Reader A")
        }
    }

    @Test("a failed SCardConnect (empty reader) connects nothing")
    func failedConnect() throws {
        var log = SpyLog()
        log.connect("Reader A", handle: "0x0A", returnCode: 0x8010_000C, name: "SCARD_E_NO_SMARTCARD")
        log.connect("Reader B", handle: "0x0B")
        log.transmit("0x0B", send: "00A4040000", receive: "9000")
        let transcript = try Transcript.importPCSCSpy(log.text)
        #expect(transcript.header("reader") == "Reader B")
        #expect(transcript.exchanges.count == 1)
    }

    @Test("a hexdump over several lines, 16 bytes a line")
    func longBuffer() throws {
        let response = (0..<300).map { UInt8($0 & 0xFF) } + [0x90, 0x00]
        var log = SpyLog()
        log.connect("Reader A", handle: "0x0A")
        log.transmit("0x0A", send: "80108000010400", receive: response.hexString)
        #expect(try Transcript.importPCSCSpy(log.text).exchanges.first?.response == response)
    }

    // MARK: Malformed logs

    static let malformed: [(name: String, log: String, error: TranscriptError)] = [
        ("empty", "",
         TranscriptError(line: 1, message: "no PC/SC calls found: not a pcsc-spy log (its text output or its raw FIFO log)")),
        ("not a log", "hello\nworld\n",
         TranscriptError(line: 1, message: "no PC/SC calls found: not a pcsc-spy log (its text output or its raw FIFO log)")),
        ("cut in the middle of a call", SpyLog.connected + "SCardTransmit\n i hCard: 0x0A\n",
         TranscriptError(line: 10, message: "SCardTransmit has no result line ('=>'): the log ends in the middle of the call")),
        ("parameter before any call", " i hCard: 0x0A\n",
         TranscriptError(line: 1, message: "parameter line outside a PC/SC call")),
        ("result before any call", " => Command successful. (SCARD_S_SUCCESS [0x00000000])  [0.000100]\n",
         TranscriptError(line: 1, message: "result line outside a PC/SC call")),
        ("result without a code", SpyLog.connected + "SCardBeginTransaction\n i hCard: 0x0A\n => Command successful.\n",
         TranscriptError(line: 12, message: "result line without a return code ('[0x…]')")),
        ("a call inside a call", "SCardConnect\n i hContext: 0x01\nSCardTransmit\n",
         TranscriptError(line: 3, message: "SCardTransmit starts before SCardConnect (line 1) has its result ('=>')")),
        ("hexdump shorter than its length", SpyLog.connected + SpyLog.transmitBlock(sendLength: 6),
         TranscriptError(line: 16, message: "bSendBuffer has 5 byte(s) but bSendLength says 6")),
        ("hexdump offset out of order",
         SpyLog.connected + SpyLog.transmitBlock().replacingOccurrences(of: " i  0000 00 A4", with: " i  0010 00 A4"),
         TranscriptError(line: 16, message: "bSendBuffer: hexdump offset 0010 where 0000 was expected")),
        ("hexdump with a non-hex byte",
         SpyLog.connected + SpyLog.transmitBlock().replacingOccurrences(of: " i  0000 00 A4", with: " i  0000 0G A4"),
         TranscriptError(line: 16, message: "bSendBuffer: '0G' is not a hex byte")),
        ("hexdump line without its buffer name",
         SpyLog.connected + SpyLog.transmitBlock().replacingOccurrences(of: " i bSendBuffer\n", with: ""),
         TranscriptError(line: 15, message: "hexdump line without a buffer name before it")),
        ("transmit without its buffer",
         SpyLog.connected + SpyLog.transmitBlock().replacingOccurrences(of: " i bSendBuffer\n i  0000 00 A4 04 00 00                                  .....\n", with: ""),
         TranscriptError(line: 10, message: "SCardTransmit without its bSendBuffer parameter")),
        ("transmit on a handle never connected", SpyLog.connected + SpyLog.transmitBlock(handle: "0x0C"),
         TranscriptError(line: 10, message: "SCardTransmit on handle 0x0C that no SCardConnect in the log opened (the log must begin before the application connects)")),
        ("no successful connect", "SCardEstablishContext\n i dwScope: SCARD_SCOPE_USER (0x00000000)\n o hContext: 0x01\n => Command successful. (SCARD_S_SUCCESS [0x00000000])  [0.000100]\n",
         TranscriptError(line: 5, message: "no card was connected: the log has no successful SCardConnect")),
        ("raw: a line without its thread", "7F00@>|1|2|SCardEstablishContext\nhello\n",
         TranscriptError(line: 2, message: "not a raw pcsc-spy line (THREAD@…)")),
        ("raw: the result of another call", "7F00@>|1|2|SCardConnect\n7F00@<|1|3|SCardTransmit|Command successful.|0x00000000\n",
         TranscriptError(line: 2, message: "result of SCardTransmit where SCardConnect's (line 1) was expected")),
        ("raw: too few parameters", "7F00@>|1|2|SCardConnect\n7F00@0x01\n7F00@<|1|3|SCardConnect|Command successful.|0x00000000\n",
         TranscriptError(line: 1, message: "SCardConnect has 1 parameter line(s), 8 expected")),
        ("raw: cut short", "7F00@>|1|2|SCardConnect\n7F00@0x01\n",
         TranscriptError(line: 1, message: "SCardConnect has no result line ('<|'): the log ends in the middle of the call")),
    ]

    @Test("malformed logs are refused with the line and the reason", arguments: malformed.indices)
    func malformedLog(index: Int) {
        let (name, log, error) = Self.malformed[index]
        #expect(throws: error, "\(name)") {
            try Transcript.importPCSCSpy(log)
        }
    }

    /// The calls of the raw fixture log: the lines each spans, and the entries the transcript
    /// gains once the call's result line is read.
    static let rawCalls: [(function: String, lines: ClosedRange<Int>, adds: [TranscriptEntry])] = [
        ("SCardEstablishContext", 1...4, []),
        ("SCardListReaders", 5...12, []),
        ("SCardFreeMemory", 13...16, []),
        ("SCardReleaseContext", 17...19, []),
        ("SCardEstablishContext", 20...23, []),
        ("SCardConnect", 24...33, [.event(.powerOn)]),
        ("SCardTransmit", 34...44, [.exchange(command: select, response: Array("FIDO_2_0".utf8) + [0x90, 0x00], note: nil)]),
        ("SCardTransmit", 45...55, [.exchange(command: getInfo, response: getInfoResponse, note: nil)]),
        ("SCardTransmit", 56...66, [.exchange(command: getInfo, response: getInfoResponse, note: nil)]),
        ("SCardTransmit", 67...77, [.exchange(command: getInfo, response: getInfoResponse, note: nil)]),
        ("SCardTransmit", 78...88, [.exchange(command: getPINRetries, response: bytes("00A2030804F49000"), note: nil)]),
        ("SCardDisconnect", 89...92, [.event(.powerOff)]),
        ("SCardReleaseContext", 93...95, []),
    ]

    /// What the first `count` lines of the raw fixture import to: nothing is a log; a cut
    /// inside a call is refused at the call's first line; a cut after a call's result line is
    /// the transcript of the calls so far, once a card was connected.
    static func rawPrefixOutcome(_ count: Int) -> Result<Transcript, TranscriptError> {
        guard count > 0 else {
            return .failure(TranscriptError(line: 1, message: "no PC/SC calls found: not a pcsc-spy log (its text output or its raw FIFO log)"))
        }
        if let open = rawCalls.first(where: { $0.lines.contains(count) && count != $0.lines.upperBound }) {
            return .failure(TranscriptError(line: open.lines.lowerBound,
                                            message: "\(open.function) has no result line ('<|'): the log ends in the middle of the call"))
        }
        let done = rawCalls.filter { $0.lines.upperBound <= count }
        guard done.contains(where: { $0.function == "SCardConnect" }) else {
            return .failure(TranscriptError(line: count, message: "no card was connected: the log has no successful SCardConnect"))
        }
        return .success(Transcript(headers: [.init("source", "pcsc-spy"), .init("reader", "Virtual PCD 00 01")],
                                   entries: done.flatMap(\.adds)))
    }

    @Test("every prefix of a real raw log: cut inside a call it is refused at that call, cut after one it imports what was said so far")
    func prefixes() throws {
        let lines = try Self.fixture("fido2-get-info-pin-retries.raw").split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 96, "95 lines and the empty string after the last line end")
        #expect(Self.rawCalls.last?.lines.upperBound == 95)
        for count in 0...lines.count {
            let prefix = lines.prefix(count).joined(separator: "\n")
            let outcome = Result { () throws(TranscriptError) in try Transcript.importPCSCSpy(prefix) }
            #expect(outcome == Self.rawPrefixOutcome(count), "the first \(count) line(s)")
        }
    }
}

/// Writes logs the way `pcsc-spy -n` prints them.
struct SpyLog {
    private(set) var text = ""

    /// One connected card ("Reader A", handle 0x0A): 9 lines.
    static var connected: String {
        var log = SpyLog()
        log.connect("Reader A", handle: "0x0A")
        return log.text
    }

    /// An SCardTransmit of `00 A4 04 00 00` answered `90 00`, from line 10 when after `connected`.
    static func transmitBlock(handle: String = "0x0A", sendLength: Int = 5) -> String {
        var log = SpyLog()
        log.transmit(handle, send: "00A4040000", receive: "9000", sendLength: sendLength)
        return log.text
    }

    mutating func connect(_ reader: String, handle: String, returnCode: UInt32 = 0, name: String = "SCARD_S_SUCCESS") {
        line("SCardConnect")
        line(" i hContext: 0x01")
        line(" i szReader \(reader)")
        line(" i dwShareMode: SCARD_SHARE_SHARED (0x00000002)")
        line(" i dwPreferredProtocols: 0x00000003 (T=0, T=1)")
        line(" i phCard 0x7FFD00000010 (140724603453456)")
        line(" o phCard \(handle) (10)")
        line(" o dwActiveProtocol: T=1 (0x00000002)")
        result(returnCode, name)
    }

    mutating func transmit(_ handle: String, send: String, receive: String, sendLength: Int? = nil,
                           returnCode: UInt32 = 0, name: String = "SCARD_S_SUCCESS") {
        let sent = [UInt8](hex: send) ?? []
        let received = [UInt8](hex: receive) ?? []
        line("SCardTransmit")
        line(" i hCard: \(handle)")
        line(" i pioSendPci.dwProtocol: 0x00000002")
        line(" i pioSendPci.cbPciLength: 0x00000010")
        line(" i bSendLength \(Self.dword(sendLength ?? sent.count)) (\(sendLength ?? sent.count))")
        line(" i bSendBuffer")
        for dumpLine in Self.hexdump(sent) { line(" i  " + dumpLine) }
        line(" o pioRecvPci.dwProtocol: 0x00000001")
        line(" o pioRecvPci.cbPciLength: 0x00000010")
        line(" o bRecvLength \(Self.dword(received.count)) (\(received.count))")
        line(" o bRecvBuffer")
        for dumpLine in Self.hexdump(received) { line(" o  " + dumpLine) }
        result(returnCode, name)
    }

    mutating func reconnect(_ handle: String, initialization: Int) {
        line("SCardReconnect")
        line(" i hCard: \(handle)")
        line(" i dwShareMode: SCARD_SHARE_SHARED (0x00000002)")
        line(" i dwPreferredProtocols: 0x00000003 (T=0, T=1)")
        line(" i dwInitialization \(Self.dword(initialization)) (\(initialization))")
        line(" o dwActiveProtocol: T=1 (0x00000002)")
        result(0, "SCARD_S_SUCCESS")
    }

    mutating func disconnect(_ handle: String, disposition: Int) {
        line("SCardDisconnect")
        line(" i hCard: \(handle)")
        line(" i dwDisposition: \(Self.dispositions[disposition]) (\(Self.dword(disposition)))")
        result(0, "SCARD_S_SUCCESS")
    }

    mutating func endTransaction(_ handle: String, disposition: Int) {
        line("SCardEndTransaction")
        line(" i hCard: \(handle)")
        line(" i dwDisposition: \(Self.dispositions[disposition]) (\(Self.dword(disposition)))")
        result(0, "SCARD_S_SUCCESS")
    }

    mutating func status(_ handle: String, reader: String, atr: String) {
        let bytes = [UInt8](hex: atr) ?? []
        line("SCardStatus")
        line(" i hCard: \(handle)")
        line(" i pcchReaderLen 0x00000100 (256)")
        line(" i pcbAtrLen 0x00000021 (33)")
        line(" o cchReaderLen \(Self.dword(reader.utf8.count + 1)) (\(reader.utf8.count + 1))")
        line(" o mszReaderName \(reader)")
        line(" o dwState 0x00000034 (52)")
        line(" o dwProtocol 0x00000002 (2)")
        line(" o bAtrLen \(Self.dword(bytes.count)) (\(bytes.count))")
        line(" o bAtr " + bytes.map { Self.hex2($0) + " " }.joined())
        result(0, "SCARD_S_SUCCESS")
    }

    private static let dispositions = ["SCARD_LEAVE_CARD", "SCARD_RESET_CARD", "SCARD_UNPOWER_CARD", "SCARD_EJECT_CARD"]

    private mutating func result(_ code: UInt32, _ name: String) {
        let text = code == 0 ? "Command successful." : "Failed."
        line(" => \(text) (\(name) [\(Self.dword(Int(code)))])  [0.000100]")
    }

    private mutating func line(_ text: String) {
        self.text += text + "\n"
    }

    private static func dword(_ value: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
    }

    private static func hex2(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return digits.count == 1 ? "0" + digits : digits
    }

    /// `0000 00 A4 04 00 00                                  .....`
    private static func hexdump(_ bytes: [UInt8]) -> [String] {
        stride(from: 0, to: bytes.count, by: 16).map { offset in
            let chunk = bytes[offset..<min(offset + 16, bytes.count)]
            var hex = chunk.map(hex2).joined(separator: " ")
            hex += String(repeating: " ", count: 47 - hex.count)
            let ascii = String(chunk.map { $0 > 31 && $0 < 127 ? Character(UnicodeScalar($0)) : "." })
            return "\(dword(offset).suffix(4)) \(hex) \(ascii)"
        }
    }
}
