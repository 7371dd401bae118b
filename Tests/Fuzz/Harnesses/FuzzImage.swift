import ArculusCard
import CardCrypto
import FIDOWire

// Target `image`: the card image decoder (`CardImageFormat.state(fromImage:path:)`), which reads a
// file that a crash, a full disk or a person may have left in any shape.
//
// Input: a mode byte, then
//   mode bit 0 clear: the image bytes as they are;
//   mode bit 0 set:   length-prefixed records (`LengthPrefixedPieces`), each a kind byte and a
//                     payload; the harness adds the magic, the format version, each record's
//                     length, a correct checksum (and in version 3 the second length and the end
//                     mark), so the fuzzer reaches the snapshot and journal decoding behind the
//                     checksums it cannot forge. Mode bit 1 then appends the rest of the input
//                     after the last piece as a raw tail (what follows the last record: a torn
//                     append, or damage); mode bit 2 builds a version 2 image.
// Properties: decoding never traps; a decoded state keeps the card's invariants; and a state
// encoded as an image decodes to itself.

@_cdecl("LLVMFuzzerInitialize")
public func fuzzImageInitialize(_ argc: UnsafeMutablePointer<Int32>?,
                                _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    fuzzBenchmarkIfAsked(fuzzImageTestOneInput)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzBytes(data, size)
    guard let mode = input.first else { return 0 }
    let image = mode & 0x01 == 0 ? Array(input.dropFirst()) : imageWithChecksums(input.dropFirst(), rawTail: mode & 0x02 != 0,
                                                                                  version: mode & 0x04 != 0 ? 2 : 3)
    guard let state = try? CardImageFormat.state(fromImage: image, path: "fuzz.img") else { return 0 }
    fuzzCheck((0...CardState.maximumPINRetries).contains(state.pinRetries), "PIN retries \(state.pinRetries)")
    fuzzCheck(state.masterSecret.count == 32, "master secret of \(state.masterSecret.count) bytes")
    fuzzCheck(state.pinHash == nil || state.pinHash?.count == 16, "PIN hash of \(state.pinHash?.count ?? 0) bytes")
    fuzzCheck(state.residentCredentials.allSatisfy { $0.privateKey.count == 32 && (1...3).contains($0.credProtect) },
              "a stored credential with a bad key or credProtect")
    let again = try? CardImageFormat.state(fromImage: CardImageFormat.encode(state), path: "fuzz.img")
    fuzzCheck(again == state, "encode → decode changed the state")
    return 0
}
