import PCSC
import Testing

@Suite("PCSCError")
struct PCSCErrorTests {
    static let names: [(PCSCError.Code, String, UInt32)] = [
        (.noReadersAvailable, "SCARD_E_NO_READERS_AVAILABLE", 0x8010_002E),
        (.noService, "SCARD_E_NO_SERVICE", 0x8010_001D),
        (.noSmartcard, "SCARD_E_NO_SMARTCARD", 0x8010_000C),
        (.unknownReader, "SCARD_E_UNKNOWN_READER", 0x8010_0009),
        (.timeout, "SCARD_E_TIMEOUT", 0x8010_000A),
        (.sharingViolation, "SCARD_E_SHARING_VIOLATION", 0x8010_000B),
        (.removedCard, "SCARD_W_REMOVED_CARD", 0x8010_0069),
        (.resetCard, "SCARD_W_RESET_CARD", 0x8010_0068),
        (.notTransacted, "SCARD_E_NOT_TRANSACTED", 0x8010_0016),
        (.invalidHandle, "SCARD_E_INVALID_HANDLE", 0x8010_0003),
    ]

    @Test("codes carry pcsclite.h's names and values", arguments: names.indices)
    func name(index: Int) {
        let (code, name, value) = Self.names[index]
        #expect(code.name == name)
        #expect(code.rawValue == value)
        #expect(PCSCError.Code(rawValue: value) == code)
    }

    @Test("the error says which call failed, the code's name and value, and pcsc-lite's text")
    func description() {
        let error = PCSCError(function: "SCardListReaders", code: .noReadersAvailable)
        #expect(error.name == "SCARD_E_NO_READERS_AVAILABLE")
        #expect(error.message == "Cannot find a smart card reader.")
        #expect(error.description == "SCardListReaders failed: SCARD_E_NO_READERS_AVAILABLE (0x8010002E): Cannot find a smart card reader.")
    }

    @Test("a code pcsclite.h does not define is shown as hex")
    func unknownCode() {
        let code = PCSCError.Code(rawValue: 0x1234_5678)
        #expect(code.name == "0x12345678")
        #expect(code.description == "0x12345678")
    }
}
