import ArculusCard
import FIDOWire

// Target `ctap2`: the CTAP2 request parsers and command handlers, fed straight to
// `Authenticator.process` (command byte + CBOR body), without the ISO 7816 front.
//
// Input: one selector byte, then length-prefixed requests (`LengthPrefixedPieces`); the
// authenticator keeps its state across the requests of one input (getNextAssertion and
// credential-management enumerations can continue), and a zero-length piece is a power cycle.
// Selector:
//   bits 0-1  baseline card (`FuzzBaseline`)
//   bit 2     the harness first obtains a PIN token (baselines with a PIN), so that requests can
//             get past pinUvAuthParam checks the fuzzer cannot compute
//   bit 3     token protocol: 0 → PIN/UV auth protocol 1, 1 → protocol 2
//   bits 4-5  token permissions: 0 mc|ga|cm, 1 mc, 2 ga, 3 getPinToken (legacy, no permissions)
//   bit 6     bind the token to rpId "example.com"
//   bit 7     fix up: where a request carries a pinUvAuthParam (makeCredential 0x08,
//             getAssertion 0x06, credentialManagement 0x04), replace it with the correct value
//             for the request under the token
// Properties: every response starts with a status byte CTAP 2.1 defines; a CTAP2_OK body is
// one well-formed CBOR map; the card's memory keeps its invariants; same input, same responses.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCTAP2TestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let input = fuzzBytes(data, size)
    guard let selector = input.first else { return 0 }
    let responses = runRequests(selector: selector, requests: input.dropFirst())
    if shouldCheckDeterminism(input) {
        let again = runRequests(selector: selector, requests: input.dropFirst())
        fuzzCheck(again == responses, "the same requests gave different responses")
    }
    return 0
}

private func runRequests(selector: UInt8, requests: ArraySlice<UInt8>) -> [[UInt8]] {
    let baseline = FuzzBaseline(selector: selector)
    let authenticator: VirtualCard
    do {
        authenticator = try VirtualCard(profile: baseline.profile, storage: InMemoryStorage(state: baseline.state),
                                        entropy: .seeded(fuzzSeed))
    } catch {
        fatalError("cannot make the fuzz authenticator: \(error)")
    }
    var now = 0.0
    authenticator.clock = { .seconds(now) }
    authenticator.powerOn()

    var token: PlatformToken?
    if selector & 0x04 != 0, baseline.state.isPINSet {
        let platform = PlatformClient(send: authenticator.ctap2)
        let permissions: UInt64?
        switch selector >> 4 & 0x03 {
        case 0: permissions = 0x07
        case 1: permissions = 0x01
        case 2: permissions = 0x02
        default: permissions = nil
        }
        let rpId: String? = selector & 0x40 != 0 ? "example.com" : nil
        token = try? platform.token(fuzzPIN, protocol: selector & 0x08 != 0 ? 2 : 1, permissions: permissions,
                                    rpId: permissions == nil ? nil : rpId).get()
    }
    let fixUp = selector & 0x80 != 0

    var responses: [[UInt8]] = []
    for piece in LengthPrefixedPieces(requests) {
        now += 1
        if piece.isEmpty {
            authenticator.powerOff()
            authenticator.powerOn()
            token = nil
            responses.append([])
            continue
        }
        let request = fixUp ? fixedUp(piece, token: token) : piece
        let response = authenticator.ctap2(request)
        fuzzCheck(!response.isEmpty, "empty response to \(fuzzHex(request))")
        fuzzCheck(CTAPStatus(rawValue: response[0]).isDefined, "unknown status \(response[0]) to \(fuzzHex(request))")
        if response[0] == 0x00 && response.count > 1 {
            let body = try? CBORDecoder.decode(Array(response.dropFirst()))
            fuzzCheck(body?.mapValue != nil, "a CTAP2_OK body that is not a CBOR map, to \(fuzzHex(request))")
        }
        if response[0] == 0x00 {
            fuzzCheck(request[0] != 0x00 && CTAPCommand(rawValue: request[0]) != nil, "CTAP2_OK to an unknown command \(request[0])")
        }
        responses.append(response)
    }
    checkCardState(authenticator.authenticator.state, baseline: baseline)
    return responses
}

/// The request with its pinUvAuthParam recomputed under `token`, when it has one.
private func fixedUp(_ request: [UInt8], token: PlatformToken?) -> [UInt8] {
    guard let token, request.count > 1,
          let value = try? CBORDecoder.decode(Array(request.dropFirst())), var map = value.mapValue else { return request }
    switch request[0] {
    case 0x01:
        guard map[int: 8] != nil, let hash = map[int: 1]?.bytesValue else { return request }
        map[int: 8] = .bytes(token.authenticate(hash))
        map[int: 9] = .int(token.pinProtocol)
    case 0x02:
        guard map[int: 6] != nil, let hash = map[int: 2]?.bytesValue else { return request }
        map[int: 6] = .bytes(token.authenticate(hash))
        map[int: 7] = .int(token.pinProtocol)
    case 0x0A, 0x41:
        guard map[int: 4] != nil, let subcommand = map[int: 1]?.uint64Value else { return request }
        var message: [UInt8] = [UInt8(truncatingIfNeeded: subcommand)]
        if let parameters = map[int: 2] { message += CBOREncoder.encode(parameters) }
        map[int: 4] = .bytes(token.authenticate(message))
        map[int: 3] = .int(token.pinProtocol)
    default:
        return request
    }
    return [request[0]] + CBOREncoder.encode(.map(map))
}
