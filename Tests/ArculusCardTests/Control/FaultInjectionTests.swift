import ArculusCard
import CardCrypto
import Testing
import FIDOWire
import TestSupport

@Suite("Fault injection, in process")
struct FaultInjectionTests {
    /// A card with one discoverable credential for example.com.
    static func cardWithCredential(storage: CardStorage = InMemoryStorage()) throws -> (VirtualCard, CredentialRecord) {
        let card = try VirtualCard(profile: .default, storage: storage)
        let record = try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
        return (card, record)
    }

    @Test("a CTAP error on getAssertion is answered instead; persistent until removed, other commands untouched")
    func ctapError() throws {
        let (card, _) = try Self.cardWithCredential()
        let fault = try card.injectFault(.ctapError(0x2E), on: .ctap(.getAssertion))
        #expect(card.send(.getAssertion, ControlAPDU.getAssertion()).bytes == [0x2E])
        #expect(card.send(.getAssertion, ControlAPDU.getAssertion()).bytes == [0x2E])
        #expect(card.send(.getInfo).status == .ok)
        #expect(card.pinState.signatureCounter == 0, "the command did not run")
        #expect(card.faultLog.count == 2)
        #expect(card.faultLog[0].faultID == fault.id)
        #expect(card.faultLog[0].command == .ctap(.getAssertion))
        #expect(card.faultLog[0].description.hasPrefix("fault injected: authenticatorGetAssertion: answered CTAP2_ERR_NO_CREDENTIALS (0x2E)"))
        #expect(card.control.faults.first?.hits == 2)
        try card.control.removeFault(id: fault.id)
        #expect(card.send(.getAssertion, ControlAPDU.getAssertion()).status == .ok)
    }

    @Test("a one-shot fault acts once; a status byte the card does not know goes out as it is")
    func once() throws {
        let card = try VirtualCard()
        try card.injectFault(.ctapError(0x99), once: true)
        #expect(card.send(.getInfo).bytes == [0x99])
        #expect(card.send(.getInfo).status == .ok)
        #expect(card.control.faults.isEmpty)
        #expect(card.faultLog.map(\.removed) == [true])
    }

    @Test("a CTAP error reaches the reader through NFCCTAP_MSG with 9000, and through 9100 polling after the busy time")
    func ctapErrorThroughFront() throws {
        let card = try VirtualCard(frontOptions: .init(busyFirst: true, busyPolls: 1))
        try card.injectFault(.ctapError(0x2E), on: .ctap(.getAssertion))
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        let request = ControlAPDU.request(.getAssertion, ControlAPDU.getAssertion())
        #expect(card.exchangeWhole(ControlAPDU.ctap(request, p1: 0x80)).sw == 0x9100)
        #expect(card.exchangeWhole(ControlAPDU.pollResult).sw == 0x9100)
        let result = card.exchangeWhole(ControlAPDU.pollResult)
        #expect(result.sw == 0x9000)
        #expect(result.data == [0x2E])
    }

    @Test("a status word answers the scoped command with no data: SELECT, a CTAP message, any command")
    func statusWord() throws {
        let card = try VirtualCard()
        try card.injectFault(.statusWord(StatusWord(rawValue: 0x6A82)), on: .select, once: true)
        #expect(card.transmit(ControlAPDU.select) == [0x6A, 0x82])
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        try card.injectFault(.statusWord(StatusWord(rawValue: 0x6F00)), on: .ctap(.getInfo))
        #expect(card.transmit(ControlAPDU.ctap([0x04])) == [0x6F, 0x00])
        #expect(card.send(.getInfo).status == .ok, "CTAP straight to the authenticator has no status word")
        card.clearFaults()
        try card.injectFault(.statusWord(StatusWord(rawValue: 0x6985)))
        #expect(card.transmit(ControlAPDU.select) == [0x69, 0x85])
        #expect(card.transmit([0x00, 0xC0, 0x00, 0x00, 0x00]) == [0x69, 0x85], "GET RESPONSE is not a command: 6985 (nothing pending)")
        #expect(card.faultLog.count == 3, "GET RESPONSE did not count as a command")
    }

