import ISO7816
import Testing
import FIDOWire
import TestSupport

@Suite("CommandAPDU parsing (ISO 7816-4 §5.1)")
struct CommandAPDUTests {
    struct Vector: CustomTestStringConvertible, Sendable {
        let name: String
        let hex: String
        let data: Int
        let ne: Int
        let extended: Bool
        var testDescription: String { name }
    }

    static let valid: [Vector] = [
        Vector(name: "case 1", hex: "00A40400", data: 0, ne: 0, extended: false),
        Vector(name: "case 2S Le 10", hex: "00C0000010", data: 0, ne: 16, extended: false),
        Vector(name: "case 2S Le 00 = 256", hex: "00C0000000", data: 0, ne: 256, extended: false),
        Vector(name: "case 3S", hex: "00A4040008A0000006472F0001", data: 8, ne: 0, extended: false),
        Vector(name: "case 4S", hex: "00A4040008A0000006472F000100", data: 8, ne: 256, extended: false),
        Vector(name: "case 4S Le 05", hex: "801080000104 05", data: 1, ne: 5, extended: false),
        Vector(name: "case 2E Le 0000 = 65536", hex: "00030000 000000", data: 0, ne: 65536, extended: true),
        Vector(name: "case 2E Le 0102", hex: "00030000 000102", data: 0, ne: 258, extended: true),
        Vector(name: "case 3E", hex: "80100000 000001 04", data: 1, ne: 0, extended: true),
        Vector(name: "case 4E", hex: "80100000 000002 0401 0000", data: 2, ne: 65536, extended: true),
        Vector(name: "case 4E Le 0100", hex: "80100000 000001 04 0100", data: 1, ne: 256, extended: true),
    ]

    @Test(arguments: valid)
    func parsesValidAPDU(_ vector: Vector) throws {
        let bytes = hex(vector.hex)
        let apdu = try CommandAPDU(parsing: bytes)
        #expect(apdu.data.count == vector.data)
        #expect(apdu.ne == vector.ne)
        #expect(apdu.isExtended == vector.extended || (vector.data == 0 && vector.ne == 0))
        #expect(apdu.encoded == bytes)
    }

    @Test func parsesFromSlice() throws {
        let bytes: [UInt8] = [0xFF, 0xFF] + hex("00A4040008A0000006472F000100")
        let apdu = try CommandAPDU(parsing: bytes[2...])
        #expect(apdu.data == NFCBinding.fidoAID)
        #expect(apdu.ne == 256)
    }

    @Test func longExtendedAPDU() throws {
        let data = (0..<1000).map { UInt8(truncatingIfNeeded: $0) }
        let built = CommandAPDU(cla: 0x80, ins: 0x10, p1: 0x80, p2: 0x00, data: data, ne: 65536)
        #expect(built.isExtended)
        #expect(Array(built.encoded.prefix(7)) == [0x80, 0x10, 0x80, 0x00, 0x00, 0x03, 0xE8])
        let parsed = try CommandAPDU(parsing: built.encoded)
        #expect(parsed == built)
    }

    struct Invalid: CustomTestStringConvertible, Sendable {
        let hex: String
        let error: CommandAPDU.ParseError
        var testDescription: String { hex.isEmpty ? "(empty)" : hex }
    }

    static let invalid: [Invalid] = [
        Invalid(hex: "", error: .missingHeader(count: 0)),
        Invalid(hex: "00", error: .missingHeader(count: 1)),
        Invalid(hex: "00A404", error: .missingHeader(count: 3)),
        Invalid(hex: "00A4040000 00", error: .zeroShortLc),
        Invalid(hex: "00A4040002 01", error: .lengthMismatch(declared: 2, bodyCount: 2)),
        Invalid(hex: "00A4040002 010203 04", error: .lengthMismatch(declared: 2, bodyCount: 5)),
        Invalid(hex: "00A4040001 01 0000", error: .lengthMismatch(declared: 1, bodyCount: 4)),
        Invalid(hex: "80100000 000000 01", error: .zeroExtendedLc),
        Invalid(hex: "80100000 000002 01", error: .lengthMismatch(declared: 2, bodyCount: 4)),
        Invalid(hex: "80100000 000001 01 00", error: .lengthMismatch(declared: 1, bodyCount: 5)),
        Invalid(hex: "80100000 000001 01 000000", error: .lengthMismatch(declared: 1, bodyCount: 7)),
    ]

