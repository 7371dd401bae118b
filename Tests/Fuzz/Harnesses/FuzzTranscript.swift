import Transcript

// Target `transcript`: the transcript text parser (`Transcript.parse`).
//
// Input: the bytes as UTF-8 text (invalid sequences become U+FFFD, as reading a file would).
// Properties: parsing never traps; a transcript that parses prints (`text`) to a form that parses
// back to an equal transcript (plus the `@format` header the printer adds when it is missing),
// and printing that again gives the same text; validating it for use (`validate()`) never traps.

@_cdecl("LLVMFuzzerInitialize")
public func fuzzTranscriptInitialize(_ argc: UnsafeMutablePointer<Int32>?,
                  _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    fuzzBenchmarkIfAsked(fuzzTranscriptTestOneInput)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTranscriptTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: fuzzBytes(data, size), as: UTF8.self)
    guard let transcript = try? Transcript.parse(text) else { return 0 }
    _ = try? transcript.validate()
    let printed = transcript.text
    let reparsed: Transcript
    do {
        reparsed = try Transcript.parse(printed)
    } catch {
        fuzzCheck(false, "the printed form of a parsed transcript does not parse: \(error)\n\(printed)")
        return 0
    }
    var expected = transcript
    if transcript.header("format") == nil {
        expected.headers.insert(Transcript.Header("format", String(Transcript.formatVersion)), at: 0)
    }
    fuzzCheck(reparsed == expected, "print → parse changed the transcript:\n\(printed)")
    fuzzCheck(reparsed.text == printed, "printing is not stable:\n\(printed)")
    return 0
}
