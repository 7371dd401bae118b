import ArculusCard
import CBOR
import FIDOWire

@testable import CTAP2

// Target `ctap2`: the CTAP2 request parsers and command handlers, fed straight to the card
// model's authenticator (`CardModel.receiveCTAP`), without the ISO 7816 front.
//
// Input: a selector byte, then a program of operations, picked by the low five bits of a byte
// (`FuzzCTAP2Operation`):
//   0-5    raw request: a 2-byte length and that many bytes (command byte + CBOR), as they are
//   6-7    raw request whose pinUvAuthParam (makeCredential 0x08, getAssertion 0x06,
//          credentialManagement 0x04) is replaced by the correct one under the platform's token
//   8-27   a generated request (FuzzCTAPGenerator: command, keys, values, real PIN/UV crypto)
//   28     power cycle (the platform forgets its session and token)
//   29-30  the clock moves on by the next byte's number of seconds (getNextAssertion's 30 s,
//          the reset window's 10 s)
//   31     the next write fails (the card must answer CTAP1_ERR_OTHER and change nothing)
// At most 16 operations, of which at most 4 make the card sign, generate a key, do ECDH or
// power up: the start states (FuzzStarts.swift) give depth, the programs stay short.
// Selector: bits 0-3 the start state (`FuzzStartState`: a baseline card, or one with a token —
// protocol 1 or 2, with permissions or legacy, bound to an RP —, a pending getNextAssertion or
// enumeration, the PIN blocked, the store full); bit 4 the person declines user presence.
// Every input starts from a copy of the start state (the platform already knows the card's
// key-agreement key, so generated PIN requests are valid from the first one); the card's clock
// moves one second per request.
//
// Properties: every response is a CTAP status CTAP 2.1 defines, an error the status byte alone,
// a CTAP2_OK body one canonical CBOR map, never CTAP2_OK to an unknown command; a failed write
// answers CTAP1_ERR_OTHER; after every request the card's memory is what was made durable, and
// at the end it keeps its invariants; the same input gives the same responses twice
// (`shouldCheckDeterminism`); every request is read by the card's pull reader exactly as a CBOR
// tree reads it (`TreeReading`, Tests/CTAP2Tests/Support): the same request or the same status,
// and inside it the same extension inputs, hmac-secret salts and subCommandParams (every input in
// the corpus check, one in four while fuzzing: `shouldCheckReading`).

@_cdecl("LLVMFuzzerInitialize")
public func fuzzCTAP2Initialize(_ argc: UnsafeMutablePointer<Int32>?,
                                _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    fuzzBenchmarkIfAsked(fuzzCTAP2TestOneInput)
    return 0
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCTAP2TestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzBytes(data, size)
    guard let selector = input.first else { return 0 }
    let responses = runRequests(selector: selector, program: input.dropFirst(), checkingReading: shouldCheckReading(input))
    if shouldCheckDeterminism(input) {
        let again = runRequests(selector: selector, program: input.dropFirst(), checkingReading: false)
        fuzzCheck(again == responses, "the same requests gave different responses")
    }
    return 0
}

/// The most operations one input runs, and the most of them that make the card generate keys,
/// sign, do ECDH or power up (bounds on its time).
private let maximumOperations = 16
private let expensiveBudget = 4

private func runRequests(selector: UInt8, program: ArraySlice<UInt8>, checkingReading: Bool) -> [[UInt8]] {
    let start = ctap2Start(selector: selector)
    fuzzTrace("--- the input, from baseline \(start.card.state.profile.name)")
    var card = start.card
    var platform = start.platform
    var input = FuzzInput(program)
    var responses: [[UInt8]] = []
    var operations = 0
    var expensive = 0
    while !input.isEmpty && operations < maximumOperations && expensive < expensiveBudget {
        operations += 1
        let request: [UInt8]
        switch FuzzCTAP2Operation(input.byte()) {
        case .raw: request = input.piece()
        case .rawFixedUp: request = fixedUp(input.piece(), token: platform.token)
        case .generated: request = FuzzCTAPGenerator.request(&input, platform: &platform)
        case .powerCycle:
            expensive += 1
            card.powerCycle()
            platform.cardPoweredOff()
            responses.append([])
            continue
        case .clock:
            card.advance(by: .seconds(Int(input.byte())))
            continue
        case .failNextWrite:
            card.failNextWrite = true
            continue
        }
        if checkingReading { checkReading(request, profile: card.state.profile) }
        let exchange = card.ctap(request)
        let body = checkCTAPResponse(exchange.response, to: request)
        if exchange.failedWrite != nil {
            fuzzCheck(exchange.response == [CTAPStatus.other.rawValue], "a failed write answered \(fuzzHex(exchange.response))")
        }
        if FuzzCTAPGenerator.wasExpensive(request, response: exchange.response) { expensive += 1 }
        platform.observe(request: request, response: exchange.response, body: body)
        responses.append(exchange.response)
    }
    card.checkMemory()
    checkCardState(card.state, start: start.card.state)
    return responses
}

/// The card's reading of a request must be the tree's.
private func checkReading(_ request: [UInt8], profile: CardProfile) {
    guard let difference = TreeReading.disagreement(request, profile: profile) else { return }
    fuzzCheck(false, "the reading of \(fuzzHex(request)) differs from the tree's: \(difference)")
}
