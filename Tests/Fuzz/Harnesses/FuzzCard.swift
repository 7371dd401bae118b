import FIDOWire
import ArculusCard

// Target `card`: the whole card fed raw APDU sequences.
//
// Input: one selector byte, then length-prefixed APDUs (2-byte big-endian length + bytes;
// `LengthPrefixedPieces`). Selector bits 0-1 pick the baseline card (`FuzzBaseline`), bit 2
// turns on the front's busy-first mode and bits 4-5 its number of busy polls. Every input
// starts from a fresh in-memory card with the baseline's memory and a fixed entropy seed, powered
// up (a power cycle between inputs); the card keeps its state from one APDU to the next within
// the input. A zero-length piece is a power cycle (card off the reader and tapped again). The
// card's clock advances one second per APDU, so time windows (reset, getNextAssertion) expire
// deterministically.
//
// Properties: every response ends in SW1 SW2 and never carries more data than Le allows; the
// card's memory stays within its invariants; after the input (no power cycle) a SELECT + getInfo answers
// 9000 + CTAP2_OK; and the same input gives byte-identical responses twice (determinism, see
// `shouldCheckDeterminism`).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCardTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzBytes(data, size)
    guard let selector = input.first else { return 0 }
    let responses = runCard(selector: selector, apdus: input.dropFirst())
    if shouldCheckDeterminism(input) {
        let again = runCard(selector: selector, apdus: input.dropFirst())
        fuzzCheck(again == responses, "the same APDUs gave different responses: \(responses.map(fuzzHex)) vs \(again.map(fuzzHex))")
    }
    return 0
}

private func runCard(selector: UInt8, apdus: ArraySlice<UInt8>) -> [[UInt8]] {
    let baseline = FuzzBaseline(selector: selector)
    let options = CardFront.Options(busyFirst: selector & 0x04 != 0, busyPolls: Int(selector >> 4 & 0x03))
    let card: VirtualCard
    do {
        card = try VirtualCard(profile: baseline.profile, storage: InMemoryStorage(state: baseline.state),
                               frontOptions: options, entropy: .seeded(fuzzSeed))
    } catch {
        fatalError("cannot make the fuzz card: \(error)")
    }
    var now = 0.0
    card.clock = { .seconds(now) }
    card.powerCycle()

    var responses: [[UInt8]] = []
    for apdu in LengthPrefixedPieces(apdus) {
        now += 1
        if apdu.isEmpty {
            card.powerCycle()
            responses.append([])
            continue
        }
        let response = card.transmit(apdu)
        fuzzCheck(response.count >= 2, "response without a status word to \(fuzzHex(apdu))")
        if let command = try? CommandAPDU(parsing: apdu) {
            fuzzCheck(response.count - 2 <= max(1, command.responseLimit),
                      "\(response.count - 2) data bytes for Ne \(command.responseLimit) to \(fuzzHex(apdu))")
        } else {
            fuzzCheck(response == [0x67, 0x00], "a malformed APDU \(fuzzHex(apdu)) got \(fuzzHex(response))")
        }
        responses.append(response)
    }

    checkCardState(card.authenticator.state, baseline: baseline)
    checkRecovers(card)
    return responses
}

/// After any input the card answers a SELECT and a getInfo, without being taken off the reader.
/// A chain the input left open is dropped by the SELECT with 6883 (ISO 7816-4: last command of
/// the chain expected), so one more SELECT may be needed.
private func checkRecovers(_ card: VirtualCard) {
    let selectAPDU: [UInt8] = NFCBinding.selectFIDOApplet
    var select = card.transmit(selectAPDU)
    if select == [0x68, 0x83] { select = card.transmit(selectAPDU) }
    fuzzCheck(select.suffix(2) == [0x90, 0x00], "SELECT after the input answered \(fuzzHex(select))")
    let info = card.transmit([0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x00])
    fuzzCheck(info.suffix(2) == [0x90, 0x00] && info.first == 0x00, "getInfo after the input answered \(fuzzHex(info.prefix(8)))")
}
