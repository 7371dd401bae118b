import ArculusCard
import CBOR
import Testing
import FIDOWire

/// Faults scoped to one exact APDU (`apdu:HEX`) and the delay effect: the knobs that make one
/// malformed APDU, one CTAP request or one command depart from the card's behaviour, and nothing
/// else.
@Suite("Fault injection: one exact APDU, a slower answer")
struct APDUFaultTests {
    static let unknownInstruction: [UInt8] = [0x00, 0x99, 0x00, 0x00]

    @Test("a status word on one malformed APDU: that APDU answers it; the same instruction with other bytes, and the card's state, are untouched")
    func malformedAPDU() throws {
        let card = try VirtualCard()
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        #expect(card.transmit(Self.unknownInstruction) == [0x6D, 0x00])
        try card.injectFault(.statusWord(StatusWord(rawValue: 0x6A80)), on: .apdu(Self.unknownInstruction))
        #expect(card.transmit(Self.unknownInstruction) == [0x6A, 0x80])
        #expect(card.transmit(Self.unknownInstruction) == [0x6A, 0x80], "persistent until removed")
        #expect(card.transmit([0x00, 0x99, 0x00, 0x01]) == [0x6D, 0x00])
        #expect(card.send(.getInfo).status == .ok)
        #expect(card.faultLog.count == 2)
        #expect(card.faultLog[0].command == .apdu(Self.unknownInstruction))
        #expect(card.faultLog[0].description == "fault injected: APDU 00990000: answered status word 6A80 instead of letting the card read it (fault #1)")
    }

    @Test("a CTAP error on one NFCCTAP_MSG: that request answers it with 9000; the same command with other parameters runs")
    func oneRequest() throws {
        let card = try VirtualCard()
        #expect(card.exchangeWhole(ControlAPDU.select).sw == 0x9000)
        let lacking = ControlAPDU.ctap(ControlAPDU.request(.getAssertion, [.int(1): .text("example.com")]))
        #expect(card.exchangeWhole(lacking).data == [CTAPStatus.missingParameter.rawValue])
        try card.injectFault(.ctapError(CTAPStatus.invalidCBOR.rawValue), on: .apdu(lacking))
        #expect(card.transmit(lacking) == [CTAPStatus.invalidCBOR.rawValue, 0x90, 0x00])
        let whole = ControlAPDU.ctap(ControlAPDU.request(.getAssertion, ControlAPDU.getAssertion()))
        #expect(card.exchangeWhole(whole).data == [CTAPStatus.noCredentials.rawValue])
    }

    @Test("an APDU fault acts only when scoped to it: `any` never matches it, and a fault on any command leaves APDUs to the front")
    func anyDoesNotMatchAnAPDU() throws {
        let card = try VirtualCard()
        try card.injectFault(.statusWord(StatusWord(rawValue: 0x6F00)), on: .select)
        #expect(card.transmit(Self.unknownInstruction) == [0x6D, 0x00])
        #expect(!FaultScope.any.matches(.apdu(Self.unknownInstruction)))
        #expect(FaultScope.apdu(Self.unknownInstruction).matches(.apdu(Self.unknownInstruction)))
        #expect(CardCommand(name: "APDU:00990000") == .apdu(Self.unknownInstruction))
        #expect(CardCommand.apdu(Self.unknownInstruction).name == "apdu:00990000")
        #expect(CardCommand(name: "apdu:0099") == nil, "an APDU has at least 4 bytes")
    }

    @Test("an APDU fault answers a status word or, for an NFCCTAP_MSG, a CTAP status: anything else is refused with the reason")
    func refusals() throws {
        let card = try VirtualCard()
        #expect(throws: FaultError.notApplicable("APDU 00990000 is not an NFCCTAP_MSG; use a status word")) {
            try card.injectFault(.ctapError(0x12), on: .apdu(Self.unknownInstruction))
        }
        #expect(throws: FaultError.notApplicable("a fault on one exact APDU answers it with a status word or a CTAP status, not bogus-signature")) {
            try card.injectFault(.bogusSignature, on: .apdu(Self.unknownInstruction))
        }
        #expect(throws: FaultError.notApplicable("a delay is more than 0 and at most 3600 s, not 0.0 seconds")) {
            try card.injectFault(.delay(.zero), on: .ctap(.getAssertion))
        }
    }

    @Test("a delay on getAssertion: it answers that much later, as it would have; getInfo is as fast as before")
    func delay() throws {
        let clock = ManualCardClock()
        let card = try VirtualCard(clock: clock.read)
        card.use(clock)
        try card.injectFault(.delay(.milliseconds(120)), on: .ctap(.getAssertion))
        let start = clock.now
        #expect(card.send(.getAssertion, ControlAPDU.getAssertion()).status == .noCredentials)
        #expect(start.duration(to: clock.now) == .milliseconds(120))
        #expect(clock.waits == [.milliseconds(120)])
        _ = card.send(.getInfo)
        #expect(clock.waits == [.milliseconds(120)], "getInfo waits for nothing")
        #expect(card.faultLog.map(\.description) == ["fault injected: authenticatorGetAssertion: answered 0.12 seconds later (fault #1)"])
    }
}
