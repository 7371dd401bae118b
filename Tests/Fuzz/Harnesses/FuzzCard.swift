import ArculusCard
import FIDOWire

// Target `card`: the whole card — ISO 7816 front, NFC binding, U2F, CTAP2 authenticator,
// storage boundary — fed APDU sequences (`CardModel.receive`).
//
// Input: a selector byte, then a program (`FuzzCardProgram`): operations picked by the low five
// bits of a byte:
//   0-7    raw APDU: a 2-byte length and that many bytes
//   8-19   a generated CTAP request (FuzzCTAPGenerator) sent as NFCCTAP_MSG
//   20-21  a raw CTAP request (2-byte length + bytes) sent as NFCCTAP_MSG
//            (both: a style byte first — P1 80 or 00, short chained in pieces of 16…255 bytes
//            or extended, the Le, cancel at 9100 — then GET RESPONSE while 61xx and
//            NFCCTAP_GETRESPONSE while 9100)
//   22-23  SELECT (FIDO AID with and without data, no Le, an AID prefix)
//   24-25  GET RESPONSE / NFCCTAP_GETRESPONSE / its cancel, on their own
//   26-27  U2F REGISTER, AUTHENTICATE (key handles the card made, credential IDs), VERSION
//   28     power cycle (off the reader and tapped again)
//   29     the next write fails (full disk, torn write)
//   30-31  the clock moves on by the next byte's number of seconds
// At most 32 operations, of which at most 4 make the card sign, generate a key, do ECDH or
// power up.
// Selector: bits 0-3 the start state (`FuzzStartState`: a baseline card, or one with a token, a
// pending getNextAssertion or enumeration, the PIN blocked, the store full, a U2F key); bit 4 the
// front's busy-first mode; bit 5 the realistic timing profile (9100 while the card works, no
// sleeping: the card's clock is the harness's); bit 6 the person declines user presence; bit 7
// the clock moves 10 ms per APDU instead of 1 s.
// Every input starts from a copy of the start state, powered, nothing selected.
//
// Properties: every response APDU is one the card can send (a status word of its own, data only
// with 9000/61xx/9100, no more than Le allows, 6700 to bytes that are no APDU); every whole CTAP
// response is as the ctap2 target requires; a failed write answers CTAP1_ERR_OTHER (U2F: 6A80);
// the card's memory is what was made durable after every APDU and keeps its invariants; after
// the input, without a power cycle, SELECT + getInfo answer 9000 + CTAP2_OK (`shouldCheckRecovery`); the same input gives
// the same responses twice (`shouldCheckDeterminism`).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCardTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzBytes(data, size)
    guard let selector = input.first else { return 0 }
    let checkRecovery = shouldCheckRecovery(input)
    let responses = runCard(selector: selector, program: input.dropFirst(), checkRecovery: checkRecovery)
    if shouldCheckDeterminism(input) {
        let again = runCard(selector: selector, program: input.dropFirst(), checkRecovery: checkRecovery)
        fuzzCheck(again == responses, "the same APDUs gave different responses")
    }
    return 0
}

/// The card a card-target input with this selector starts from (shared with the seed writer):
/// the start state behind a front with the selector's options, made once per selector.
func cardStart(selector: UInt8) -> FuzzStart {
    let key = Int(selector)
    if let known = cardStarts[key] { return known }
    var start = FuzzStarts.shared.start(FuzzStartState(selector: selector))
    let options = CardFront.Options(busyFirst: selector & 0x10 != 0, busyPolls: 1)
    start.card = start.card.withFront(options, timing: selector & 0x20 != 0 ? .realistic : .off)
    start.card.userConsents = selector & 0x40 == 0
    start.card.step = selector & 0x80 != 0 ? .milliseconds(10) : .seconds(1)
    cardStarts[key] = start
    return start
}

nonisolated(unsafe) private var cardStarts = [FuzzStart?](repeating: nil, count: 256)

private func runCard(selector: UInt8, program: ArraySlice<UInt8>, checkRecovery: Bool) -> [[UInt8]] {
    let start = cardStart(selector: selector)
    fuzzTrace("--- the input, from baseline \(start.card.state.profile.name)")
    var run = FuzzCardProgram(start: start)
    var input = FuzzInput(program)
    run.run(&input)
    run.card.checkMemory()
    checkCardState(run.card.state, start: start.card.state)
    if checkRecovery { run.checkRecovers() }
    return run.responses
}
