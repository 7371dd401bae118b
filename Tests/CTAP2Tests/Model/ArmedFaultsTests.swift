@testable import CTAP2
import FIDOWire
import Testing

/// The faults a test double arms, as the environment carries them: which one acts at each point
/// inside a command, what it does there, and the acts noted for the boundary.
@Suite("Armed faults: the points inside a command, as a value")
struct ArmedFaultsTests {
    typealias Fault = ArmedFaults.Fault
    static let makeCredential = CardCommand.ctap(.makeCredential)
    static let notFound = StatusWord(rawValue: 0x6A82)

    @Test("the first armed fault that applies acts; a one-shot one then gives way to the next")
    func order() {
        var faults = ArmedFaults([
            Fault(id: 1, command: .ctap(.getAssertion), point: .declinePresence, once: false),
            Fault(id: 2, command: nil, point: .bogusSignature, once: false),
            Fault(id: 3, command: nil, point: .declinePresence, once: true),
            Fault(id: 4, command: Self.makeCredential, point: .declinePresence, once: false),
        ])
        let first = faults.declinesPresence(in: Self.makeCredential)
        #expect(first)
        #expect(faults.faults.map(\.id) == [1, 2, 4], "the one-shot fault is disarmed once it acted")
        let second = faults.declinesPresence(in: Self.makeCredential)
        #expect(second)
        #expect(faults.faults.map(\.id) == [1, 2, 4])
        let taken = faults.takeActs()
        #expect(taken == [FaultAct(faultID: 3, command: Self.makeCredential, kind: .declinedPresence),
                          FaultAct(faultID: 4, command: Self.makeCredential, kind: .declinedPresence)])
        #expect(faults.acts.isEmpty, "taken")
    }

    @Test("'any' is every command a card runs, never one exact APDU; a scoped fault only its command")
    func scopes() {
        var faults = ArmedFaults([Fault(id: 1, command: nil, point: .statusWord(Self.notFound), once: false),
                                  Fault(id: 2, command: .u2fRegister, point: .statusWord(.wrongData), once: false)])
        let onAPDU = faults.statusWord(insteadOf: .apdu([0x00, 0xA4, 0x04, 0x00]))
        #expect(onAPDU == nil)
        #expect(faults.acts.isEmpty)
        let onSelect = faults.statusWord(insteadOf: .select)
        #expect(onSelect == Self.notFound)
        #expect(faults.acts == [FaultAct(faultID: 1, command: .select, kind: .answeredStatusWord(Self.notFound))])

        var scoped = ArmedFaults([Fault(id: 2, command: .u2fRegister, point: .statusWord(.wrongData), once: false)])
        let onAuthenticate = scoped.statusWord(insteadOf: .u2fAuthenticate)
        #expect(onAuthenticate == nil)
        let onRegister = scoped.statusWord(insteadOf: .u2fRegister)
        #expect(onRegister == .wrongData)
    }

    @Test("a CTAP status instead of running, noted with its byte")
    func ctapStatus() {
        var faults = ArmedFaults([Fault(id: 9, command: .ctap(.getInfo), point: .ctapStatus(0x2E), once: false)])
        let onAssertion = faults.ctapStatus(insteadOf: .ctap(.getAssertion))
        #expect(onAssertion == nil)
        let onInfo = faults.ctapStatus(insteadOf: .ctap(.getInfo))
        #expect(onInfo == 0x2E)
        #expect(faults.acts == [FaultAct(faultID: 9, command: .ctap(.getInfo), kind: .answeredStatus(0x2E))])
    }

    @Test("flags: set and cleared as armed (nil keeps a flag); the act says from what to what")
    func flags() {
        var faults = ArmedFaults([Fault(id: 5, command: nil, point: .flags(userPresent: false, userVerified: true), once: false),
                                  Fault(id: 6, command: nil, point: .flags(userPresent: nil, userVerified: false), once: false)])
        let before: AuthenticatorData.Flags = [.userPresent, .attestedCredentialData]
        let sent = faults.flags(before, in: Self.makeCredential)
        #expect(sent == [.userVerified, .attestedCredentialData])
        #expect(faults.acts == [FaultAct(faultID: 5, command: Self.makeCredential,
                                         kind: .changedFlags(from: before, to: [.userVerified, .attestedCredentialData]))])
    }

    @Test("a bogus signature has its last bit flipped; an empty signature is left alone and nothing acts")
    func signature() {
        var faults = ArmedFaults([Fault(id: 6, command: nil, point: .bogusSignature, once: true)])
        let empty = faults.signature([], in: Self.makeCredential)
        #expect(empty == [])
        #expect(faults.acts.isEmpty)
        let bogus = faults.signature([0x30, 0x02], in: Self.makeCredential)
        #expect(bogus == [0x30, 0x03])
        let again = faults.signature([0x30, 0x02], in: Self.makeCredential)
        #expect(again == [0x30, 0x02], "one-shot: it acted already")
        #expect(faults.acts == [FaultAct(faultID: 6, command: Self.makeCredential, kind: .bogusSignature)])
    }

    @Test("nothing armed: every point leaves the command as it is and nothing is noted")
    func nothingArmed() {
        var faults = ArmedFaults()
        let word = faults.statusWord(insteadOf: .select)
        #expect(word == nil)
        let status = faults.ctapStatus(insteadOf: .ctap(.getInfo))
        #expect(status == nil)
        let declined = faults.declinesPresence(in: Self.makeCredential)
        #expect(!declined)
        let flags = faults.flags(.userPresent, in: Self.makeCredential)
        #expect(flags == .userPresent)
        let signature = faults.signature([1, 2], in: Self.makeCredential)
        #expect(signature == [1, 2])
        #expect(faults.acts.isEmpty)
    }
}