    @Test("a bogus signature fails verification; the signature is still well-formed DER")
    func bogusSignature() throws {
        let (card, record) = try Self.cardWithCredential()
        try card.injectFault(.bogusSignature, on: .ctap(.getAssertion), once: true)
        let bogus = try Assertion(card.send(.getAssertion, ControlAPDU.getAssertion()))
        #expect(!bogus.verifies(with: record.publicKey))
        #expect(bogus.signature.first == 0x30 && Int(bogus.signature[1]) == bogus.signature.count - 2)
        let good = try Assertion(card.send(.getAssertion, ControlAPDU.getAssertion()))
        #expect(good.verifies(with: record.publicKey))
        #expect(card.faultLog.map(\.effect) == [.bogusSignature])
    }

    @Test("a bogus signature on U2F AUTHENTICATE")
    func bogusU2FSignature() throws {
        let card = try VirtualCard()
        let application = SHA256.hash(Array("https://u2f.example".utf8))
        let record = try card.addCredential(CredentialSeed(rpId: "https://u2f.example", discoverable: false))
        try card.injectFault(.bogusSignature, on: .u2fAuthenticate)
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        let challenge = [UInt8](repeating: 7, count: 32)
        let reply = card.exchangeWhole([0x00, 0x02, 0x03, 0x00, UInt8(65 + record.id.count)] + challenge + application
                                       + [UInt8(record.id.count)] + record.id + [0x00])
        #expect(reply.sw == 0x9000)
        #expect(!record.publicKey.isValidSignature(Array(reply.data[5...]), for: application + Array(reply.data[0..<5]) + challenge))
    }

    @Test("flags: UP cleared and UV set in authenticator data, and the card signs what it sends")
    func flags() throws {
        let (card, record) = try Self.cardWithCredential()
        try card.injectFault(.flags(userPresent: false, userVerified: true), on: .ctap(.getAssertion))
        let assertion = try Assertion(card.send(.getAssertion, ControlAPDU.getAssertion()))
        #expect(assertion.flags & 0x01 == 0)
        #expect(assertion.flags & 0x04 == 0x04)
        #expect(assertion.verifies(with: record.publicKey))
        #expect(card.faultLog.last?.detail == "authenticator data flags UP=1 UV=0 sent as UP=0 UV=1")
    }

    @Test("flags on makeCredential")
    func makeCredentialFlags() throws {
        let card = try VirtualCard()
        try card.injectFault(.flags(userPresent: false, userVerified: nil), on: .ctap(.makeCredential))
        let body = try card.send(.makeCredential, makeCredentialParameters(userId: [1], rk: false)).okBody()
        let authData = try #require(body[int: 2]?.bytesValue)
        #expect(authData[32] & 0x01 == 0)
        #expect(authData[32] & 0x40 == 0x40, "attested credential data stays")
    }

    @Test("leaving the field: the command runs, the response is lost, the card answers nothing until powered again")
    func leaveField() throws {
        let (card, record) = try Self.cardWithCredential()
        var away: Duration?
        card.control.onLeaveField = { away = $0 }
        try card.injectFault(.leaveField(away: .milliseconds(700)), on: .ctap(.getAssertion))
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        let request = ControlAPDU.ctap(ControlAPDU.request(.getAssertion, ControlAPDU.getAssertion()))
        #expect(card.transmit(request) == [])
        #expect(!card.isInField)
        #expect(away == .milliseconds(700))
        #expect(card.pinState.signatureCounter == 1, "the command ran before the card left")
        #expect(card.transmit(ControlAPDU.select) == [], "gone until powered again")
        #expect(throws: CardRemovedError(command: ControlAPDU.select)) { try card.exchange(ControlAPDU.select) }
        #expect(card.control.faults.isEmpty, "leaving the field is one-shot by default")

        card.powerCycle()
        #expect(card.isInField)
        #expect(!card.front.isAppletSelected, "a power cycle forgets the selection")
        let assertion = try Assertion(try card.ctapThroughFront(.getAssertion, ControlAPDU.getAssertion()))
        #expect(assertion.verifies(with: record.publicKey))
        #expect(assertion.counter == 2)
    }

