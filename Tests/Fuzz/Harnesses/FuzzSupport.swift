// Shared by every fuzz target (compiled into each harness binary by Tests/Fuzz/build.sh).
//
// libFuzzer calls `LLVMFuzzerTestOneInput` with arbitrary bytes. A target reports a finding by
// trapping (`fuzzCheck`), which libFuzzer records as a crash with the input that caused it.

/// The fuzz input as Swift bytes.
func fuzzBytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// A property every input must keep; a violation is a finding (trap, so libFuzzer saves the input).
func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
               file: StaticString = #fileID, line: UInt = #line) {
    if !condition() {
        fatalError("fuzz property violated: \(message())", file: file, line: line)
    }
}

/// Splits an input into length-prefixed pieces: each piece is a 2-byte big-endian length and
/// that many bytes. A length running past the end takes what is left, so every input means
/// something and the fuzzer need not get lengths exactly right.
struct LengthPrefixedPieces: Sequence, IteratorProtocol {
    private var rest: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { rest = bytes }

    mutating func next() -> [UInt8]? {
        guard rest.count >= 2 else { return nil }
        let length = Int(rest[rest.startIndex]) << 8 | Int(rest[rest.startIndex + 1])
        rest = rest.dropFirst(2)
        let piece = Array(rest.prefix(length))
        rest = rest.dropFirst(piece.count)
        return piece
    }

    /// The inverse: the input that splits into `pieces` (used to write seed corpora).
    static func encode(_ pieces: [[UInt8]]) -> [UInt8] {
        var out: [UInt8] = []
        for piece in pieces {
            out += [UInt8(piece.count >> 8 & 0xFF), UInt8(piece.count & 0xFF)] + piece
        }
        return out
    }
}

/// Hex of bytes, for messages.
func fuzzHex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

#if canImport(Glibc)
import Glibc
#endif

/// Whether to run an input twice and compare the responses (the determinism property): for every
/// input with ARCULUS_FUZZ_DETERMINISM=1, never with =0, and by default for one input in eight
/// (chosen by a hash of the input, so a reproduced input is checked the same way).
func shouldCheckDeterminism(_ input: [UInt8]) -> Bool {
    switch determinismSetting {
    case "1": return true
    case "0": return false
    default:
        var hash: UInt32 = 2_166_136_261
        for byte in input { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash % 8 == 0
    }
}

private let determinismSetting = getenv("ARCULUS_FUZZ_DETERMINISM").map { String(cString: $0) } ?? ""
