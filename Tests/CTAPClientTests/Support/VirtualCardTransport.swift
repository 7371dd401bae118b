import ArculusCard
import CTAPClient
import CardTestSupport
import Dispatch
import FIDOWire
import TestSupport

/// The in-process emulated card as a host-side `CardTransport`, for these tests: the card side and
/// the host side meet here only in bytes, as they do in the product's connectors
/// (`ArculusFidoConnectors`), which are the one place they meet outside the tests.
///
/// It records every APDU and can take the card away after a number of APDUs, which the client
/// sees as a card that left the field mid-operation.
final class VirtualCardTransport: CardTransport {
    let card: VirtualCard
    /// Every command APDU sent, in order.
    private(set) var sent: [[UInt8]] = []
    /// Every response APDU returned, in order.
    private(set) var received: [[UInt8]] = []
    /// When set, the card leaves the field instead of answering APDU number `n + 1`.
    var removeAfter: Int?
    private(set) var isPresent = true

    init(_ card: VirtualCard) {
        self.card = card
    }

    func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
        guard isPresent else { throw .cardRemoved("the test took the card away") }
        if let removeAfter, sent.count >= removeAfter {
            card.powerOff()
            isPresent = false
            throw .cardRemoved("the test took the card away")
        }
        sent.append(apdu)
        let response = try answerInTime(apdu)
        received.append(response)
        return response
    }

    /// The card's answer, computed on the card's own thread; an answer later than 15 s fails the
    /// exchange, so that a card stuck in a loop fails the test instead of hanging the run (these
    /// tests are synchronous: a time limit cannot stop them while they wait on the card).
    private func answerInTime(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
        guard !cardIsStuck else { throw .failed("the card is still busy with an APDU it did not answer in time") }
        let pending = PendingAnswer()
        let card = UncheckedCard(card: card)
        cardQueue.async { pending.finish(card.card.transmit(apdu)) }
        guard pending.ready.wait(timeout: .now() + .seconds(15)) == .success, let answer = pending.answer else {
            cardIsStuck = true
            throw .failed("the card did not answer within 15 s; the test stops waiting (is the card stuck in a loop?)")
        }
        return answer
    }

    private let cardQueue = DispatchQueue(label: "CTAPClientTests.card")
    /// Set once an answer missed the deadline: the card's thread is still busy with it.
    private var cardIsStuck = false

    func powerCycle() throws(CardTransportError) {
        card.powerCycle()
        isPresent = true
        removeAfter = nil
    }
}

/// The card, handed to its thread: used there only while the test waits for it.
private struct UncheckedCard: @unchecked Sendable {
    let card: VirtualCard
}

/// An answer on its way from the card's thread; read only after `ready` is signalled.
private final class PendingAnswer: @unchecked Sendable {
    private(set) var answer: [UInt8]?
    let ready = DispatchSemaphore(value: 0)

    func finish(_ answer: [UInt8]) {
        self.answer = answer
        ready.signal()
    }
}

/// The client's card factories and error helpers, beside the shared values (CardTestSupport).
extension Fixture {
    /// An open client on a blank card of `profile`, with the transport.
    static func client(_ profile: CardProfile = .default, frontOptions: CardFront.Options = .init()) throws -> (CTAPClient, VirtualCardTransport) {
        let transport = VirtualCardTransport(try VirtualCard(profile: profile, frontOptions: frontOptions))
        return (try CTAPClient(transport: transport), transport)
    }

    /// An open client on a card whose PIN is ``pin``.
    static func clientWithPIN(_ profile: CardProfile = .default, protocolVersion: Int? = nil) throws -> (CTAPClient, VirtualCardTransport) {
        let (client, transport) = try client(profile)
        client.forcedPINProtocolVersion = protocolVersion
        try client.setPIN(pin)
        return (client, transport)
    }

    /// The error `body` throws as a `CTAPClientError`, or nil.
    static func error(_ body: () throws -> Void) -> CTAPClientError? { thrownError(body) }

    /// The error an async body throws as a `CTAPClientError`, or nil.
    static func error(_ body: () async throws -> Void) async -> CTAPClientError? { await thrownError(body) }

    static func ctapStatus(_ body: () throws -> Void) -> CTAPStatus? {
        error(body)?.ctapStatus
    }
}
