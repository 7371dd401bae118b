import JSONSupport
import Testing

/// How the project's JSON carries bytes: base64url out, without padding; base64url or standard
/// base64 in, padded or not.
@Suite("base64url")
struct Base64URLTests {
    @Test("no padding out; base64 and base64url, padded or not, in")
    func roundTrip() {
        #expect(Base64URL.encode([0xFB, 0xFF, 0xFE]) == "-__-")
        #expect(Base64URL.encode([0x61]) == "YQ")
        #expect(Base64URL.encode([]) == "")
        #expect(Base64URL.decode("-__-") == [0xFB, 0xFF, 0xFE])
        #expect(Base64URL.decode("+//+") == [0xFB, 0xFF, 0xFE])
        #expect(Base64URL.decode("YQ==") == [0x61])
        #expect(Base64URL.decode("YQ=") == [0x61])
        #expect(Base64URL.decode("YQ") == [0x61])
        #expect(Base64URL.decode("") == [])
    }

    @Test("what is not base64 decodes to nil", arguments: ["Y", "!!!!", "YQ Q", " YQ", "YQ\n", "Y=Q"])
    func refused(text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
