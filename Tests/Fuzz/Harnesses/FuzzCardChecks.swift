import ArculusCard
import CBOR
import FIDOWire

// Properties every card answer and the card's memory keep, whatever the input (shared by the
// card, ctap2 and vpcd targets).

/// The card's memory is within its invariants.
func checkCardState(_ state: CardState, start: CardState) {
    fuzzCheck((0...CardState.maximumPINRetries).contains(state.pinRetries), "PIN retries \(state.pinRetries)")
    fuzzCheck(state.isPINSet || state.pinRetries == CardState.maximumPINRetries,
              "\(state.pinRetries) PIN retries without a PIN")
    fuzzCheck(state.residentCredentials.count <= state.profile.residentKeyCapacity,
              "\(state.residentCredentials.count) discoverable credentials, capacity \(state.profile.residentKeyCapacity)")
    fuzzCheck(state.signatureCounter >= start.signatureCounter, "the signature counter went backwards")
    fuzzCheck(Set(state.residentCredentials.map(\.id)).count == state.residentCredentials.count, "duplicate credential IDs")
    fuzzCheck(state.pinHash == nil || state.pinHash?.count == 16, "PIN hash of \(state.pinHash?.count ?? 0) bytes")
    fuzzCheck(state.masterSecret.count == 32, "master secret of \(state.masterSecret.count) bytes")
    for credential in state.residentCredentials {
        fuzzCheck(credential.privateKey.count == 32 && (1...3).contains(credential.credProtect),
                  "a stored credential with a \(credential.privateKey.count)-byte key, credProtect \(credential.credProtect)")
        fuzzCheck(credential.serial < state.nextCredentialSerial, "a credential serial at or past the next one")
    }
}

/// Whether the card sends this status word: the front's (see `CardFront`) and U2F's, and `61xx`.
private func isCardStatusWord(_ word: UInt16) -> Bool {
    switch word {
    case 0x9000, 0x9100, 0x6700, 0x6883, 0x6985, 0x6A80, 0x6A82, 0x6A86, 0x6D00, 0x6E00, 0x6F00, 0x6100...0x61FF: true
    default: false
    }
}

/// A response APDU is one the card can send: a status word it uses, data only with `9000`,
/// `61xx` or `9100` (then the keepalive byte alone), never more data than Le allows, and `6700`
/// to bytes that are no APDU.
func checkResponseAPDU(_ response: [UInt8], to apdu: [UInt8]) {
    fuzzCheck(response.count >= 2, "response without a status word to \(fuzzHex(apdu))")
    guard response.count >= 2 else { return }
    let sw1 = response[response.count - 2], sw2 = response[response.count - 1]
    let word = UInt16(sw1) << 8 | UInt16(sw2)
    fuzzCheck(isCardStatusWord(word), "status word \(fuzzHex([sw1, sw2])) to \(fuzzHex(apdu))")
    let data = response.count - 2
    switch word {
    case 0x9100: fuzzCheck(response == [0x01, 0x91, 0x00], "9100 with data \(fuzzHex(response.dropLast(2)))")
    case 0x9000: break
    default: fuzzCheck(sw1 == 0x61 || data == 0, "\(data) data bytes with \(fuzzHex([sw1, sw2]))")
    }
    if let command = try? CommandAPDU(parsing: apdu) {
        fuzzCheck(data <= command.responseLimit, "\(data) data bytes for Ne \(command.responseLimit) to \(fuzzHex(apdu))")
    } else {
        fuzzCheck(response == [0x67, 0x00], "a malformed APDU \(fuzzHex(apdu)) got \(fuzzHex(response))")
    }
}

/// A CTAP2 response: a status CTAP 2.1 defines; an error is the status byte alone; a CTAP2_OK
/// body is one CBOR map in CTAP2 canonical form; never CTAP2_OK to a command the card does not
/// know. Returns the body of a CTAP2_OK (an empty map for none), for the platform to learn from.
@discardableResult
func checkCTAPResponse(_ response: [UInt8], to request: [UInt8]) -> CBORMap? {
    guard let status = response.first else {
        fuzzCheck(false, "empty CTAP response to \(fuzzHex(request.prefix(16)))")
        return nil
    }
    fuzzCheck(CTAPStatus(rawValue: status).isDefined, "unknown status \(status) to \(fuzzHex(request.prefix(16)))")
    guard status == CTAPStatus.ok.rawValue else {
        fuzzCheck(response.count == 1, "status \(status) with a \(response.count - 1)-byte body")
        return nil
    }
    fuzzCheck(request.first.flatMap(CTAPCommand.init(rawValue:)) != nil, "CTAP2_OK to an unknown command \(request.first ?? 0)")
    guard response.count > 1 else { return CBORMap() }
    let body = Array(response.dropFirst())
    guard let value = try? CBORDecoder.decode(body), let map = value.mapValue else {
        fuzzCheck(false, "a CTAP2_OK body that is not one CBOR map, to \(fuzzHex(request.prefix(16)))")
        return nil
    }
    fuzzCheck(CBOREncoder.encode(value) == body, "a CTAP2_OK body not in canonical CBOR, to \(fuzzHex(request.prefix(16)))")
    return map
}