    @Test(arguments: invalid)
    func rejectsInvalidAPDU(_ vector: Invalid) {
        #expect(throws: vector.error) { try CommandAPDU(parsing: hex(vector.hex)) }
    }

    /// Every strict prefix of a valid APDU is malformed, except those that are themselves a
    /// shorter valid encoding (the header alone, header + one Le byte, the case 2E form, and
    /// a case 4 command without its Le); those must re-encode to exactly the prefix.
    @Test(arguments: valid)
    func everyPrefix(_ vector: Vector) {
        let bytes = hex(vector.hex)
        for length in 0..<bytes.count {
            let prefix = Array(bytes.prefix(length))
            if let apdu = try? CommandAPDU(parsing: prefix) {
                #expect(apdu.encoded == prefix, "prefix \(length) of \(vector.name)")
                let shorterCase4 = vector.ne > 0 && vector.data > 0 && length == bytes.count - (vector.extended ? 2 : 1)
                let allowed = length == 4 || length == 5 || (vector.extended && length == 7) || shorterCase4
                #expect(allowed, "prefix \(length) of \(vector.name) parsed")
            } else {
                #expect(length != 4 && length != 5, "prefix \(length) of \(vector.name) failed")
                // The error says what is wrong: too few header bytes, an extended APDU cut after
                // its 00 (no short Lc is 00), or length fields the body does not match.
                let body = prefix.count - 4
                let expected: CommandAPDU.ParseError =
                    if length < 4 { .missingHeader(count: length) }
                    else if !vector.extended { .lengthMismatch(declared: Int(bytes[4]), bodyCount: body) }
                    else if body == 2 { .zeroShortLc }
                    else { .lengthMismatch(declared: Int(bytes[5]) << 8 | Int(bytes[6]), bodyCount: body) }
                #expect(throws: expected, "prefix \(length) of \(vector.name)") { try CommandAPDU(parsing: prefix) }
            }
        }
    }

    @Test func chainingBitAndClass() throws {
        let apdu = try CommandAPDU(parsing: hex("90100000 01 04"))
        #expect(apdu.isChained)
        #expect(apdu.commandClass == 0x80)
        #expect(try CommandAPDU(parsing: hex("80100000 01 04")).isChained == false)
    }

    @Test func responseLimit() throws {
        #expect(try CommandAPDU(parsing: hex("00A40400")).responseLimit == 256)
        #expect(try CommandAPDU(parsing: hex("00A4040001 01")).responseLimit == 256)
        #expect(try CommandAPDU(parsing: hex("00A4040001 01 10")).responseLimit == 16)
        #expect(try CommandAPDU(parsing: hex("80100000 000001 04")).responseLimit == 65536)
        #expect(try CommandAPDU(parsing: hex("80100000 000001 04 0200")).responseLimit == 512)
    }

    @Test func statusWordBytesAndNames() {
        #expect(StatusWord.success.bytes == [0x90, 0x00])
        #expect(StatusWord.bytesRemaining(0x30).bytes == [0x61, 0x30])
        #expect(StatusWord.bytesRemaining(256) == StatusWord(rawValue: 0x6100))
        #expect(StatusWord.bytesRemaining(1000) == StatusWord(rawValue: 0x6100))
        #expect(StatusWord.wrongData.description == "6A80")
        #expect(StatusWord(sw1: 0x69, sw2: 0x85) == .conditionsNotSatisfied)
        #expect(ResponseAPDU(parsing: [0x90]) == nil)
    }
}
