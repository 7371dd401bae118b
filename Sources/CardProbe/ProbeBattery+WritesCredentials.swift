import CBOR
import FIDOWire
import JSONSupport

/// What the writing part carries from one entry to the next.
struct CarriedState {
    /// The PINs of this run (``ProbePINs``).
    let pins: ProbePINs
    /// The card's PIN as the battery set it last.
    var pin: String
    /// The non-discoverable credential it made.
    var nonDiscoverable: [UInt8]?
    /// The discoverable credential it made.
    var discoverable: [UInt8]?
    /// The U2F key handle it registered.
    var u2fKeyHandle: [UInt8]?

    init(pins: ProbePINs) {
        self.pins = pins
        pin = pins.pin
    }
}

extension ProbeBattery {
    /// An entry of the writing part. It starts from a fresh tap and SELECT unless it says
    /// otherwise: an entry must not depend on what the one before it left in the card's volatile
    /// state (a card may need a SELECT after authenticatorReset, a token or an enumeration may be
    /// pending), only on what the card keeps (the PIN, credentials, the retries).
    static func write(_ id: String, _ summary: String, start: ProbeEntry.Start = .fresh,
                      run: @escaping (ProbeSession) throws(ProbeInterruption) -> ProbeRecord) -> ProbeEntry {
        ProbeEntry("write.\(id)", summary, start: start, writes: true, run: run)
    }

    /// makeCredential for the probe RP, authenticated with `token` when given.
    static func makeCredentialRequest(rk: Bool = false, extensions: CBORMap? = nil, excludeList: [[UInt8]]? = nil,
                                      token: ProbeToken?) -> CBORMap {
        var request = ProbeValues.makeCredential(junkAuth: false)
        if rk { request[int: MakeCredentialKey.options.rawValue] = .map(["rk": true]) }
        if let extensions { request[int: MakeCredentialKey.extensions.rawValue] = .map(extensions) }
        if let excludeList { request[int: MakeCredentialKey.excludeList.rawValue] = .array(excludeList.map(ProbeValues.descriptor)) }
        if let token {
            request[int: MakeCredentialKey.pinUvAuthParam.rawValue] = .bytes(token.authenticate(ProbeValues.clientDataHash))
            request[int: MakeCredentialKey.pinUvAuthProtocol.rawValue] = .int(token.pinProtocol.version)
        }
        return request
    }

    /// getAssertion for `rpID`, authenticated with `token` when given.
    static func getAssertionRequest(rpID: String = ProbeValues.rpID, allowList: [[UInt8]]? = nil, up: Bool? = nil,
                                    extensions: CBORMap? = nil, token: ProbeToken? = nil) -> CBORMap {
        var request = ProbeValues.getAssertion(replacing: [.rpId: .text(rpID)])
        if let allowList { request[int: GetAssertionKey.allowList.rawValue] = .array(allowList.map(ProbeValues.descriptor)) }
        if let extensions { request[int: GetAssertionKey.extensions.rawValue] = .map(extensions) }
        if let up { request[int: GetAssertionKey.options.rawValue] = .map(["up": .bool(up)]) }
        if let token {
            request[int: GetAssertionKey.pinUvAuthParam.rawValue] = .bytes(token.authenticate(ProbeValues.clientDataHash))
            request[int: GetAssertionKey.pinUvAuthProtocol.rawValue] = .int(token.pinProtocol.version)
        }
        return request
    }

    /// The credential ID in a makeCredential answer's attested credential data.
    static func credentialID(_ reply: CTAPReply) -> [UInt8]? {
        guard let authData = reply.body?[int: MakeCredentialResponseKey.authData.rawValue]?.bytesValue,
              authData.count >= 55, authData[32] & 0x40 != 0 else { return nil }
        let length = Int(authData[53]) << 8 | Int(authData[54])
        guard authData.count >= 55 + length else { return nil }
        return Array(authData[55..<(55 + length)])
    }

    /// A getPinToken (protocol 1) token for the entry, or the record saying why there is none.
    static func freshToken(_ session: ProbeSession) throws(ProbeInterruption) -> Result<ProbeToken, Unmet> {
        let (record, token) = try session.token(pin: session.carried.pin, version: 1)
        if let token { return .success(token) }
        return .failure(Unmet(reason: "no token: getPinToken answered \(record.answer["ctap"]?.stringValue ?? record.answer.text)"))
    }

