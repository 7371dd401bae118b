import ArculusCard
import ArculusFidoSDKFramework
import CardTestSupport
import CTAPClient
import Dispatch
import Foundation
import Synchronization
import Testing

/// Every wait for the card ends: a card that never answers (607), a card never presented (600),
/// a cancelled task (701), whether or not the connector cooperates.
@Suite("card waits: time-outs and cancellation", .timeLimit(.minutes(1)))
struct CardWaitTests {
    static let short = CardTimeouts(tap: .seconds(1), answer: .seconds(1))

    @Test("a card that stops answering mid-operation: 607 after the answer time-out, even when its transport blocks for good")
    func answerTimeout() async throws {
        let card = try CardUnderTest()
        let hang = Hang()
        let sdk = ArculusFido(card: HangingAfter(card, apdus: 2, hang: hang), timeouts: Self.short)
        let error = await Fixture.error { try await sdk.throwing.setPin(pin: Fixture.pin) }
        #expect(error == ArculusFidoError(.transmitFailed, "setPin: the card did not answer within 1 s; hold the card still on the reader and try again"))
        #expect(!card.card.pinState.isSet)
        hang.release()
    }

    @Test("no card is ever presented: 600 after the tap time-out")
    func tapTimeout() async throws {
        let hang = Hang()
        let sdk = ArculusFido(card: NeverPresented(hang: hang), timeouts: Self.short)
        let error = await Fixture.error { try await sdk.throwing.setPin(pin: Fixture.pin) }
        #expect(error == ArculusFidoError(.tagLost, "setPin: no card on the reader (none was presented within 1 s); put the card on the reader and try again"))
        hang.release()
    }

    @Test("cancelling the task while the card is busy: 701 at once, the card unchanged")
    func cancelDuringCardWait() async throws {
        let card = try CardUnderTest()
        let hang = Hang()
        let sdk = ArculusFido(card: HangingAfter(card, apdus: 2, hang: hang), timeouts: CardTimeouts(tap: .seconds(30), answer: .seconds(30)))
        let task = Task { await Fixture.error { try await sdk.throwing.setPin(pin: Fixture.pin) } }
        await hang.reached()
        let clock = ContinuousClock()
        let cancelled = clock.now
        task.cancel()
        let error = await task.value
        #expect(error == ArculusFidoError(.cancelled, "setPin: cancelled; the SDK stopped waiting for the card"))
        #expect(cancelled.duration(to: clock.now) < .seconds(15),
                "the operation ends when cancelled, not when the 30 s answer time-out or a close behind the stuck APDU would end it")
        #expect(!card.card.pinState.isSet)
        hang.release()
    }

    @Test("a task cancelled before the operation starts: 701 and no tap; the seed's String form says so")
    func cancelledBeforeStart() async throws {
        let card = try CardUnderTest()
        let sdk = ArculusFido(card: card, timeouts: Self.short)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return (await Fixture.error { try await sdk.throwing.setPin(pin: Fixture.pin) }, await sdk.setPin(pin: Fixture.pin))
        }
        let (error, text) = await task.value
        #expect(error == ArculusFidoError(.cancelled, "setPin: cancelled before it was finished"))
        #expect(text == "701 Cancelled: setPin: cancelled before it was finished")
        #expect(card.taps == 0)
    }

    @Test("cancelling while a server keeps the SDK waiting: 701, nothing registered")
    func cancelDuringHTTP() async throws {
        let (sdk, connector) = try await Fixture.sdkWithPIN()
        let silent = try TestHTTPServer { _ in .silence }
        let server = ArculusFidoServer(domain: "http://localhost:\(silent.port)")
        let task = Task {
            await Fixture.error {
                _ = try await sdk.throwing.registerUser(fidoServer: server, pin: Fixture.pin, username: "alice", displayName: "Alice",
                                                        relyingParty: "localhost")
            }
        }
        try await silent.waitForRequest()
        task.cancel()
        let error = await task.value
        #expect(error == ArculusFidoError(.cancelled, "registerUser: registration begin: cancelled while waiting for http://localhost:\(silent.port)/fidoapi/certify/attestation/options"))
        #expect(connector.card.credentials.isEmpty)
    }

    @Test("an ArculusFidoError is a LocalizedError: localizedDescription is its whole text, code first")
    func localized() {
        let error = ArculusFidoError(.getPINTokenFailed, "registerCardOnly: the PIN is wrong (CTAP2_ERR_PIN_INVALID); 7 attempts left before the card blocks its PIN",
                                     ctapStatus: .pinInvalid, pinRetries: 7)
        let plain: any Error = error
        #expect(plain.localizedDescription
            == "608 Get PIN Token Failed: registerCardOnly: the PIN is wrong (CTAP2_ERR_PIN_INVALID); 7 attempts left before the card blocks its PIN")
        #expect("Error: \(plain.localizedDescription)".contains("the PIN is wrong"), "what the sample app's alert shows")
    }
}

/// Blocks whoever calls ``wait()`` until ``release()``; ``reached()`` returns once someone waits.
final class Hang: Sendable {
    private let gate = DispatchSemaphore(value: 0)
    private let arrived = DispatchSemaphore(value: 0)

    /// Blocks the calling thread (a connector's queue) until released.
    func wait() {
        arrived.signal()
        gate.wait()
    }

    func reached() async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                self.arrived.wait()
                continuation.resume()
            }
        }
    }

    func release() {
        for _ in 0..<8 { gate.signal() }
    }
}

/// A card whose transport blocks its thread for good after `apdus` answers: a card in a loop, a
/// reader driver that never returns.
struct HangingAfter: CardConnector {
    let card: CardUnderTest
    let apdus: Int
    let hang: Hang

    init(_ card: CardUnderTest, apdus: Int, hang: Hang) {
        self.card = card
        self.apdus = apdus
        self.hang = hang
    }

    func connect() async throws(CardTransportError) -> any CardConnection {
        BlockingCardConnection(Transport(card: card.card, apdus: apdus, hang: hang))
    }

    private final class Transport: CardTransport, @unchecked Sendable {
        let card: VirtualCard
        let left: Mutex<Int>
        let hang: Hang

        init(card: VirtualCard, apdus: Int, hang: Hang) {
            self.card = card
            left = Mutex(apdus)
            self.hang = hang
        }

        func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
            let go = left.withLock { left -> Bool in
                left -= 1
                return left >= 0
            }
            if !go { hang.wait() }
            return card.transmit(apdu)
        }
    }
}

/// A connector whose `connect` never returns: it ignores cancellation, as a blocking driver call does.
struct NeverPresented: CardConnector {
    let hang: Hang

    func connect() async throws(CardTransportError) -> any CardConnection {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                hang.wait()
                continuation.resume()
            }
        }
        throw .cardRemoved("released")
    }
}
