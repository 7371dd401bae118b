import CardCrypto
import Testing

@Suite("ConstantTime.equals")
struct ConstantTimeTests {
    @Test("Equal, unequal, different lengths and empty inputs")
    func equality() {
        #expect(ConstantTime.equals([1, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2, 4]))
        #expect(!ConstantTime.equals([0, 2, 3], [1, 2, 3]))
        #expect(!ConstantTime.equals([1, 2, 3], [1, 2]))
        #expect(!ConstantTime.equals([], [0]))
        #expect(ConstantTime.equals([], []))
        let long = SecureRandom.bytes(64)
        #expect(ConstantTime.equals(long, long))
    }
}
