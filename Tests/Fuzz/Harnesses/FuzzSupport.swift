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
/// (Inlined, with the condition a plain value: it runs for every response of every input.)
@inline(__always)
func fuzzCheck(_ condition: Bool, _ message: @autoclosure () -> String,
               file: StaticString = #fileID, line: UInt = #line) {
    if !condition {
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

/// A fuzz input read as a small program: bytes, choices and pieces, each taken from the front.
/// Reading past the end gives zeros (and empty pieces), so every input is a whole program, and a
/// program cut short means its defaults: generators make value 0 the ordinary, valid choice.
struct FuzzInput {
    private var rest: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { rest = bytes }
    init(_ bytes: [UInt8]) { rest = bytes[...] }

    var isEmpty: Bool { rest.isEmpty }
    var remaining: Int { rest.count }

    mutating func byte() -> UInt8 {
        guard let first = rest.first else { return 0 }
        rest = rest.dropFirst()
        return first
    }

    /// A 16-bit big-endian number.
    mutating func uint16() -> Int { Int(byte()) << 8 | Int(byte()) }

    /// One of `count` choices.
    mutating func choice(_ count: Int) -> Int { count <= 1 ? 0 : Int(byte()) % count }

    /// One of `options` (the first when the input is used up).
    mutating func pick<T>(_ options: [T]) -> T { options[choice(options.count)] }

    mutating func bool() -> Bool { byte() & 1 != 0 }

    /// Up to `count` bytes (fewer at the end of the input).
    mutating func bytes(_ count: Int) -> [UInt8] {
        let taken = Array(rest.prefix(count))
        rest = rest.dropFirst(taken.count)
        return taken
    }

    /// A piece with a 2-byte big-endian length, as `LengthPrefixedPieces` reads them.
    mutating func piece() -> [UInt8] { bytes(uint16()) }

    /// A piece with a 1-byte length (short strings and byte strings of generated values).
    mutating func shortPiece() -> [UInt8] { bytes(Int(byte())) }
}

/// A deterministic filler: `count` bytes from `seed` (not random, but never all alike).
func fuzzFiller(_ count: Int, seed: UInt8) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
}

/// Hex of bytes, for messages.
func fuzzHex(_ bytes: some Sequence<UInt8>) -> String {
    bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
}

#if canImport(Glibc)
import Glibc
#endif

/// Whether to run an input twice and compare the responses (the determinism property): for every
/// input with ARCULUS_FUZZ_DETERMINISM=1 (`--reproduce`, and fuzz.sh's corpus check after
/// fuzzing), never with =0, and while fuzzing for one input in sixteen (chosen by a hash of the
/// input, so a reproduced input is checked the same way).
func shouldCheckDeterminism(_ input: [UInt8]) -> Bool {
    switch determinismSetting {
    case "1": return true
    case "0": return false
    default: return inputHash(input) % 16 == 0
    }
}

/// Whether the card target checks that SELECT + getInfo still answer after the input (a SELECT
/// and a getInfo cost about a fifth of an input): for every input with
/// ARCULUS_FUZZ_DETERMINISM=1 (the corpus check, `--reproduce`), else for one input in four, by
/// other bits of the same hash.
func shouldCheckRecovery(_ input: [UInt8]) -> Bool {
    determinismSetting == "1" || (inputHash(input) >> 4) % 4 == 0
}

/// Whether the ctap2 target holds every request's reading to the tree's (a second reading of
/// each request, through a tree, costs a fifth of an input): every input with
/// ARCULUS_FUZZ_DETERMINISM=1, else one in four.
func shouldCheckReading(_ input: [UInt8]) -> Bool {
    determinismSetting == "1" || (inputHash(input) >> 8) % 4 == 0
}

/// Whether the vpcd target formats the input's exchanges with the `--verbose` trace formatter
/// (a fifth of an input's cost): every input with ARCULUS_FUZZ_DETERMINISM=1, else one in four.
func shouldFormatTrace(_ input: [UInt8]) -> Bool {
    determinismSetting == "1" || (inputHash(input) >> 6) % 4 == 0
}

/// FNV-1a of the input: the same input is always sampled the same way.
private func inputHash(_ input: [UInt8]) -> UInt32 {
    var hash: UInt32 = 2_166_136_261
    for byte in input { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
    return hash
}

private let determinismSetting = getenv("ARCULUS_FUZZ_DETERMINISM").map { String(cString: $0) } ?? ""

/// With ARCULUS_FUZZ_TRACE=1 (for a reproduced input) the harnesses print every exchange.
let fuzzTracing = getenv("ARCULUS_FUZZ_TRACE").map { String(cString: $0) } == "1"

func fuzzTrace(_ line: @autoclosure () -> String) {
    if fuzzTracing { print(line()) }
}

/// `ARCULUS_FUZZ_BENCH=DIR fuzz-TARGET`: runs every input in DIR through the target (`test`, its
/// LLVMFuzzerTestOneInput) five times after one warm-up pass, prints the CPU time per input and
/// exits: a harness change measured without libFuzzer's mutations and bookkeeping in the way.
/// Called from each target's LLVMFuzzerInitialize.
func fuzzBenchmarkIfAsked(_ test: (UnsafePointer<UInt8>?, Int) -> Int32) {
    guard let directory = getenv("ARCULUS_FUZZ_BENCH").map({ String(cString: $0) }),
          let folder = opendir(directory) else { return }
    var inputs: [[UInt8]] = []
    while let entry = readdir(folder) {
        // d_name up to its NUL only: the record readdir returns may end before the array does.
        let name = withUnsafePointer(to: &entry.pointee.d_name) { String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)) }
        guard !name.hasPrefix("."), let file = fopen(directory + "/" + name, "rb") else { continue }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while case let count = fread(&buffer, 1, buffer.count, file), count > 0 { bytes += buffer.prefix(count) }
        fclose(file)
        inputs.append(bytes)
    }
    closedir(folder)
    func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
    for input in inputs { _ = input.withUnsafeBufferPointer { test($0.baseAddress, $0.count) } }
    let start = cpuSeconds()
    for _ in 0..<5 {
        for input in inputs { _ = input.withUnsafeBufferPointer { test($0.baseAddress, $0.count) } }
    }
    let perInput = (cpuSeconds() - start) / Double(5 * max(1, inputs.count))
    print("\(inputs.count) inputs, \(Int(perInput * 1e6)) µs CPU per input, \(Int(1 / max(perInput, 1e-9))) inputs per CPU second")
    exit(0)
}
