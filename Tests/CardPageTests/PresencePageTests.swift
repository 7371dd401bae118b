import ArculusCard
import CardPage
import FIDOWire
import JSONSupport
import Testing
import TestSupport

/// The page's presence and PIN controls: the ops reach the card as `ctl`'s do, bad ones are
/// refused with the control protocol's exact message and change nothing, and a prompt the card
/// starts to wait on is pushed to the page within a second though nothing else tells the page.
@Suite("the card page's presence and PIN controls")
struct PresencePageTests {
    /// makeCredential for example.com (user h'01' "a", ES256, discoverable), as NFCCTAP_MSG with P1 80: a host
    /// that polls, so the card answers 9100 UPNEEDED and keeps serving while its prompt waits.
    static let polledMakeCredential: [UInt8] = {
        let request = hex("01 A5")
            + hex("01 5820") + [UInt8](repeating: 0x5A, count: 32)
            + hex("02 A1 626964 6B 6578616d706c652e636f6d")
            + hex("03 A2 626964 41 01 646e616d65 61 61")
            + hex("04 81 A2 63616c67 26 6474797065 6A 7075626c69632d6b6579")
            + hex("07 A1 62726b F5")
        return [0x80, 0x10, 0x80, 0x00, UInt8(request.count)] + request + [0x00]
    }()
    static let poll: [UInt8] = [0x80, 0x11, 0x00, 0x00]

