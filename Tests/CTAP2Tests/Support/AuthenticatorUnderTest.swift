import ArculusCard
import CTAP2
import FIDOWire

/// Drives the authenticator value as a card does: hands it each request with the time and the
/// person's answer, makes the changes it returns durable in `storage`, then lets it answer.
/// (The card's own driver is ArculusCard's `VirtualCard`; these tests stay below it.)
final class AuthenticatorUnderTest {
    private(set) var authenticator: Authenticator
    let storage: CardStorage
    /// Asked whenever the card needs evidence of user presence.
    var userPresence: () -> Bool = { true }
    /// The card's clock (a test moves it with ``use(_:)`` and a `ManualCardClock`).
    var clock: () -> CardInstant = { .seconds(1_000) }

    init(profile: CardProfile, storage: CardStorage, attestation: AttestationIdentity,
         enterpriseAttestation: AttestationIdentity? = nil) throws {
        let stored = try storage.load()
        authenticator = try Authenticator(profile: stored?.profile ?? profile, state: stored, attestation: attestation,
                                          enterpriseAttestation: enterpriseAttestation, now: .seconds(1_000))
        if authenticator.isBlank { try storage.save(authenticator.state) }
        self.storage = storage
    }

    var state: CardState { authenticator.state }
    var profile: CardProfile { authenticator.profile }
    var attestation: AttestationIdentity { authenticator.attestation }

    /// The time, and the person's answer: undecided, so that a command that tests presence stops
    /// and the driver asks ``userPresence`` (once, when the command asks) and runs it again.
    private func environment(_ presence: UserPresence = .undecided) -> CommandEnvironment {
        CommandEnvironment(now: clock(), presence: presence)
    }

    /// The person's answer, asked now.
    private func asked() -> CommandEnvironment {
        environment(userPresence() ? .present : .declined)
    }

    /// One CTAP2 request: status byte + CBOR back.
    func process(_ request: [UInt8]) -> [UInt8] {
        var outcome = authenticator.process(request, in: environment())
        if outcome.awaitsPresence != nil { outcome = authenticator.process(request, in: asked()) }
        while true {
            switch authenticator.finish(outcome, durable: write(outcome.changes)) {
            case .answer(let response): return response
            case .persist(let next): outcome = next
            }
        }
    }

    func u2fRegister(challenge: [UInt8], application: [UInt8]) -> U2FResult {
        var outcome = authenticator.u2fRegister(challenge: challenge, application: application, in: environment())
        if outcome.awaitsPresence != nil {
            outcome = authenticator.u2fRegister(challenge: challenge, application: application, in: asked())
        }
        return finish(outcome)
    }

    func u2fAuthenticate(control: UInt8, challenge: [UInt8], application: [UInt8], keyHandle: [UInt8]) -> U2FResult {
        var outcome = authenticator.u2fAuthenticate(control: control, challenge: challenge, application: application,
                                                    keyHandle: keyHandle, in: environment())
        if outcome.awaitsPresence != nil {
            outcome = authenticator.u2fAuthenticate(control: control, challenge: challenge, application: application,
                                                    keyHandle: keyHandle, in: asked())
        }
        return finish(outcome)
    }

    func powerOn() { authenticator.powerOn(at: clock()) }
    func powerOff() { authenticator.powerOff(at: clock()) }

    private func finish(_ outcome: U2FCommandOutcome) -> U2FResult {
        guard write(outcome.changes) else { return .wrongData }
        authenticator.commitChanges(outcome.changes)
        return outcome.result
    }

    private func write(_ changes: [CardMutation]) -> Bool {
        guard !changes.isEmpty else { return true }
        return (try? storage.commit(changes, onto: authenticator.state)) != nil
    }
}
