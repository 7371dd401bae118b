import ArculusCard

// Target `image`: the card image decoder (`CardImageFile.state(fromImage:path:)`), which reads a
// file that a crash, a full disk or a person may have left in any shape.
//
// Properties: decoding never traps; a decoded state keeps the card's invariants; and a state
// encoded as an image decodes to itself.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzImageTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzBytes(data, size)
    guard let state = try? CardImageFile.state(fromImage: input, path: "fuzz.img") else { return 0 }
    fuzzCheck((0...CardState.maximumPINRetries).contains(state.pinRetries), "PIN retries \(state.pinRetries)")
    fuzzCheck(state.masterSecret.count == 32, "master secret of \(state.masterSecret.count) bytes")
    let again = try? CardImageFile.state(fromImage: CardImageFile.encode(state), path: "fuzz.img")
    fuzzCheck(again == state, "encode → decode changed the state")
    return 0
}