    @Test func theModeIsSetThroughTheControlOp() throws {
        let page = try PageFixture()
        let asked = try page.op(#"{"op":"presence"}"#)
        #expect(asked.status == 200)
        #expect(asked.answer == ["ok": true, "presence": ["mode": "approve", "pending": nil]])
        for mode in ["decline", "ask", "approve"] {
            let set = try page.op(#"{"op":"presence","mode":"\#(mode)"}"#)
            #expect(set.status == 200)
            #expect(set.answer["presence"] == ["mode": .string(mode), "pending": nil])
            #expect(page.onCard { $0.presenceMode.rawValue } == mode)
        }
    }

    @Test func badPresenceOpsAreRefusedExactlyAndChangeNothing() throws {
        let page = try PageFixture()
        #expect(try page.op(#"{"op":"presence","mode":"ask"}"#).status == 200)
        let cases: [(String, Int, String)] = [
            (#"{"op":"presence","mode":"maybe"}"#, 400, "bad request: unknown presence mode 'maybe' (known: approve, decline, ask)"),
            (#"{"op":"presence","mode":"ask","when":"now"}"#, 400, ""),
            (#"{"op":"presence.answer","id":1,"approve":true}"#, 409, "no presence prompt 1 is pending"),
            (#"{"op":"presence.answer","id":1}"#, 400, "bad request: presence.answer needs id (the prompt's number) and approve (true or false)"),
        ]
        for (json, status, message) in cases {
            let answer = try page.op(json)
            #expect(answer.status == status, "\(json)")
            #expect(answer.answer["ok"] == false, "\(json)")
            if !message.isEmpty { #expect(answer.answer["error"]?.stringValue == message, "\(json)") }
            #expect(page.onCard { $0.presenceMode } == .ask, "\(json) changed the mode")
        }
        // With a prompt pending: a wrong id leaves it pending, the right one answers it, and
        // answering it again (a stale id) is refused.
        let waiting = page.onCard { card in
            _ = card.transmit(NFCBinding.selectFIDOApplet)
            return card.transmit(Self.polledMakeCredential)
        }
        #expect(waiting == [NFCBinding.keepaliveUserPresenceNeeded, 0x91, 0x00])
        let wrong = try page.op(#"{"op":"presence.answer","id":2,"approve":true}"#)
        #expect(wrong.status == 409 && wrong.answer == ["ok": false, "error": "no presence prompt 2 is pending"])
        #expect(page.onCard { $0.pendingPresence?.id } == 1, "a wrong id answers nothing")
        let declined = try page.op(#"{"op":"presence.answer","id":1,"approve":false}"#)
        #expect(declined.status == 200 && declined.answer["presence"] == ["mode": "ask", "pending": nil])
        let stale = try page.op(#"{"op":"presence.answer","id":1,"approve":true}"#)
        #expect(stale.status == 409 && stale.answer == ["ok": false, "error": "no presence prompt 1 is pending"])
        let denied = page.onCard { $0.transmit(Self.poll) }
        #expect(denied == [0x27, 0x90, 0x00], "the decline stands: CTAP2_ERR_OPERATION_DENIED")
        #expect(page.onCard { $0.credentials.isEmpty })
    }

    @Test func aWaitingPromptIsPushedWithinASecondAndGoesOnceAnswered() throws {
        let page = try PageFixture()
        let stream = try PageStream(page)
        defer { stream.close() }
        _ = try #require(stream.nextState { $0["presence"]?["mode"] == "approve" }, "the first state")
        #expect(try page.op(#"{"op":"presence","mode":"ask"}"#).status == 200)
        _ = try #require(stream.nextState { $0["presence"]?["mode"] == "ask" }, "the new mode")

        // The prompt starts on the card's thread; neither the feed nor an op tells the page.
        let started = ContinuousClock.now
        page.onCard { card in
            _ = card.transmit(NFCBinding.selectFIDOApplet)
            _ = card.transmit(Self.polledMakeCredential)
        }
        let shown = try #require(stream.nextState { $0["presence"]?["pending"]?.objectValue != nil }, "the prompt")
        #expect(started.duration(to: .now) < .seconds(1), "the prompt took \(started.duration(to: .now)) to reach the page")
        let pending = try #require(shown["presence"]?["pending"])
        #expect(pending["id"] == 1 && pending["command"] == "makeCredential" && pending["rpId"] == "example.com")
        // Pushed again while it waits, its waiting time counting up.
        let first = try #require(pending["waitingSeconds"]?.numberValue)
        let later = try #require(stream.nextState { ($0["presence"]?["pending"]?["waitingSeconds"]?.numberValue ?? 0) > first })
        #expect(later["presence"]?["pending"]?["id"] == 1)

        #expect(try page.op(#"{"op":"presence.answer","id":1,"approve":true}"#).status == 200)
        _ = try #require(stream.nextState { $0["presence"]?["pending"] == JSONValue.null }, "the prompt gone")
        let made = page.onCard { $0.transmit(Self.poll) }
        #expect(made.first == 0x00 && made.dropLast().last == 0x61, "approved: CTAP2_OK and the attestation, in pieces")
        #expect(page.onCard { $0.credentials.count } == 1)
    }

    @Test func outsideAskModeTheStateWaitsForTheHeartbeat() throws {
        let page = try PageFixture()
        let stream = try PageStream(page)
        defer { stream.close() }
        _ = try #require(stream.nextState { _ in true }, "the first state")
        #expect(stream.nextState(within: Duration.milliseconds(800)) { _ in true } == nil, "a state pushed with nothing changed")
    }

    @Test func thePINIsClearedThroughTheControlOp() throws {
        let page = try PageFixture()
        #expect(try page.op(#"{"op":"pin","set":"271828"}"#).status == 200)
        let both = try page.op(#"{"op":"pin","set":"314159","clear":true}"#)
        #expect(both.status == 400)
        #expect(both.answer["error"] == "bad request: pin: clear and set go separately (clear removes the PIN, set gives a new one)")
        #expect(page.onCard { $0.pinState.isSet }, "the refused clear left the PIN")
        let cleared = try page.op(#"{"op":"pin","clear":true}"#)
        #expect(cleared.status == 200)
        #expect(cleared.answer["pin"]?["isSet"] == false && cleared.answer["pin"]?["retries"] == 8)
        #expect(page.onCard { $0.pinState.isSet } == false)
        let details = try page.op(#"{"op":"details"}"#)
        #expect(details.answer["status"]?["pin"]?["isSet"] == false)
    }
}
