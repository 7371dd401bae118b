import CBOR
import FIDOWire
import JSONSupport

extension ProbeBattery {
    /// The pinUvAuthToken's rules (CTAP 2.1 §6.5.5.7, §6.5.2.4): what it allows, what binds it to
    /// an RP, what uses it up and what clears it. Each entry records the answer to the step that
    /// shows the rule; a CTAP 2.0 card refuses the permission subcommand, which the entry shows.
    static var writesTokenRules: [ProbeEntry] {
        let mc = Int(PINUVAuthPermissions.makeCredential.rawValue)
        let ga = Int(PINUVAuthPermissions.getAssertion.rawValue)
        /// getAssertion with `up: false` for the non-discoverable credential: uses the token without using it up.
        func preflight(_ session: ProbeSession, _ token: ProbeToken, rpID: String = ProbeValues.rpID) throws(ProbeInterruption) -> ProbeRecord {
            try session.kept(.getAssertion, getAssertionRequest(rpID: rpID, allowList: nonDiscoverable(session), up: false, token: token)).0
        }
        /// The token `token(...)` gives, or the record of its refusal.
        func with(_ session: ProbeSession, version: Int = 2, permissions: Int?, rpID: String? = ProbeValues.rpID,
                  _ body: (ProbeToken) throws(ProbeInterruption) -> ProbeRecord) throws(ProbeInterruption) -> ProbeRecord {
            let (record, token) = try session.token(pin: session.carried.pin, version: version, permissions: permissions, rpID: rpID)
            guard let token else { return ProbeRecord(request: record.request, answer: ["token refused": record.answer]) }
            return try body(token)
        }
        return [
            write("token.used-again-after-makeCredential", "a getPinToken token used for a second makeCredential") {
                session throws(ProbeInterruption) in
                try withToken(session) { token throws(ProbeInterruption) in
                    _ = try session.kept(.makeCredential, makeCredentialRequest(token: token))
                    return try session.kept(.makeCredential, makeCredentialRequest(token: token)).0
                }
            },
            write("token.after-tap", "a token used after the card was tapped again") { session throws(ProbeInterruption) in
                try withToken(session) { token throws(ProbeInterruption) in
                    try session.link.powerCycle()
                    _ = try session.link.following(NFCBinding.selectFIDOApplet)
                    return try preflight(session, token)
                }
            },
            write("token.replaced", "a token used after a newer one was issued", start: .selected) { session throws(ProbeInterruption) in
                try withToken(session) { old throws(ProbeInterruption) in
                    _ = try freshToken(session)
                    return try preflight(session, old)
                }
            },
            write("token.after-getKeyAgreement", "a token used after another getKeyAgreement") { session throws(ProbeInterruption) in
                try withToken(session) { token throws(ProbeInterruption) in
                    _ = try session.exchange(.clientPIN, ProbeValues.clientPIN(.getKeyAgreement, protocol: 1))
                    return try preflight(session, token)
                }
            },
            write("token.getPinToken-other-rp", "a getPinToken token used for one RP, then another") { session throws(ProbeInterruption) in
                try withToken(session) { token throws(ProbeInterruption) in
                    _ = try preflight(session, token)
                    return try preflight(session, token, rpID: ProbeValues.otherRPID)
                }
            },
            write("token.ga-for-makeCredential", "a token with only the ga permission used for makeCredential") { session throws(ProbeInterruption) in
                try with(session, permissions: ga) { token throws(ProbeInterruption) in
                    try session.kept(.makeCredential, makeCredentialRequest(token: token)).0
                }
            },
            write("token.other-rp", "a token bound to the probe RP used for another RP") { session throws(ProbeInterruption) in
                try with(session, permissions: ga) { token throws(ProbeInterruption) in try preflight(session, token, rpID: ProbeValues.otherRPID) }
            },
            write("token.up-false-then-up", "a ga token used with up: false twice, then with presence twice") { session throws(ProbeInterruption) in
                try with(session, permissions: ga) { token throws(ProbeInterruption) in
                    var answers: [JSONValue] = []
                    for up in [false, false, true, true] {
                        let request = getAssertionRequest(allowList: nonDiscoverable(session), up: up, token: token)
                        answers.append(try session.kept(.getAssertion, request).0.answer)
                    }
                    return ProbeRecord(request: ["getAssertion up": [false, false, true, true]], answer: .array(answers))
                }
            },
            write("token.without-rpId", "getPinUvAuthTokenUsingPinWithPermissions mc without rpId") { session throws(ProbeInterruption) in
                try session.token(pin: session.carried.pin, version: 2, permissions: mc, rpID: nil).record
            },
            write("token.no-permissions", "getPinUvAuthTokenUsingPinWithPermissions with permissions 0") { session throws(ProbeInterruption) in
                try session.token(pin: session.carried.pin, version: 2, permissions: 0, rpID: ProbeValues.rpID).record
            },
            write("token.be-permission", "getPinUvAuthTokenUsingPinWithPermissions be (bio enrolment)") { session throws(ProbeInterruption) in
                try session.token(pin: session.carried.pin, version: 2, permissions: 0x08, rpID: nil).record
            },
        ]
    }
}
