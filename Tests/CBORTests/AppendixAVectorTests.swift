import CBOR
import Testing
import TestSupport

/// RFC 8949 Appendix A, from `Fixtures/vectors/rfc8949-appendix-a.json`.
///
/// All definite-length maps of Appendix A happen to be in CTAP2 canonical key order, so
/// every accepted vector re-encodes to its exact input bytes.
@Suite("RFC 8949 Appendix A vectors")
struct AppendixAVectorTests {
    @Test("fixture file loads with every Appendix A row")
    func appendixALoads() throws {
        let vectors = try Fixtures.loadAppendixA()
        #expect(vectors.count == 81)
        #expect(Fixtures.appendixA.count == vectors.count)
        #expect(Fixtures.appendixAValid.count == 38)
        #expect(Fixtures.appendixAInvalid.count == 43)
        for vector in vectors where vector.expectError != nil {
            #expect(vector.expectedError != nil, "unknown expectError in \(vector.hex)")
            #expect(vector.roundtrip == false)
        }
    }

    @Test("accepted vectors decode to the expected diagnostic notation", arguments: Fixtures.appendixAValid)
    func decodesToDiagnostic(vector: AppendixAVector) throws {
        let value = try CBORDecoder.decode(try #require(TestHex.bytes(vector.hex)))
        #expect(value.diagnosticNotation == vector.diagnostic)
        #expect(value.description == vector.diagnostic)
    }

    @Test("accepted vectors re-encode to the same bytes", arguments: Fixtures.appendixAValid)
    func roundTrips(vector: AppendixAVector) throws {
        let bytes = try #require(TestHex.bytes(vector.hex))
        let value = try CBORDecoder.decode(bytes)
        let reencoded = CBOREncoder.encode(value)
        if vector.roundtrip {
            #expect(TestHex.string(reencoded) == vector.hex)
            #expect(value.encoded() == bytes)
        }
        // Whatever the input order, canonical re-encoding is stable and decodes back.
        #expect(try CBORDecoder.decode(reencoded) == value)
        #expect(CBOREncoder.encodedLength(of: value) == reencoded.count)
    }

    @Test("rejected vectors throw the exact error", arguments: Fixtures.appendixAInvalid)
    func rejects(vector: AppendixAVector) throws {
        let expected = try #require(vector.expectedError)
        #expect(throws: expected) {
            try CBORDecoder.decode(try #require(TestHex.bytes(vector.hex)))
        }
    }

    @Test("integer vectors decode to the expected cases")
    func integerCases() throws {
        #expect(try CBORDecoder.decode(hex("1bffffffffffffffff")) == .unsigned(.max))
        #expect(try CBORDecoder.decode(hex("3bffffffffffffffff")) == .negative(.max))
        #expect(try CBORDecoder.decode(hex("3903e7")) == .int(-1000))
        #expect(try CBORDecoder.decode(hex("3903e7")).intValue == -1000)
        #expect(try CBORDecoder.decode(hex("1b000000e8d4a51000")).intValue == 1_000_000_000_000)
        #expect(try CBORDecoder.decode(hex("64f0908591")) == .text("\u{10151}"))
        #expect(try CBORDecoder.decode(hex("63e6b0b4")) == .text("\u{6c34}"))
    }
}