    /// makeCredential and getAssertion with and without a token: flags, counters, attestation,
    /// extensions, user details.
    static var writesCredentials: [ProbeEntry] {
        let uvm: CBORMap = ["uvm": true]
        return [
            write("makeCredential", "makeCredential with a PIN token (non-discoverable)") { session throws(ProbeInterruption) in
                try withToken(session) { token throws(ProbeInterruption) in
                    let (record, reply) = try session.kept(.makeCredential, makeCredentialRequest(token: token), kind: TimingKind.makeCredential)
                    session.carried.nonDiscoverable = credentialID(reply)
                    return record
                }
            },
            write("makeCredential.discoverable", "makeCredential of a discoverable credential with credProtect 2, hmac-secret and uvm") {
                session throws(ProbeInterruption) in
                try withToken(session) { token throws(ProbeInterruption) in
                    let extensions: CBORMap = ["credProtect": 2, "hmac-secret": true, "uvm": true]
                    let (record, reply) = try session.kept(.makeCredential, makeCredentialRequest(rk: true, extensions: extensions, token: token))
                    session.carried.discoverable = credentialID(reply)
                    return record
                }
            },
            write("getInfo.after-discoverable", "getInfo after making a discoverable credential") { session throws(ProbeInterruption) in
                session.getInfoAgain(try session.ctap(.getInfo, nil))
            },
            write("makeCredential.excluded", "makeCredential with the first credential in excludeList") { session throws(ProbeInterruption) in
                try withToken(session) { token throws(ProbeInterruption) in
                    try session.kept(.makeCredential, makeCredentialRequest(excludeList: nonDiscoverable(session), token: token)).0
                }
            },
            write("makeCredential.without-token", "makeCredential without a token while a PIN is set") { session throws(ProbeInterruption) in
                try session.kept(.makeCredential, makeCredentialRequest(token: nil)).0
            },
            write("getAssertion", "getAssertion with a PIN token") { session throws(ProbeInterruption) in
                try withToken(session) { token throws(ProbeInterruption) in
                    try session.kept(.getAssertion, getAssertionRequest(allowList: nonDiscoverable(session), token: token),
                                     kind: TimingKind.assertion).0
                }
            },
            write("getAssertion.without-token", "getAssertion without a token") { session throws(ProbeInterruption) in
                try session.kept(.getAssertion, getAssertionRequest(allowList: nonDiscoverable(session)), kind: TimingKind.assertion).0
            },
            write("getAssertion.up-false", "getAssertion with up: false") { session throws(ProbeInterruption) in
                try session.kept(.getAssertion, getAssertionRequest(allowList: nonDiscoverable(session), up: false)).0
            },
            write("getAssertion.uvm", "getAssertion asking for uvm") { session throws(ProbeInterruption) in
                try session.kept(.getAssertion, getAssertionRequest(allowList: nonDiscoverable(session), extensions: uvm)).0
            },
            write("getAssertion.discoverable", "getAssertion without allowList, with a PIN token") { session throws(ProbeInterruption) in
                try withToken(session) { token throws(ProbeInterruption) in
                    try session.kept(.getAssertion, getAssertionRequest(token: token)).0
                }
            },
            write("getAssertion.discoverable-without-token", "getAssertion without allowList or token (credProtect 2)") {
                session throws(ProbeInterruption) in
                try session.kept(.getAssertion, getAssertionRequest()).0
            },
            write("getAssertion.hmac-secret", "getAssertion with hmac-secret (one salt, protocol 1)") { session throws(ProbeInterruption) in
                let pin: PINSession
                switch try session.pinSession(1) {
                case .success(let agreed): pin = agreed
                case .failure(let unmet): return ProbeSession.skipped(unmet.reason)
                }
                guard let saltEnc = pin.encrypt([UInt8](repeating: 0x53, count: 32)) else { return ProbeSession.skipped("could not encrypt the salt") }
                let input: CBORValue = [.int(1): pin.platformKey, .int(2): .bytes(saltEnc), .int(3): .bytes(pin.authenticate(saltEnc)),
                                        .int(4): 1]
                let allow = session.carried.discoverable.map { [$0] } ?? [ProbeValues.unknownCredentialID]
                return try session.kept(.getAssertion, getAssertionRequest(allowList: allow, extensions: ["hmac-secret": input])).0
            },
        ]
    }

    /// The non-discoverable credential as an allow list (an unknown one when none was made).
    static func nonDiscoverable(_ session: ProbeSession) -> [[UInt8]] {
        [session.carried.nonDiscoverable ?? ProbeValues.unknownCredentialID]
    }

    /// Runs `body` with a fresh token; without one, the entry records why.
    static func withToken(_ session: ProbeSession,
                          _ body: (ProbeToken) throws(ProbeInterruption) -> ProbeRecord) throws(ProbeInterruption) -> ProbeRecord {
        switch try freshToken(session) {
        case .success(let token): return try body(token)
        case .failure(let unmet): return ProbeSession.skipped(unmet.reason)
        }
    }
}
