import Testing
@testable import VirtualReader

@Suite("APDU trace formatter")
struct APDUTraceFormatterTests {
    static let getInfoResponse: [UInt8] = [0x00, 0xA1, 0x01, 0x81, 0x68] + Array("FIDO_2_0".utf8) + [0x90, 0x00]

    @Test func getInfoIsNamedAndDecoded() {
        var formatter = APDUTraceFormatter()
        let lines = formatter.lines(command: [0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00], response: Self.getInfoResponse, elapsed: .microseconds(120))
        #expect(lines == [
            "> NFCCTAP_MSG 80 10 80 00  (1 bytes)",
            "  authenticatorGetInfo",
            "< (13 bytes) 9000 success  (120 µs)",
            "  CTAP2_OK {1: [\"FIDO_2_0\"]}",
        ])
    }

    @Test("the time: whole microseconds below 1 ms (never 0.00 ms), milliseconds with two decimals above")
    func elapsedTime() {
        #expect(APDUTraceFormatter.format(.nanoseconds(400)) == "1 µs")
        #expect(APDUTraceFormatter.format(.microseconds(7)) == "7 µs")
        #expect(APDUTraceFormatter.format(.microseconds(999)) == "999 µs")
        #expect(APDUTraceFormatter.format(.microseconds(1000)) == "1.00 ms")
        #expect(APDUTraceFormatter.format(.microseconds(1234)) == "1.23 ms")
        #expect(APDUTraceFormatter.format(.milliseconds(110)) == "110.00 ms")
    }

    @Test func selectAndErrorsAreHex() {
        var formatter = APDUTraceFormatter()
        let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x08, 0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01]
        #expect(formatter.lines(command: select, response: Array("FIDO_2_0".utf8) + [0x90, 0x00]) == [
            "> SELECT 00 A4 04 00 08 A0 00 00 06 47 2F 00 01",
            "< 46 49 44 4F 5F 32 5F 30 9000 success",
        ])
        #expect(formatter.lines(command: [0x00, 0xA4, 0x04, 0x00], response: [0x67, 0x00]) == [
            "> SELECT 00 A4 04 00",
            "< 6700 wrong length",
        ])
        #expect(formatter.lines(command: [0x00, 0xA4], response: [0x67, 0x00]) == [
            "> 00 A4  (malformed APDU)",
            "< 6700 wrong length",
        ])
    }

    @Test func ctapErrorStatusIsNamed() {
        var formatter = APDUTraceFormatter()
        let lines = formatter.lines(command: [0x80, 0x10, 0x00, 0x00, 0x01, 0x0B], response: [0x31, 0x90, 0x00])
        #expect(lines.last == "  CTAP2_ERR_PIN_INVALID")
        #expect(lines[1] == "  authenticatorSelection")
    }

    @Test func pinMaterialIsNeverShownInFull() {
        var formatter = APDUTraceFormatter()
        let pinHashEnc = (0..<16).map { UInt8(0xE0 + $0) }
        // clientPIN {1: 2, 2: 5, 6: pinHashEnc}
        let request: [UInt8] = [0x06, 0xA3, 0x01, 0x02, 0x02, 0x05, 0x06, 0x50] + pinHashEnc
        let token = (0..<32).map { UInt8(0x10 + $0) }
        let response: [UInt8] = [0x00, 0xA1, 0x02, 0x58, 0x20] + token + [0x90, 0x00]
        let lines = formatter.lines(command: [0x80, 0x10, 0x80, 0x00, UInt8(request.count)] + request + [0x00], response: response)
        let text = lines.joined(separator: "\n")
        #expect(lines[1] == "  authenticatorClientPIN {1: 2, 2: 5, 6: h'e0e1e2e3…' /16 bytes/}")
        #expect(lines[3] == "  CTAP2_OK {2: h'10111213…' /32 bytes/}")
        #expect(!text.contains("e4e5"))
        #expect(!text.uppercased().contains("E4 E5"))
        #expect(!text.contains("14151617"))
    }

    /// A getAssertion answer {1: credential, 2: authData, 3: signature, 7: largeBlobKey} for
    /// the command `command` (0x02), or a credential management one {11: largeBlobKey}.
    @Test("largeBlobKey (makeCredential 0x05, getAssertion 0x07, credential management 0x0B) is a key: the trace shows its length only",
          arguments: [(UInt8(0x01), UInt8(0x05)), (0x02, 0x07), (0x0A, 0x0B), (0x41, 0x0B)])
    func largeBlobKeyIsHidden(command: UInt8, key: UInt8) {
        var formatter = APDUTraceFormatter()
        let largeBlobKey = (0..<32).map { UInt8(0xB0 + $0) }
        let request: [UInt8] = [command, 0xA0]
        let response: [UInt8] = [0x00, 0xA1, key, 0x58, 0x20] + largeBlobKey + [0x90, 0x00]
        let lines = formatter.lines(command: [0x80, 0x10, 0x80, 0x00, UInt8(request.count)] + request + [0x00], response: response)
        let text = lines.joined(separator: "\n")
        #expect(lines.last == "  CTAP2_OK {\(key): h'…' /32 bytes/}")
        #expect(!text.lowercased().contains("b0b1") && !text.uppercased().contains("B0 B1"))
    }

    @Test("hmac-secret's saltEnc and saltAuth in a getAssertion request show their first bytes only")
    func hmacSecretSaltsAreAbbreviated() {
        var formatter = APDUTraceFormatter()
        let saltEnc = (0..<48).map { UInt8(0x30 + $0) }
        let saltAuth = (0..<32).map { UInt8(0xC0 + $0) }
        // getAssertion {4: {"hmac-secret": {2: saltEnc, 3: saltAuth}}}
        let request: [UInt8] = [0x02, 0xA1, 0x04, 0xA1, 0x6B] + Array("hmac-secret".utf8) + [0xA2, 0x02, 0x58, 0x30] + saltEnc
            + [0x03, 0x58, 0x20] + saltAuth
        let lines = formatter.lines(command: [0x80, 0x10, 0x80, 0x00, UInt8(request.count)] + request + [0x00], response: [0x2E, 0x90, 0x00])
        #expect(lines[1] == "  authenticatorGetAssertion {4: {\"hmac-secret\": {2: h'30313233…' /48 bytes/, 3: h'c0c1c2c3…' /32 bytes/}}}")
    }

    @Test func makeCredentialPinUvAuthParamAndLongBytes() {
        var formatter = APDUTraceFormatter()
        let param = [UInt8](repeating: 0xAB, count: 32)
        let long = [UInt8](repeating: 0xCD, count: 100)
        // {1: long bytes, 8: pinUvAuthParam}
        let request: [UInt8] = [0x01, 0xA2, 0x01, 0x58, 0x64] + long + [0x08, 0x58, 0x20] + param
        let lines = formatter.lines(command: [0x80, 0x10, 0x80, 0x00, UInt8(request.count)] + request + [0x00], response: [0x00, 0x90, 0x00])
        #expect(lines[1] == "  authenticatorMakeCredential {1: h'\(String(repeating: "cd", count: 16))…' /100 bytes/, 8: h'abababab…' /32 bytes/}")
        #expect(lines[3] == "  CTAP2_OK")
    }

    @Test func chainedPiecesAreShownByLengthThenTheWholeIsDecoded() {
        var formatter = APDUTraceFormatter()
        // getInfo-shaped request split over two pieces: [04] then nothing? Use clientPIN {1: 2}.
        let piece1: [UInt8] = [0x90, 0x10, 0x80, 0x00, 0x02, 0x06, 0xA1]
        let piece2: [UInt8] = [0x80, 0x10, 0x80, 0x00, 0x02, 0x01, 0x02, 0x00]
        let first = formatter.lines(command: piece1, response: [0x90, 0x00])
        // No hex for a piece of a CTAP message: it would show PIN/UV material in full.
        #expect(first == ["> NFCCTAP_MSG piece 90 10 80 00  (chained, 2 bytes)", "< 9000 success"])
        let second = formatter.lines(command: piece2, response: [0x00, 0xA0, 0x90, 0x00])
        #expect(second == [
            "> NFCCTAP_MSG 80 10 80 00  (4 bytes)",
            "  authenticatorClientPIN {1: 2}",
            "< (2 bytes) 9000 success",
            "  CTAP2_OK {}",
        ])
    }

    @Test func responsePiecesAreReassembled() {
        var formatter = APDUTraceFormatter()
        // CTAP2_OK {1: h'<300 bytes>'}
        let body: [UInt8] = [0x00, 0xA1, 0x01, 0x59, 0x01, 0x2C] + [UInt8](repeating: 0x77, count: 300)
        let first = formatter.lines(command: [0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00], response: Array(body.prefix(256)) + [0x61, 0x32])
        #expect(first.count == 3)
        #expect(first[2] == "< (256 bytes) 6132 50 bytes remaining")
        let second = formatter.lines(command: [0x80, 0xC0, 0x00, 0x00, 0x32], response: Array(body.dropFirst(256)) + [0x90, 0x00])
        #expect(second == [
            "> GET RESPONSE 80 C0 00 00 32",
            "< (306 bytes) 9000 success",
            "  CTAP2_OK {1: h'\(String(repeating: "77", count: 16))…' /300 bytes/}",
        ])
    }

    @Test func busyAndCancel() {
        var formatter = APDUTraceFormatter()
        _ = formatter.lines(command: [0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00], response: [0x01, 0x91, 0x00])
        #expect(formatter.lines(command: [0x80, 0x11, 0x00, 0x00, 0x00], response: [0x01, 0x91, 0x00]) == [
            "> NFCCTAP_GETRESPONSE 80 11 00 00  (poll)",
            "< 01 9100 still processing (keepalive PROCESSING)",
        ])
        #expect(formatter.lines(command: [0x80, 0x11, 0x11, 0x00, 0x00], response: [0x2D, 0x90, 0x00]) == [
            "> NFCCTAP_GETRESPONSE 80 11 11 00  (cancel)",
            "< (1 bytes) 9000 success",
            "  CTAP2_ERR_KEEPALIVE_CANCEL",
        ])
    }

    @Test func undecodableCBORDoesNotHideTheBytes() {
        var formatter = APDUTraceFormatter()
        let lines = formatter.lines(command: [0x80, 0x10, 0x80, 0x00, 0x02, 0x01, 0xFF, 0x00], response: [0x12, 0x90, 0x00])
        #expect(lines[1].hasPrefix("  authenticatorMakeCredential (undecodable CBOR:"))
        #expect(lines[1].hasSuffix("FF"))
        #expect(lines[3] == "  CTAP2_ERR_INVALID_CBOR")
    }
}
