@testable import ArculusCard
import CardCrypto
import Testing
import FIDOWire
import TestSupport

/// The card model's phases (``CardModel/Phase``), one transition per test: from which phase,
/// by which input, into which phase, and what the input returns. The impossible transitions —
/// anything but finishWrite while a write is pending, finishWrite with none — are precondition
/// failures, tested by running them in a process of their own.
@Suite("Card model phases: the transitions and what they return")
struct CardModelPhaseTests {
    static let getInfo = TestAPDU.nfcctapMessage([CTAPCommand.getInfo.rawValue])
    static let getKeyAgreement = TestAPDU.ctapMessage(.clientPIN, CBORMap([
        ClientPINKey.pinUvAuthProtocol: 1, .subCommand: .int(ClientPINSubcommand.getKeyAgreement.rawValue)]))
    static let makeCredential = TestAPDU.ctapMessage(.makeCredential, makeCredentialParameters(userId: [1], rk: true))

    /// A blank model, powered and idle at the origin.
    static func model() throws -> CardModel {
        try ModelDriver(entropy: .seeded(Array("phases".utf8))).model
    }

    static func at(_ seconds: Double) -> CommandEnvironment {
        CommandEnvironment(now: .seconds(seconds))
    }

    /// The answer of a `.respond` action; fails the test on any other action.
    static func answer(_ action: CardAction, sourceLocation: SourceLocation = #_sourceLocation)
        -> (response: [UInt8], ran: CardCommand?, work: Duration)? {
        guard case .respond(let response, let ran, let work, _) = action else {
            Issue.record("expected an answer, got \(action)", sourceLocation: sourceLocation)
            return nil
        }
        return (response, ran, work)
    }

    // MARK: - Power

    @Test("a new model is idle; powerOff → unpowered; powerOn → idle; leaveField → out of the field")
    func power() throws {
        var model = try Self.model()
        #expect(model.phase.description == "idle")
        #expect(model.isInField)
        model.powerOff(at: .seconds(1))
        #expect(model.phase.description == "unpowered")
        #expect(model.isInField, "off is not away: the next command powers it")
        #expect(!model.authenticator.isPowered)
        model.powerOn(at: .seconds(2))
        #expect(model.phase.description == "idle")
        #expect(model.authenticator.isPowered)
        model.leaveField(at: .seconds(3))
        #expect(model.phase.description == "out of the field")
        #expect(!model.isInField)
        #expect(!model.authenticator.isPowered)
    }

    @Test("out of the field: APDUs get silence; powerOff → unpowered (in the field), powerOn → idle")
    func outOfField() throws {
        var model = try Self.model()
        model.leaveField(at: .seconds(1))
        guard case .silent = model.receive(NFCBinding.selectFIDOApplet, in: Self.at(2)) else {
            Issue.record("a card out of the field answered")
            return
        }
        #expect(model.phase.description == "out of the field")
        var off = model
        off.powerOff(at: .seconds(3))
        #expect(off.phase.description == "unpowered")
        #expect(off.isInField)
        model.powerOn(at: .seconds(3))
        #expect(model.phase.description == "idle")
        #expect(Self.answer(model.receive(NFCBinding.selectFIDOApplet, in: Self.at(4)))?.ran == .select)
    }

    @Test("a card that is off answers at its front and powers up when the first command reaches the authenticator")
    func powerUpByCommand() throws {
        var model = try Self.model()
        try ModelDriver.select(&model)
        model.powerOff(at: .seconds(5))
        let selected = Self.answer(model.receive(NFCBinding.selectFIDOApplet, in: Self.at(100)))
        #expect(selected?.response == Array(model.authenticator.profile.selectResponse.utf8) + [0x90, 0x00])
        #expect(selected?.ran == .select)
        #expect(model.phase.description == "unpowered", "SELECT is the front's alone")
        #expect(!model.authenticator.isPowered)

        let info = Self.answer(model.receive(Self.getInfo, in: Self.at(105)))
        #expect(info?.response.first == CTAPStatus.ok.rawValue)
        #expect(info?.ran == .ctap(.getInfo))
        #expect(model.phase.description == "idle")
        #expect(model.authenticator.isPowered)
        #expect(model.front.isAppletSelected, "powering up by command keeps what the front was given")
        // The reset window (10 s) counts from that power-up: 9 s after it, 14 s after the SELECT.
        guard case .persist = model.receive(TestAPDU.nfcctapMessage([CTAPCommand.reset.rawValue]), in: Self.at(114)) else {
            Issue.record("the reset did not run")
            return
        }
        #expect(Self.answer(model.finishWrite(succeeded: true))?.response == [CTAPStatus.ok.rawValue, 0x90, 0x00])
    }

    @Test("a U2F command to a card that is off powers it up too")
    func powerUpByU2F() throws {
        var model = try ModelDriver(profile: .arculusFIDO2).model
        try ModelDriver.select(&model)
        model.powerOff(at: .seconds(1))
        _ = model.receive(NFCBinding.selectFIDOApplet, in: Self.at(2))
        let register = [0x00, 0x01, 0x03, 0x00, 64] + [UInt8](repeating: 1, count: 32) + [UInt8](repeating: 2, count: 32) + [0x00]
        let answer = Self.answer(model.receive(register, in: Self.at(3)))
        #expect(answer?.response.first == 0x05)
        #expect(answer?.ran == .u2fRegister)
        #expect(model.phase.description == "idle")
    }

    @Test("a request straight to the authenticator powers a card that is off or out of the field")
    func powerOnByDirectRequest() throws {
        var off = try Self.model()
        off.powerOff(at: .seconds(1))
        let info = Self.answer(off.receiveCTAP([CTAPCommand.getInfo.rawValue], in: Self.at(2)))
        #expect(info?.response.first == CTAPStatus.ok.rawValue)
        #expect(info?.ran == .ctap(.getInfo))
        #expect(off.phase.description == "idle")

        var away = try Self.model()
        away.leaveField(at: .seconds(1))
        let agreement = Self.answer(away.receiveCTAP(Self.getKeyAgreement, in: Self.at(2)))
        #expect(agreement?.response.first == CTAPStatus.ok.rawValue, "new key-agreement keys")
        #expect(away.phase.description == "idle")
        #expect(away.isInField)

        var u2f = try Self.model()
        u2f.powerOff(at: .seconds(1))
        let register = Self.answer(u2f.receiveU2F(.u2fRegister(challenge: [UInt8](repeating: 1, count: 32),
                                                               application: [UInt8](repeating: 2, count: 32)), in: Self.at(2)))
        #expect(register?.response.first == 0x05)
        #expect(register?.response.suffix(2) == [0x90, 0x00])
        #expect(u2f.phase.description == "idle")
    }

    // MARK: - Writing

    @Test("a command with changes: persist → writing; finishWrite → the answer, idle again")
    func writing() throws {
        var model = try Self.model()
        try ModelDriver.select(&model)
        guard case .persist(let changes, let command, let acts) = model.receive(TestAPDU.nfcctapMessage(Self.makeCredential),
                                                                                 in: Self.at(1)) else {
            Issue.record("makeCredential did not ask to persist")
            return
        }
        #expect(!changes.isEmpty)
        #expect(command == .ctap(.makeCredential))
        #expect(acts.isEmpty)
        #expect(model.phase.description == "writing the changes of authenticatorMakeCredential")
        let before = model
        let answer = Self.answer(model.finishWrite(succeeded: true))
        #expect(answer?.response.first == CTAPStatus.ok.rawValue)
        #expect(answer?.ran == .ctap(.makeCredential))
        #expect(model.phase.description == "idle")
        #expect(model.authenticator.state.residentCredentials.count == 1)

        var failed = before
        let refused = Self.answer(failed.finishWrite(succeeded: false))
        #expect(refused?.response == [CTAPStatus.other.rawValue, 0x90, 0x00])
        #expect(failed.phase.description == "idle")
        #expect(failed.authenticator.state.residentCredentials.isEmpty, "a failed write changes nothing")
    }

    // MARK: - Simulated work

    /// How long getKeyAgreement takes with the realistic timing profile.
    static let agreementTime = TimingProfile.realistic.duration(of: .ctap(.clientPIN), request: getKeyAgreement[...])

    /// A selected model with the realistic timing profile.
    static func timedModel() throws -> CardModel {
        var model = try Self.model()
        model.timing = .realistic
        try ModelDriver.select(&model)
        return model
    }

    /// A timed model that got getKeyAgreement with P1 80 at 10 s, and its answer to it.
    static func workingModel() throws -> (model: CardModel, answer: CardAction) {
        var model = try timedModel()
        let answer = model.receive(TestAPDU.nfcctapMessage(getKeyAgreement, p1: 0x80), in: at(10))
        return (model, answer)
    }

    @Test("timing on, P1 80: working until the request's time; a poll before answers 9100, one after runs it, paid")
    func working() throws {
        #expect(Self.agreementTime > .zero)
        var (model, answer) = try Self.workingModel()
        let deferred = Self.answer(answer)
        #expect(deferred?.response == [0x01, 0x91, 0x00])
        #expect(deferred?.ran == nil)
        #expect(deferred?.work == TimingProfile.realistic.apdu)
        let until = CardInstant.seconds(10).advanced(by: Self.agreementTime)
        #expect(model.phase.description == "working until \(until)")

        let early = Self.answer(model.receive(TestAPDU.nfcctapGetResponse,
                                              in: CommandEnvironment(now: until.advanced(by: .milliseconds(-1)))))
        #expect(early?.response == [0x01, 0x91, 0x00])
        #expect(model.phase.description == "working until \(until)")

        let done = Self.answer(model.receive(TestAPDU.nfcctapGetResponse, in: CommandEnvironment(now: until)))
        #expect(done?.response.first == CTAPStatus.ok.rawValue)
        #expect(done?.ran == .ctap(.clientPIN))
        #expect(done?.work == TimingProfile.realistic.apdu, "its time was spent answering 9100")
        #expect(model.phase.description == "idle")
    }

    @Test("timing on, P1 00: the request runs at once and its time is the answer's work")
    func notDeferred() throws {
        var model = try Self.timedModel()
        let answer = Self.answer(model.receive(TestAPDU.nfcctapMessage(Self.getKeyAgreement), in: Self.at(10)))
        #expect(answer?.response.first == CTAPStatus.ok.rawValue)
        #expect(answer?.work == TimingProfile.realistic.apdu + Self.agreementTime)
        #expect(model.phase.description == "idle")
    }

    @Test("while working, a request straight to the authenticator and its write leave the work going on")
    func directWhileWorking() throws {
        var model = try Self.workingModel().model
        let working = model.phase.description
        #expect(working.hasPrefix("working until "))
        guard case .persist = model.receiveCTAP(Self.makeCredential, in: Self.at(10)) else {
            Issue.record("makeCredential did not ask to persist")
            return
        }
        #expect(model.phase.description == "writing the changes of authenticatorMakeCredential")
        #expect(Self.answer(model.finishWrite(succeeded: true))?.response.first == CTAPStatus.ok.rawValue)
        #expect(model.phase.description == working)
        #expect(Self.answer(model.receive(TestAPDU.nfcctapGetResponse, in: Self.at(10)))?.response == [0x01, 0x91, 0x00])
    }

    @Test("while working, any APDU but a poll drops the request at the front, and the work with it: the phase follows the front")
    func otherAPDUWhileWorking() throws {
        for apdu in [NFCBinding.selectFIDOApplet, TestAPDU.getResponse(), [0x80, 0x11, 0x11, 0x00]] {
            var model = try Self.workingModel().model
            #expect(model.phase.description.hasPrefix("working until "))
            _ = model.receive(apdu, in: Self.at(10))
            #expect(!model.front.holdsDeferredRequest)
            #expect(model.phase.description == "idle", "\(Hex.string(apdu))")
            #expect(model.volatileInventory.first { $0.name == "simulatedWork" }?.isInitial == true)
        }
    }

    @Test("power off while working: the work is gone with the rest of the volatile state")
    func powerOffWhileWorking() throws {
        var model = try Self.workingModel().model
        #expect(model.volatileInventory.first { $0.name == "simulatedWork" }?.isInitial == false)
        model.powerOff(at: .seconds(10))
        #expect(model.phase.description == "unpowered")
        #expect(model.volatileInventory.filter { !$0.isInitial }.isEmpty)
    }

    // MARK: - Impossible transitions

    /// A model with a write pending, then one input that may not come before finishWrite. A model
    /// that cannot be made, or is not writing, exits normally, which fails the test.
    static func whileWriting(_ input: (inout CardModel) -> Void) {
        guard var model = try? model() else { return }
        _ = model.receiveCTAP(makeCredential, in: CommandEnvironment(now: .origin))
        guard case .writing = model.phase else { return }
        input(&model)
    }

    /// What a process that stopped wrote to standard error.
    static func errorText(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    static let writing = "while writing the changes of authenticatorMakeCredential"

    @Test("finishWrite with no write pending is a precondition failure naming the phase")
    func finishWriteWhileIdle() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            guard var model = try? CardModelPhaseTests.model() else { return }
            _ = model.finishWrite(succeeded: true)
        }
        #expect(Self.errorText(result).contains("finishWrite while idle: no write is pending"))
    }

