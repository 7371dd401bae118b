import CBOR
import FIDOWire
import JSONSupport

extension ProbeBattery {
    /// Reset, then the PIN: set, tokens per protocol, change, the policy.
    static var writesPIN: [ProbeEntry] {
        [
            // The stop rule: nothing below enters a PIN unless the reset left the card blank, so
            // that a card which refuses the reset (as a real one does more than 10 s after
            // power-up) keeps its PIN, its retries and its credentials.
            write("reset", "authenticatorReset just after a tap", start: .fresh) { session throws(ProbeInterruption) in
                let record = try session.ctap(.reset, nil)
                guard record.answer["ctap"] == "CTAP2_OK" else {
                    let answer = Difference.status(record.answer) ?? Difference.words(record.answer)
                    throw ProbeInterruption(writesStopped: "authenticatorReset answered \(answer) (a card allows it only "
                                            + "just after power-up: take the card off the reader, put it back and probe again at once)")
                }
                return record
            },
            write("getInfo.after-reset-unselected", "getInfo right after the reset, with no tap or SELECT between",
                  start: .continuing) { session throws(ProbeInterruption) in
                session.getInfoAgain(try session.ctap(.getInfo, nil))
            },
            write("getInfo.after-reset", "getInfo after the reset") { session throws(ProbeInterruption) in
                let record = try session.ctap(.getInfo, nil)
                if record.answer["body"]?["options"]?["clientPin"]?.boolValue == true {
                    throw ProbeInterruption(writesStopped: "authenticatorReset answered CTAP2_OK, yet getInfo after it says "
                                            + "a PIN is set (option clientPin true)")
                }
                return session.getInfoAgain(record)
            },
            write("getPINRetries.no-pin", "getPINRetries with no PIN set") { session throws(ProbeInterruption) in
                try session.ctap(.clientPIN, ProbeValues.clientPIN(.getPINRetries, protocol: 1))
            },
            // What a card answers only while it has no PIN, asked again on the blank card (the
            // read-only part asked a card that may have had one).
            write("makeCredential.junk-without-pin", "makeCredential with a pinUvAuthParam no token made, no PIN set") {
                session throws(ProbeInterruption) in
                try session.ctap(.makeCredential, ProbeValues.makeCredential())
            },
            write("getPinToken.without-pin", "getPinToken without pinHashEnc, no PIN set") { session throws(ProbeInterruption) in
                try session.ctap(.clientPIN, ProbeValues.clientPIN(.getPinToken, protocol: 1, [.keyAgreement: ProbeValues.fixedPlatformKey]))
            },
            write("setPIN", "setPIN (protocol 1)") { session throws(ProbeInterruption) in try session.setPIN(session.carried.pins.pin) },
            write("setPIN.again", "setPIN while a PIN is set") { session throws(ProbeInterruption) in try session.setPIN(session.carried.pins.pin) },
            write("getPINRetries.after-setPIN", "getPINRetries after setPIN") { session throws(ProbeInterruption) in
                try session.ctap(.clientPIN, ProbeValues.clientPIN(.getPINRetries, protocol: 1))
            },
            write("getInfo.after-setPIN", "getInfo after setPIN") { session throws(ProbeInterruption) in session.getInfoAgain(try session.ctap(.getInfo, nil)) },
            write("getPinToken.protocol-1", "getPinToken (protocol 1)") { session throws(ProbeInterruption) in
                try session.token(pin: session.carried.pin, version: 1).record
            },
            write("getPinToken.protocol-2", "getPinToken (protocol 2)") { session throws(ProbeInterruption) in
                try session.token(pin: session.carried.pin, version: 2).record
            },
            write("getPinUvAuthToken.protocol-1", "getPinUvAuthTokenUsingPinWithPermissions mc|ga for the probe RP (protocol 1)") {
                session throws(ProbeInterruption) in
                try session.token(pin: session.carried.pin, version: 1, permissions: 0x03, rpID: ProbeValues.rpID).record
            },
            write("getPinUvAuthToken.protocol-2", "getPinUvAuthTokenUsingPinWithPermissions mc|ga for the probe RP (protocol 2)") {
                session throws(ProbeInterruption) in
                try session.token(pin: session.carried.pin, version: 2, permissions: 0x03, rpID: ProbeValues.rpID).record
            },
            write("changePIN.too-short", "changePIN to a 3-digit PIN") { session throws(ProbeInterruption) in
                try session.setPIN("123", current: session.carried.pin)
            },
            write("changePIN", "changePIN (protocol 1)") { session throws(ProbeInterruption) in
                let record = try session.setPIN(session.carried.pins.changedPIN, current: session.carried.pin)
                if record.answer["ctap"] == "CTAP2_OK" { session.carried.pin = session.carried.pins.changedPIN }
                return record
            },
            write("getPinToken.after-changePIN", "getPinToken with the changed PIN") { session throws(ProbeInterruption) in
                try session.token(pin: session.carried.pin, version: 1).record
            },
        ]
    }

