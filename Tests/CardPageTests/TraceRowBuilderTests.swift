@testable import CardPage
import FIDOWire
import Testing
import VirtualReader

@Suite("the card page's trace rows")
struct TraceRowBuilderTests {
    static func exchange(_ command: [UInt8], _ response: [UInt8]) -> VPCDBridge.Event {
        .exchange(command: command, response: response, elapsed: .milliseconds(2))
    }

    @Test func oneMessageInPiecesIsOneRowWithItsSecretsHidden() {
        var builder = TraceRowBuilder()
        builder.now = { 1_700_000_000 }
        // clientPIN getPinUvAuthTokenUsingPinWithPermissions {1: 2, 2: 9, 3: {…}, 6: h'AABB…' (pinHashEnc), 9: 3, 10: "example.com"}:
        // sent in two chained pieces, its answer in two 61xx pieces.
        let pinHashEnc = [UInt8](repeating: 0xAB, count: 32)
        let cbor: [UInt8] = [0x06, 0xA4, 0x01, 0x02, 0x02, 0x09, 0x06, 0x58, 0x20] + pinHashEnc + [0x09, 0x03]
        let request = cbor
        let first = Array(request.prefix(20)), rest = Array(request.dropFirst(20))
        var rows = builder.rows(for: Self.exchange([0x90, 0x10, 0x00, 0x00, UInt8(first.count)] + first, [0x90, 0x00]))
        #expect(rows.isEmpty)
        rows = builder.rows(for: Self.exchange([0x80, 0x10, 0x00, 0x00, UInt8(rest.count)] + rest + [0x00], [0x00, 0xA1, 0x61, 0x03]))
        #expect(rows.isEmpty)
        let token = [UInt8](repeating: 0xCD, count: 0x20)
        rows = builder.rows(for: Self.exchange([0x00, 0xC0, 0x00, 0x00, 0x00], [0x02, 0x58, 0x20] + token + [0x90, 0x00]))
        #expect(rows.count == 1)
        let row = rows[0]
        #expect(row.kind == .ctap)
        #expect(row.command == "authenticatorClientPIN (getPinUvAuthTokenUsingPinWithPermissions)")
        #expect(row.status == "CTAP2_OK")
        #expect(row.ok)
        #expect(row.duration == .milliseconds(6))
        #expect(row.apdus.count >= 6)
        #expect(row.request == "{1: 2, 2: 9, 6: h'abababab…' /32 bytes/, 9: 3}")
        #expect(row.response == "{2: h'cdcdcdcd…' /32 bytes/}")
        let everything = ([row.request ?? "", row.response ?? ""] + row.apdus).joined()
        #expect(!everything.contains(Hex.string(pinHashEnc, uppercase: false)) && !everything.contains(Hex.string(token, uppercase: false)))
        #expect(!everything.lowercased().contains(String(repeating: "cd ", count: 8)))
    }

    @Test func aCardStillWorkingIsPolledWithinOneRow() {
        var builder = TraceRowBuilder()
        #expect(builder.rows(for: Self.exchange([0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00], [0x01, 0x91, 0x00])).isEmpty)
        #expect(builder.rows(for: Self.exchange([0x80, 0x11, 0x00, 0x00, 0x00], [0x01, 0x91, 0x00])).isEmpty)
        let rows = builder.rows(for: Self.exchange([0x80, 0x11, 0x00, 0x00, 0x00], [0x2E, 0x90, 0x00]))
        #expect(rows.map(\.command) == ["authenticatorGetInfo"])
        #expect(rows.map(\.status) == ["CTAP2_ERR_NO_CREDENTIALS"])
        #expect(rows.map(\.ok) == [false])
    }

    @Test func isoAndU2FMessagesAndReaderEventsAreRowsOfTheirOwn() {
        var builder = TraceRowBuilder()
        let select = NFCBinding.selectFIDOApplet
        let rows = builder.rows(for: Self.exchange(select, Array("FIDO_2_0".utf8) + [0x90, 0x00]))
            + builder.rows(for: Self.exchange([0x00, 0x03, 0x00, 0x00, 0x00], Array("U2F_V2".utf8) + [0x90, 0x00]))
            + builder.rows(for: Self.exchange([0x00, 0xB0, 0x00, 0x00, 0x00], [0x6D, 0x00]))
            + builder.rows(for: .powerOff)
        #expect(rows.map(\.command) == ["SELECT FIDO", "U2F_VERSION", "INS B0", "power off"])
        #expect(rows.map(\.status) == ["9000", "9000", "6D00", ""])
        #expect(rows.map(\.kind) == [.iso, .u2f, .iso, .reader])
        #expect(rows.map(\.id) == [1, 2, 3, 4])
    }

    @Test func aMessageCutShortByTheCardLeavingEndsWithoutAnAnswer() {
        var builder = TraceRowBuilder()
        #expect(builder.rows(for: Self.exchange([0x90, 0x10, 0x00, 0x00, 0x01, 0x01], [0x90, 0x00])).isEmpty)
        let rows = builder.rows(for: .disconnected(.removeAndTap(after: .seconds(1))))
        #expect(rows.map(\.command) == ["authenticatorMakeCredential", "card off the reader"])
        #expect(rows.map(\.status) == ["no answer", ""])
        #expect(rows[1].response == "card taken off the reader, tapping again in 1 s")
    }
}
