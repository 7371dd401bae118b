import FIDOWire

/// Fixed APDUs of the U2F entries (FIDO U2F Raw Message Formats §4–§6, NFC framing).
enum U2FValues {
    static let version: [UInt8] = [0x00, FIDOInstruction.u2fVersion.rawValue, 0x00, 0x00, 0x00]
    static let challenge = [UInt8](repeating: 0x43, count: 32)
    static let application = [UInt8](repeating: 0x41, count: 32)

    /// REGISTER with `data` (64 bytes: challenge ‖ application, for a well-formed one).
    static func register(_ data: [UInt8]) -> [UInt8] {
        [0x00, FIDOInstruction.u2fRegister.rawValue, 0x00, 0x00, UInt8(data.count)] + data + [0x00]
    }

    /// AUTHENTICATE with control byte `control` for `keyHandle`.
    static func authenticate(_ control: UInt8, keyHandle: [UInt8]) -> [UInt8] {
        let data = challenge + application + [UInt8(keyHandle.count)] + keyHandle
        return [0x00, FIDOInstruction.u2fAuthenticate.rawValue, control, 0x00, UInt8(data.count)] + data + [0x00]
    }
}

extension ProbeBattery {
    /// U2F (CTAP1) over NFC: the version, and the errors that register nothing.
    static var u2f: [ProbeEntry] {
        let unknown = [UInt8](repeating: 0xA5, count: 64)
        let check = U2FControl.checkOnly.rawValue
        let enforce = U2FControl.enforceUserPresenceAndSign.rawValue
        return [
            raw("u2f.version", "U2F_VERSION", U2FValues.version, start: .selected, kind: TimingKind.u2fVersion),
            raw("u2f.version-with-data", "U2F_VERSION with a data byte", [0x00, FIDOInstruction.u2fVersion.rawValue, 0x00, 0x00, 0x01, 0x00, 0x00],
                start: .selected),
            raw("u2f.register-32-bytes", "U2F_REGISTER with 32 bytes instead of 64", U2FValues.register(U2FValues.challenge), start: .selected),
            raw("u2f.check-unknown-handle", "U2F_AUTHENTICATE check-only with a key handle the card never made",
                U2FValues.authenticate(check, keyHandle: unknown), start: .selected),
            raw("u2f.sign-unknown-handle", "U2F_AUTHENTICATE enforce-user-presence with a key handle the card never made",
                U2FValues.authenticate(enforce, keyHandle: unknown), start: .selected),
            raw("u2f.authenticate-control-05", "U2F_AUTHENTICATE with an unknown control byte (05)",
                U2FValues.authenticate(0x05, keyHandle: unknown), start: .selected),
            raw("u2f.authenticate-cut-short", "U2F_AUTHENTICATE with a key handle length past the data",
                [0x00, FIDOInstruction.u2fAuthenticate.rawValue, check, 0x00, 0x41] + U2FValues.challenge + U2FValues.application + [0x40, 0x00],
                start: .selected),
            raw("u2f.unknown-instruction", "an unknown U2F instruction (00 04)", [0x00, 0x04, 0x00, 0x00, 0x00], start: .selected),
        ]
    }
}
