import ArculusCard
import CardCrypto
import Testing
import FIDOWire

/// Faults that act inside a command are the model's to act out and the boundary's to log: the
/// model takes them armed in its environment and returns each act with its action, calling out to
/// nobody; `VirtualCard` counts, retires and logs the acts as the fault table and log say.
@Suite("Faults inside a command: acted out by the model, logged at the boundary")
struct ModelFaultTests {
    typealias Armed = ArmedFaults.Fault

    /// A blank card model with the FIDO applet selected.
    static func selectedModel() throws -> CardModel {
        var driver = try ModelDriver(entropy: .seeded(Array("model faults".utf8)))
        try driver.select()
        return driver.model
    }

    @Test("a CTAP status instead of running comes back as the answer and as the action's act")
    func ctapStatusAct() throws {
        var model = try Self.selectedModel()
        let environment = CommandEnvironment(now: .origin, faults: ArmedFaults([
            Armed(id: 7, command: .ctap(.getInfo), point: .ctapStatus(0x2E), once: false)]))
        let action = model.receive(TestAPDU.nfcctapMessage([CTAPCommand.getInfo.rawValue]), in: environment)
        guard case .respond(let response, let ran, _, let acts) = action else {
            Issue.record("not an answer: \(action)")
            return
        }
        #expect(response == [0x2E, 0x90, 0x00])
        #expect(ran == nil, "the command did not run")
        #expect(acts == [FaultAct(faultID: 7, command: .ctap(.getInfo), kind: .answeredStatus(0x2E))])
    }

    @Test("a status word instead of SELECT is the model's own act; an unarmed SELECT has none")
    func statusWordAct() throws {
        var driver = try ModelDriver()
        let word = StatusWord(rawValue: 0x6A82)
        let armed = CommandEnvironment(now: .origin, faults: ArmedFaults([Armed(id: 2, command: nil, point: .statusWord(word),
                                                                                 once: true)]))
        guard case .respond(let refused, _, _, let acts) = driver.model.receive(NFCBinding.selectFIDOApplet, in: armed) else {
            Issue.record("SELECT was not answered")
            return
        }
        #expect(refused == [0x6A, 0x82])
        #expect(acts == [FaultAct(faultID: 2, command: .select, kind: .answeredStatusWord(word))])
        guard case .respond(let selected, let ran, _, let none) = driver.model.receive(NFCBinding.selectFIDOApplet,
                                                                                        in: CommandEnvironment(now: .origin)) else {
            Issue.record("SELECT was not answered")
            return
        }
        #expect(selected.suffix(2) == [0x90, 0x00])
        #expect(ran == .select)
        #expect(none.isEmpty)
    }

    @Test("a write's persist action carries the command's acts so far; the answer after the write carries none")
    func persistCarriesActs() throws {
        var model = try Self.selectedModel()
        let environment = CommandEnvironment(now: .origin, faults: ArmedFaults([
            Armed(id: 3, command: nil, point: .flags(userPresent: false, userVerified: nil), once: true)]))
        let request = TestAPDU.ctapMessage(.makeCredential, makeCredentialParameters(userId: [1], rk: true))
        let action = model.receive(TestAPDU.nfcctapMessage(request), in: environment)
        guard case .persist(let changes, let command, let acts) = action else {
            Issue.record("no write: \(action)")
            return
        }
        #expect(!changes.isEmpty)
        #expect(command == .ctap(.makeCredential))
        #expect(acts == [FaultAct(faultID: 3, command: .ctap(.makeCredential),
                                  kind: .changedFlags(from: [.userPresent, .attestedCredentialData], to: [.attestedCredentialData]))])
        guard case .respond(let response, let ran, _, let after) = model.finishWrite(succeeded: true) else {
            Issue.record("no answer after the write")
            return
        }
        #expect(response.first == CTAPStatus.ok.rawValue)
        #expect(ran == .ctap(.makeCredential))
        #expect(after.isEmpty)
    }

    /// A fault acting inside a command, how a row drives the card into it, and the log line.
    struct Row: Sendable, CustomTestStringConvertible {
        var effect: FaultEffect
        var scope: FaultScope
        var once: Bool
        var line: String
        var testDescription: String { effect.name }
    }

    static let rows = [
        Row(effect: .statusWord(StatusWord(rawValue: 0x6A82)), scope: .select, once: false,
            line: "fault injected: SELECT: answered status word 6A82 instead of running (fault #1)"),
        Row(effect: .ctapError(0x2E), scope: .ctap(.getInfo), once: false,
            line: "fault injected: authenticatorGetInfo: answered CTAP2_ERR_NO_CREDENTIALS (0x2E) instead of running (fault #1)"),
        Row(effect: .declinePresence, scope: .u2fRegister, once: false,
            line: "fault injected: U2F_REGISTER: the user declined the test of user presence (fault #1)"),
        Row(effect: .flags(userPresent: false, userVerified: nil), scope: .ctap(.getAssertion), once: false,
            line: "fault injected: authenticatorGetAssertion: authenticator data flags UP=1 UV=0 sent as UP=0 UV=0 (fault #1)"),
        Row(effect: .bogusSignature, scope: .ctap(.makeCredential), once: true,
            line: "fault injected: authenticatorMakeCredential: signature replaced by a bogus one (a bit of s flipped) (fault #1, now removed)"),
    ]

    @Test("a VirtualCard logs each act once, counts it, and retires a one-shot fault", arguments: rows)
    func logged(_ row: Row) throws {
        let card = try VirtualCard()
        _ = try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        var reported: [String] = []
        card.control.onFaultInjected = { reported.append($0.description) }
        try card.injectFault(row.effect, on: row.scope, once: row.once)
        switch row.scope {
        case .command(.select): _ = card.transmit(ControlAPDU.select)
        case .command(.u2fRegister):
            _ = card.u2fRegister(challenge: [UInt8](repeating: 1, count: 32), application: [UInt8](repeating: 2, count: 32))
        case .command(.ctap(CTAPCommand.getAssertion.rawValue)): _ = card.send(.getAssertion, ControlAPDU.getAssertion())
        case .command(.ctap(CTAPCommand.makeCredential.rawValue)):
            _ = card.send(.makeCredential, makeCredentialParameters(userId: [2], rk: false))
        default: _ = card.send(.getInfo)
        }
        #expect(card.faultLog.map(\.description) == [row.line])
        #expect(reported == [row.line])
        #expect(card.faultLog.first?.effect == row.effect)
        #expect(card.control.faults.map(\.hits) == (row.once ? [] : [1]))
    }
}