    @Test("an APDU while a write is pending is a precondition failure naming the phase")
    func apduWhileWriting() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            CardModelPhaseTests.whileWriting { _ = $0.receive(NFCBinding.selectFIDOApplet, in: CommandEnvironment(now: .origin)) }
        }
        #expect(Self.errorText(result).contains("an APDU arrived " + Self.writing))
    }

    @Test("a request straight to the authenticator while a write is pending is a precondition failure")
    func requestWhileWriting() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            CardModelPhaseTests.whileWriting { _ = $0.receiveCTAP([CTAPCommand.getInfo.rawValue], in: CommandEnvironment(now: .origin)) }
        }
        #expect(Self.errorText(result).contains("a request arrived " + Self.writing))
    }

    @Test("power off or on while a write is pending is a precondition failure")
    func powerWhileWriting() async {
        let off = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            CardModelPhaseTests.whileWriting { $0.powerOff(at: .origin) }
        }
        #expect(Self.errorText(off).contains("the card lost power " + Self.writing))
        let on = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            CardModelPhaseTests.whileWriting { $0.powerOn(at: .origin) }
        }
        #expect(Self.errorText(on).contains("the card was powered " + Self.writing))
    }

    @Test("a state control while a write is pending is a precondition failure")
    func stateControlWhileWriting() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            CardModelPhaseTests.whileWriting { $0.commit([]) }
        }
        #expect(Self.errorText(result).contains("a state control committed changes " + Self.writing))
    }

    @Test("the authenticator no longer powers itself: a command while it is off is a precondition failure")
    func authenticatorOff() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            guard var authenticator = try? CardModelPhaseTests.model().authenticator else { return }
            authenticator.powerOff(at: .origin)
            _ = authenticator.process([CTAPCommand.getInfo.rawValue], in: CommandEnvironment(now: .origin))
        }
        #expect(Self.errorText(result).contains("a command reached the authenticator while it was off"))
    }
}

extension ModelDriver {
    /// Selects the FIDO applet on `model`.
    static func select(_ model: inout CardModel) throws {
        guard case .respond(let response, _, _, _) = model.receive(NFCBinding.selectFIDOApplet, in: CommandEnvironment(now: .origin)),
              response.suffix(2) == [0x90, 0x00] else { throw TestFailure("SELECT failed") }
    }
}
