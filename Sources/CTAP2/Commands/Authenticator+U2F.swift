import CardCrypto
import FIDOWire

/// The outcome of a CTAP1/U2F operation: response data, or the U2F status word to answer.
public enum U2FResult: Equatable, Sendable {
    case success([UInt8])
    /// SW_CONDITIONS_NOT_SATISFIED (6985): test of user presence required / check-only answer.
    case conditionsNotSatisfied
    /// SW_WRONG_DATA (6A80): the key handle is not this card's for this application.
    case wrongData
}

/// A U2F operation's result and the changes that must be durable before it is answered.
public struct U2FCommandOutcome: Sendable {
    public var result: U2FResult
    public var changes: [CardMutation]
    /// The signature counter value handed out.
    var signatureCounter: UInt32? = nil
    /// What the environment's armed faults did in the operation, in order (``ArmedFaults``).
    public var faultActs: [FaultAct] = []
    /// The operation stopped at its test of user presence, undecided in the environment: what it
    /// asks (see ``CommandOutcome/awaitsPresence``); run it again with the answer.
    public var awaitsPresence: PresencePrompt?
}

extension Authenticator {
    /// U2F REGISTER (FIDO U2F Raw Message Formats §4). The key handle is a credential ID in the
    /// same self-contained format as CTAP2 non-discoverable credentials, so a U2F registration
    /// works with CTAP2 getAssertion and vice versa, as on a real dual-mode card. The attestation
    /// certificate and the signature counter are the CTAP2 ones.
    public mutating func u2fRegister(challenge: [UInt8], application: [UInt8],
                                     in environment: CommandEnvironment) -> U2FCommandOutcome {
        precondition(isPowered, Self.unpoweredCommand)
        return runU2F(.u2fRegister, in: environment) { $0.register(challenge: challenge, application: application) }
    }

    /// Runs a U2F operation in `environment`: its outcome with what the armed faults did, or, when
    /// it stopped at an undecided test of user presence, only what it asks (nothing of it kept).
    private mutating func runU2F(_ command: CardCommand, in environment: CommandEnvironment,
                                 _ body: (inout Authenticator) -> U2FCommandOutcome) -> U2FCommandOutcome {
        let before = (session: session, random: random)
        running = RunningCommand(command: command, environment: environment)
        defer { running = nil }
        var outcome = body(&self)
        if let prompt = running?.presenceAsked {
            (session, random) = before
            return U2FCommandOutcome(result: .conditionsNotSatisfied, changes: [], awaitsPresence: prompt)
        }
        outcome.faultActs = takeFaultActs()
        return outcome
    }

    /// The U2F test of user presence: whether the person is there (an undecided answer is noted
    /// in ``RunningCommand/presenceAsked`` and counts as absent here).
    private mutating func u2fUserPresent() -> Bool {
        (try? isUserPresent()) ?? false
    }

    private mutating func register(challenge: [UInt8], application: [UInt8]) -> U2FCommandOutcome {
        let refused = { (result: U2FResult) in U2FCommandOutcome(result: result, changes: []) }
        guard u2fEnabled, challenge.count == 32, application.count == 32 else { return refused(.wrongData) }
        guard u2fUserPresent() else { return refused(.conditionsNotSatisfied) }
        let key = random.p256Key()
        let contents = CredentialWrapper.Contents(key: .p256Scalar(key.rawScalar), discoverable: false,
                                                  hmacSecret: false, credProtect: 1)
        let keyHandle = memory.wrapper.wrap(contents, rpIdHash: application, iv: random.bytes(16))
        let publicKey = key.publicKey.x962
        let signed = [0x00] + application + challenge + keyHandle + publicKey
        guard let signature = try? sign(signed, with: attestation.privateKey) else { return refused(.wrongData) }
        var response: [UInt8] = [0x05]
        response += publicKey
        response.append(UInt8(keyHandle.count))
        response += keyHandle
        response += attestation.certificate.der
        response += signature
        return U2FCommandOutcome(result: .success(response), changes: [])
    }

    /// U2F AUTHENTICATE with control byte 0x03 (enforce user presence and sign), 0x07 (check
    /// only) or 0x08 (don't enforce user presence and sign). Only ES256 credentials are U2F ones.
    public mutating func u2fAuthenticate(control: UInt8, challenge: [UInt8], application: [UInt8], keyHandle: [UInt8],
                                         in environment: CommandEnvironment) -> U2FCommandOutcome {
        precondition(isPowered, Self.unpoweredCommand)
        return runU2F(.u2fAuthenticate, in: environment) {
            $0.authenticate(control: control, challenge: challenge, application: application, keyHandle: keyHandle)
        }
    }

    private mutating func authenticate(control: UInt8, challenge: [UInt8], application: [UInt8],
                                       keyHandle: [UInt8]) -> U2FCommandOutcome {
        let refused = { (result: U2FResult) in U2FCommandOutcome(result: result, changes: []) }
        guard u2fEnabled, challenge.count == 32, application.count == 32 else { return refused(.wrongData) }
        guard let contents = credential(id: keyHandle, rpIdHash: application),
              contents.key.algorithm == .es256 else { return refused(.wrongData) }
        // A credProtect level-3 credential needs user verification, which U2F cannot give: it is
        // not this card's for U2F, in check-only mode too.
        if contents.credProtect == 3 { return refused(.wrongData) }
        switch U2FControl(rawValue: control) {
        case .checkOnly:
            return refused(.conditionsNotSatisfied)
        case .enforceUserPresenceAndSign:
            guard u2fUserPresent() else { return refused(.conditionsNotSatisfied) }
        case .dontEnforceUserPresenceAndSign:
            break
        case nil:
            return refused(.wrongData)
        }
        guard let key = try? signingKey(id: keyHandle, material: contents.key) else { return refused(.wrongData) }
        var changes: [CardMutation] = []
        let counter = takeSignatureCounter(changes: &changes)
        let userPresent: UInt8 = injectedFlags(control == U2FControl.enforceUserPresenceAndSign.rawValue ? .userPresent : [])
            .contains(.userPresent) ? 0x01 : 0x00
        let counterBytes: [UInt8] = [UInt8(counter >> 24), UInt8(counter >> 16 & 0xFF),
                                     UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF)]
        let signed = application + [userPresent] + counterBytes + challenge
        guard let signature = try? sign(signed, with: key) else { return refused(.wrongData) }
        return U2FCommandOutcome(result: .success([userPresent] + counterBytes + signature), changes: changes,
                                 signatureCounter: counter)
    }

    /// Ends a U2F operation whose changes the caller made durable (or could not): its result.
    public mutating func finish(_ outcome: U2FCommandOutcome, durable: Bool) -> U2FResult {
        guard durable else { return .wrongData }
        if !outcome.changes.isEmpty { commit(outcome.changes) }
        if let counter = outcome.signatureCounter { memory.advanceSignatureCounter(to: counter) }
        return outcome.result
    }
}
