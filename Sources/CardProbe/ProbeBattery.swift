import CBOR
import FIDOWire

/// The battery: every entry the probe sends, in order, read-only first. Fixed and versioned
/// (``CardProber/batteryVersion``): the same requests to every card, whatever it answers, so that
/// two fingerprints compare entry by entry. Change an entry, add one or remove one and the
/// version goes up.
enum ProbeBattery {
    /// The entries that change nothing on a card.
    static var readOnly: [ProbeEntry] {
        select + iso + chaining + commands + makeCredential + getAssertion + clientPIN + management + u2f
    }

    /// The writing part (a test card only): it ends with the card reset.
    static var writes: [ProbeEntry] {
        writesPIN + writesCredentials + writesTokenRules + writesManagement + writesLargeBlobs + writesConfig + writesU2F + writesLockout
    }

    // MARK: - Entry makers

    /// One APDU as it is, its answer as it comes (`61xx` not followed).
    static func raw(_ id: String, _ summary: String, _ bytes: [UInt8], start: ProbeEntry.Start = .fresh,
                    kind: String? = nil) -> ProbeEntry {
        ProbeEntry(id, summary, start: start) { session throws(ProbeInterruption) in try session.apdu(bytes, kind: kind) }
    }

    /// APDUs in a row, each answer kept.
    static func sequence(_ id: String, _ summary: String, _ apdus: [[UInt8]], start: ProbeEntry.Start = .fresh) -> ProbeEntry {
        ProbeEntry(id, summary, start: start) { session throws(ProbeInterruption) in try session.apdus(apdus) }
    }

    /// A CTAP message as bytes (malformed ones too), with the NFC framing.
    static func message(_ id: String, _ summary: String, _ bytes: [UInt8], start: ProbeEntry.Start = .selected,
                        kind: String? = nil, p1: UInt8 = NFCBinding.messageSupportsGetResponse, pieceSize: Int = 255) -> ProbeEntry {
        ProbeEntry(id, summary, start: start) { session throws(ProbeInterruption) in
            try session.message(bytes, kind: kind, p1: p1, pieceSize: pieceSize)
        }
    }

    /// A typed CTAP command with fixed parameters.
    static func ctap(_ id: String, _ summary: String, _ command: CTAPCommand, _ parameters: CBORMap?,
                     kind: String? = nil) -> ProbeEntry {
        message(id, summary, CTAPMessage.bytes(command, parameters), kind: kind)
    }

    /// The same malformed requests for every command that takes parameters.
    static func malformed(_ command: CTAPCommand, _ name: String) -> [ProbeEntry] {
        let byte = command.rawValue
        return [
            message("\(name).no-parameters", "\(name) without parameters", [byte]),
            message("\(name).empty-map", "\(name) with an empty parameter map", [byte, 0xA0]),
            message("\(name).cbor-cut-short", "\(name) with CBOR cut short (a map of one member, then nothing)", [byte, 0xA1, 0x01]),
            message("\(name).not-a-map", "\(name) with an array instead of a parameter map", [byte, 0x80]),
            message("\(name).trailing-byte", "\(name) with a byte after the parameter map", [byte, 0xA0, 0x00]),
        ]
    }

    // MARK: - Timing

    /// The timed read-only commands, `times` more each (a fresh SELECT first).
    static func repeatTimed(_ session: ProbeSession, times: Int) throws(ProbeInterruption) {
        guard times > 0 else { return }
        try session.link.powerCycle()
        for _ in 0..<times {
            _ = try session.apdu(NFCBinding.selectFIDOApplet, kind: TimingKind.select)
            _ = try session.ctap(.getInfo, nil, kind: TimingKind.getInfo)
            _ = try session.ctap(.clientPIN, ProbeValues.clientPIN(.getPINRetries, protocol: 1), kind: TimingKind.pinRetries)
            _ = try session.ctap(.clientPIN, ProbeValues.clientPIN(.getKeyAgreement, protocol: 1), kind: TimingKind.keyAgreement)
            _ = try session.ctap(.getAssertion, ProbeValues.getAssertion(), kind: TimingKind.assertionWithoutCredential)
            _ = try session.apdu(ISOValues.unknownInstruction, kind: TimingKind.apduError)
            _ = try session.apdu(U2FValues.version, kind: TimingKind.u2fVersion)
        }
    }
}

/// The command kinds the probe times (the `timing` members of a fingerprint).
enum TimingKind {
    static let select = "select"
    static let getInfo = "getInfo"
    static let pinRetries = "clientPIN.getPINRetries"
    static let keyAgreement = "clientPIN.getKeyAgreement"
    static let pinToken = "clientPIN.getPinToken"
    static let assertionWithoutCredential = "getAssertion.noCredential"
    static let assertion = "getAssertion"
    static let makeCredential = "makeCredential"
    static let apduError = "apdu.error"
    static let u2fVersion = "u2f.version"
    static let u2fAuthenticate = "u2f.authenticate"
}