    /// The PIN retry and lockout sequence (CTAP 2.1 §6.5.2.1), then a final reset.
    static var writesLockout: [ProbeEntry] {
        func attempts(_ session: ProbeSession, _ pins: [String?]) throws(ProbeInterruption) -> ProbeRecord {
            var answers: [JSONValue] = []
            for pin in pins {
                guard let pin else {
                    try session.link.powerCycle()
                    _ = try session.link.following(NFCBinding.selectFIDOApplet)
                    answers.append("power cycle")
                    continue
                }
                let answer = try session.token(pin: pin, version: 1).record.answer
                answers.append(answer["ctap"] ?? answer)
            }
            return ProbeRecord(request: ["getPinToken": .array(pins.map { $0 == nil ? "power cycle" : $0 == session.carried.pin ? "right PIN" : "wrong PIN" })],
                               answer: .array(answers))
        }
        return [
            write("pin.three-wrong", "three wrong PINs in a row", start: .fresh) { session throws(ProbeInterruption) in
                let wrong = session.carried.pins.wrongPIN
                return try attempts(session, [wrong, wrong, wrong])
            },
            write("pin.retries-after-three-wrong", "getPINRetries after three wrong PINs", start: .continuing) { session throws(ProbeInterruption) in
                try session.ctap(.clientPIN, ProbeValues.clientPIN(.getPINRetries, protocol: 1))
            },
            write("pin.right-after-three-wrong", "the right PIN after three wrong ones, without a tap", start: .continuing) { session throws(ProbeInterruption) in
                try attempts(session, [session.carried.pin])
            },
            write("pin.right-after-tap", "the right PIN after three wrong ones and a tap", start: .fresh) { session throws(ProbeInterruption) in
                try attempts(session, [session.carried.pin])
            },
            write("pin.retries-after-right", "getPINRetries after the right PIN") { session throws(ProbeInterruption) in
                try session.ctap(.clientPIN, ProbeValues.clientPIN(.getPINRetries, protocol: 1))
            },
            write("pin.lockout", "wrong PINs until the card blocks the PIN (a tap after every third)", start: .fresh) {
                session throws(ProbeInterruption) in
                let wrong = session.carried.pins.wrongPIN
                return try attempts(session, [wrong, wrong, wrong, nil, wrong, wrong, wrong, nil, wrong, wrong, nil, wrong])
            },
            write("pin.right-when-blocked", "the right PIN once the PIN is blocked") { session throws(ProbeInterruption) in
                try attempts(session, [session.carried.pin])
            },
            write("pin.retries-when-blocked", "getPINRetries once the PIN is blocked") { session throws(ProbeInterruption) in
                try session.ctap(.clientPIN, ProbeValues.clientPIN(.getPINRetries, protocol: 1))
            },
            write("reset.final", "authenticatorReset at the end (the card ends blank)", start: .fresh) { session throws(ProbeInterruption) in
                try session.ctap(.reset, nil)
            },
            write("getInfo.final", "getInfo after the final reset") { session throws(ProbeInterruption) in session.getInfoAgain(try session.ctap(.getInfo, nil)) },
            write("getPINRetries.final", "getPINRetries after the final reset") { session throws(ProbeInterruption) in
                try session.ctap(.clientPIN, ProbeValues.clientPIN(.getPINRetries, protocol: 1))
            },
        ]
    }
}