    @Test("leaving the field on SELECT, and no leaving for CTAP sent straight to the authenticator")
    func leaveFieldScopes() throws {
        let card = try VirtualCard()
        try card.injectFault(.leaveField, on: .select)
        #expect(throws: CardRemovedError(command: ControlAPDU.select)) { try card.exchange(ControlAPDU.select) }
        card.powerOn()
        try card.injectFault(.leaveField, on: .ctap(.getInfo))
        #expect(card.send(.getInfo).status == .ok)
        #expect(card.isInField)
        #expect(card.control.faults.count == 1, "not used up: no APDU to vanish from")
    }

    @Test("a failed write is torn: CTAP1_ERR_OTHER, state as before, also after a reopen; the next write works")
    func failNextWrite() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        var before: CardState?
        do {
            let card = try VirtualCard(imageAt: path)
            try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))
            before = card.authenticator.state
            try card.injectFault(.failNextWrite, on: .ctap(.makeCredential))
            let response = card.send(.makeCredential, makeCredentialParameters(userId: [2], rk: true))
            #expect(response.status == .other)
            #expect(card.authenticator.state == before)
            #expect(card.faultLog.map(\.effect) == [.failNextWrite])
        }
        let reopened = try VirtualCard(imageAt: path)
        #expect(reopened.authenticator.state == before)
        #expect(reopened.send(.makeCredential, makeCredentialParameters(userId: [2], rk: true)).status == .ok)
        #expect(reopened.credentials.count == 2)
    }

    @Test("a torn write during a PIN check leaves the retry counter as it was")
    func failNextWritePIN() throws {
        let card = try VirtualCard()
        try card.setPIN("123456")
        try card.setPINRetries(5)
        try card.injectFault(.failNextWrite, on: .ctap(.clientPIN))
        let refused = #expect(throws: TestFailure.self) { try PlatformPINOne.token("123456", on: card) }
        #expect(refused?.description == "expected CTAP2_OK, got CTAP1_ERR_OTHER", "the torn write answers CTAP1_ERR_OTHER")
        #expect(card.pinState.retries == 5)
        _ = try PlatformPINOne.token("123456", on: card)
        #expect(card.pinState.retries == 8)
    }

    @Test("state control writes are never failed by an armed write fault")
    func stateControlIgnoresWriteFaults() throws {
        let card = try VirtualCard()
        try card.injectFault(.failNextWrite)
        try card.setPIN("123456")
        try card.setSignatureCounter(5)
        #expect(card.pinState.values == (true, 8, 5))
        #expect(card.control.faults.count == 1)
    }

    @Test("declining presence: makeCredential, getAssertion, selection and reset are OPERATION_DENIED")
    func declinePresence() throws {
        let (card, _) = try Self.cardWithCredential()
        try card.injectFault(.declinePresence)
        #expect(card.send(.makeCredential, makeCredentialParameters(userId: [3], rk: false)).status == .operationDenied)
        #expect(card.send(.getAssertion, ControlAPDU.getAssertion()).status == .operationDenied)
        #expect(card.send(.selection).status == .operationDenied)
        card.powerCycle()
        #expect(card.send(.reset).status == .operationDenied)
        #expect(card.credentials.count == 1)
        // up=false asks no presence: the assertion is made (without UP).
        let silent = try Assertion(card.send(.getAssertion, ControlAPDU.getAssertion(up: false)))
        #expect(silent.flags & 0x01 == 0)
        #expect(card.faultLog.count == 4)
    }

    @Test("declining presence on U2F REGISTER answers 6985")
    func declinePresenceU2F() throws {
        let card = try VirtualCard()
        try card.injectFault(.declinePresence, on: .u2fRegister, once: true)
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        let register: [UInt8] = [0x00, 0x01, 0x00, 0x00, 64] + [UInt8](repeating: 1, count: 64) + [0x00]
        #expect(card.exchangeWhole(register).sw == 0x6985)
        #expect(card.exchangeWhole(register).sw == 0x9000)
    }

    @Test("faults that could never act are refused, saying why", arguments: [
        (Fault(.ctapError(0x2E), on: .u2fRegister), "U2F_REGISTER is not a CTAP2 command; use a status word"),
        (Fault(.ctapError(0x00)), "0x00 is CTAP2_OK, not an error"),
        (Fault(.bogusSignature, on: .ctap(.getInfo)), "authenticatorGetInfo makes no signature"),
        (Fault(.flags(userPresent: nil, userVerified: nil)), "no flag to change (give up and/or uv)"),
        (Fault(.flags(userPresent: false, userVerified: nil), on: .select), "SELECT sends no authenticator data"),
        (Fault(.failNextWrite, on: .ctap(.getInfo)), "authenticatorGetInfo never writes to the card's memory"),
        (Fault(.declinePresence, on: .ctap(.clientPIN)), "authenticatorClientPIN never tests user presence"),
        (Fault(.leaveField(away: .seconds(4000))), "the card can stay away between 0 and 3600 s, not 4000.0 seconds"),
    ])
    func refused(fault: Fault, reason: String) throws {
        let card = try VirtualCard()
        #expect(throws: FaultError.notApplicable(reason)) { try card.control.inject(fault) }
        #expect(card.control.faults.isEmpty)
    }

    @Test("removing an unknown fault is refused with its ID")
    func unknownFault() throws {
        let card = try VirtualCard()
        #expect(throws: FaultError.noSuchFault(7)) { try card.control.removeFault(id: 7) }
    }

    @Test("events are one-shot by default, behaviours persistent", arguments: [
        (FaultEffect.leaveField, true), (.failNextWrite, true), (.ctapError(1), false), (.bogusSignature, false),
        (.declinePresence, false), (.statusWord(StatusWord(rawValue: 0x6A82)), false),
        (.flags(userPresent: false, userVerified: nil), false),
    ])
    func lifetimes(effect: FaultEffect, once: Bool) {
        #expect(Fault(effect).once == once)
        #expect(Fault(effect, once: !once).once == !once)
    }

    @Test("the first matching fault acts: a scoped one before a later 'any' one")
    func order() throws {
        let card = try VirtualCard()
        try card.injectFault(.ctapError(0x2E), on: .ctap(.getInfo))
        try card.injectFault(.ctapError(0x7F))
        #expect(card.send(.getInfo).bytes == [0x2E])
        #expect(card.send(.reset).bytes == [0x7F])
    }

    @Test("every fault that acts is reported to onFaultInjected as it happens")
    func callback() throws {
        let (card, _) = try Self.cardWithCredential()
        var seen: [String] = []
        card.control.onFaultInjected = { seen.append($0.description) }
        try card.injectFault(.bogusSignature, once: true)
        _ = card.send(.getAssertion, ControlAPDU.getAssertion())
        #expect(seen == ["fault injected: authenticatorGetAssertion: signature replaced by a bogus one (a bit of s flipped) (fault #1, now removed)"])
    }
}

@Suite("Fault scopes and command names")
struct FaultScopeTests {
    @Test("command names parse", arguments: [
        ("getAssertion", FaultScope.ctap(.getAssertion)), ("authenticatorGetAssertion", .ctap(.getAssertion)),
        ("GETASSERTION", .ctap(.getAssertion)), ("0x02", .ctap(.getAssertion)), ("2", .ctap(.getAssertion)),
        ("makeCredential", .ctap(.makeCredential)), ("clientPIN", .ctap(.clientPIN)), ("0x42", .command(.ctap(0x42))),
        ("u2f-register", .u2fRegister), ("u2f-authenticate", .u2fAuthenticate), ("select", .select), ("any", .any),
    ])
    func names(name: String, scope: FaultScope) {
        #expect(FaultScope(name: name) == scope)
        #expect(FaultScope(name: scope.name) == scope)
    }

    @Test("unknown names do not parse", arguments: ["", "getassertions", "0x100", "u2f", "-1", "0xZZ"])
    func unknown(name: String) {
        #expect(FaultScope(name: name) == nil)
    }
}
