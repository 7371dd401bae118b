import Foundation
import PCSC
import Testing
import TestSupport

/// The PC/SC client against the emulated card on the virtual reader, through the real pcscd:
/// each test starts `arculus-card serve --slot 1` with a blank card of its own.
///
/// Skipped with a message when pcscd (or its vpcd reader) is not there; in CI (`CI=true`) they
/// run anyway and fail, because a CI run that skipped them would prove nothing.
@Suite("PC/SC client through pcscd + vpcd", .serialized,
       .enabled(if: virtualReader.shouldRun, Comment(rawValue: virtualReader.unavailable)))
final class PCSCCardTests {
    static let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x08, 0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01, 0x00]
    static let getInfo: [UInt8] = [0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x00]

    /// The profile the card is served with, read from its fixture file (the emulator's
    /// built-in profile has the same values; a test in CTAP2Tests keeps them equal).
    struct Profile {
        let name: String
        let atr: [UInt8]
        let aaguid: [UInt8]
        let selectResponse: String

        static func load(_ name: String) throws -> Profile {
            let url = Repository.fixtures.appendingPathComponent("profiles/\(name).json")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
            let atr = try #require(json["atr"] as? String)
            let aaguid = try #require(json["aaguid"] as? String)
            return Profile(name: name, atr: try #require(TestHex.bytes(atr)),
                           aaguid: try #require(TestHex.bytes(aaguid.replacingOccurrences(of: "-", with: ""))),
                           selectResponse: try #require(json["selectResponse"] as? String))
        }
    }

    let profile: Profile
    let served: ServedCard

    init() throws {
        profile = try Profile.load("arculus-fido2")
        served = try ServedCard(profile: profile.name, aaguid: profile.aaguid)
    }

    /// Whether a getInfo answer carries `aaguid` (member 0x03, a 16-byte string: `03 50 …`).
    static func aaguid(inGetInfo response: [UInt8]) -> [UInt8]? {
        let marker: [UInt8] = [0x03, 0x50]
        for start in response.indices.dropLast(18) where Array(response[start..<start + 2]) == marker {
            return Array(response[start + 2..<start + 18])
        }
        return nil
    }

    private func connect(_ shareMode: PCSCShareMode = .shared) throws -> (PCSCContext, PCSCCard) {
        let context = try PCSCContext()
        return (context, try context.connect(reader: virtualReader.name, shareMode: shareMode))
    }

    @Test("readers() lists the virtual reader, and status() sees the card and its ATR")
    func listsReader() throws {
        let context = try PCSCContext()
        let readers = try context.readers()
        #expect(readers.contains(virtualReader.name))
        let status = try #require(try context.status(ofReaders: [virtualReader.name]).first)
        #expect(status.isCardPresent)
        #expect(!status.isEmpty)
        #expect(status.atr == profile.atr)
    }

    @Test("connect: T=1, the profile's ATR, the FIDO applet's SELECT answer")
    func connectAndSelect() throws {
        let (_, card) = try connect()
        #expect(card.activeProtocol == .t1)
        #expect(try card.atr == profile.atr)
        #expect(try card.transmit(Self.select) == Array(profile.selectResponse.utf8) + [0x90, 0x00])
    }

    @Test("getInfo with a short Le comes back in pieces behind 61xx and is put together")
    func getInfoFollowingResponseChain() throws {
        let (_, card) = try connect()
        #expect(try card.transmit(Self.select).suffix(2) == [0x90, 0x00])
        let whole = try card.transmit(Self.getInfo)
        #expect(whole.suffix(2) == [0x90, 0x00])
        #expect(Self.aaguid(inGetInfo: whole) == profile.aaguid)

        // Le 0x20: the card sends 32 bytes and 61xx for the rest.
        var wire: [(command: [UInt8], response: [UInt8])] = []
        let chained = try ISO7816Exchange(card).transmitFollowingResponseChain([0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x20]) {
            wire.append(($0, $1))
        }
        #expect(chained == whole)
        // 32 bytes and 61xx with xx = what is left (under 256 here), then one GET RESPONSE for it.
        let rest = whole.count - 2 - 32
        try #require(wire.count == 2)
        #expect(wire[0].response.count == 34)
        #expect(Array(wire[0].response.suffix(2)) == [0x61, UInt8(rest)])
        #expect(wire[1].command == [0x00, 0xC0, 0x00, 0x00, UInt8(rest)])
        #expect(wire[1].response.count == rest + 2)
    }

    @Test("an extended APDU gets the whole answer at once")
    func extendedAPDU() throws {
        let (_, card) = try connect()
        _ = try card.transmit(Self.select)
        let extended = try card.transmit([0x80, 0x10, 0x00, 0x00, 0x00, 0x00, 0x01, 0x04, 0x00, 0x00])
        #expect(extended == (try card.transmit(Self.getInfo)))
    }

    @Test("transactions: begin/end around APDUs; ending one that was not begun is SCARD_E_NOT_TRANSACTED")
    func transaction() throws {
        let (_, card) = try connect()
        try card.beginTransaction()
        #expect(try card.transmit(Self.select).suffix(2) == [0x90, 0x00])
        try card.endTransaction()
        let error = try #require(throws: PCSCError.self) { try card.endTransaction() }
        #expect(error.code == .notTransacted)
        #expect(error.name == "SCARD_E_NOT_TRANSACTED")
    }

    @Test("a card held exclusively refuses a second connection until it is let go")
    func sharing() throws {
        let (_, first) = try connect(.exclusive)
        #expect(try first.transmit(Self.select).suffix(2) == [0x90, 0x00])
        let other = try PCSCContext()
        let error = try #require(throws: PCSCError.self) { try other.connect(reader: virtualReader.name) }
        #expect(error.code == .sharingViolation)
        try first.disconnect()
        _ = try other.connect(reader: virtualReader.name)
    }

    @Test("reconnect with reset or unpower resets the card: the applet is no longer selected (6985)",
          arguments: [PCSCDisposition.reset, .unpower])
    func reconnectResets(disposition: PCSCDisposition) throws {
        let (_, card) = try connect()
        _ = try card.transmit(Self.select)
        #expect(try card.transmit(Self.getInfo).suffix(2) == [0x90, 0x00])
        try card.reconnect(disposition: disposition)
        #expect(try card.atr == profile.atr)
        #expect(try card.transmit(Self.getInfo) == [0x69, 0x85])
        try card.reconnect(disposition: .leave)
        _ = try card.transmit(Self.select)
        #expect(try card.transmit(Self.getInfo).suffix(2) == [0x90, 0x00], "leave keeps the card as it is")
    }

    @Test("after disconnect, the handle is refused with SCARD_E_INVALID_HANDLE")
    func disconnected() throws {
        let (_, card) = try connect()
        try card.disconnect()
        let error = try #require(throws: PCSCError.self) { try card.transmit(Self.select) }
        #expect(error.code == .invalidHandle)
        #expect(error.function == "SCardTransmit")
    }

    @Test("waitForCardPresent: true at once with a card; false after the timeout once it is gone; unknown readers throw")
    func waitForCard() throws {
        let context = try PCSCContext()
        #expect(try context.waitForCardPresent(reader: virtualReader.name, timeout: .seconds(1)))
        served.stop()
        let start = ContinuousClock.now
        #expect(try context.waitForCardPresent(reader: virtualReader.name, timeout: .milliseconds(300)) == false)
        #expect(ContinuousClock.now - start >= .milliseconds(250))
        let error = try #require(throws: PCSCError.self) {
            try context.waitForCardPresent(reader: "No Such Reader 99", timeout: .milliseconds(100))
        }
        #expect(error.code == .unknownReader)
    }

    @Test("connecting to an empty reader is SCARD_E_NO_SMARTCARD; to an unknown one SCARD_E_UNKNOWN_READER")
    func connectErrors() throws {
        served.stop()
        let context = try PCSCContext()
        let empty = try #require(throws: PCSCError.self) { try context.connect(reader: virtualReader.name) }
        #expect(empty.code == .noSmartcard)
        #expect(empty.description.hasPrefix("SCardConnect failed: SCARD_E_NO_SMARTCARD (0x8010000C): "))
        let unknown = try #require(throws: PCSCError.self) { try context.connect(reader: "No Such Reader 99") }
        #expect(unknown.code == .unknownReader)
    }
}
