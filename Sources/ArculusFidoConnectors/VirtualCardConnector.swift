import ArculusCard
import ArculusSDK
import CTAPClient
import Dispatch

/// The in-process emulated card as the SDK's card: `ArculusFido(card: VirtualCardConnector(card: card))`.
/// Each tap brings the card into the field, powered afresh (as a phone's NFC does) unless
/// `powerCycleOnTap` is false (a card left lying on a desktop reader between operations).
///
/// The card is not thread-safe: every APDU, of every connection, runs on this connector's one
/// queue. Read or change the card (``card``) between operations only. That discipline is why the
/// class may be `@unchecked Sendable`.
///
/// For tests of a card taken away, ``leavesFieldAfter`` makes the card leave the field instead
/// of answering a given APDU (600 Tag Lost), until ``putBack()``.
public final class VirtualCardConnector: CardConnector, @unchecked Sendable {
    /// The card.
    public let card: VirtualCard
    private let queue = DispatchQueue(label: "ArculusFidoSDKFramework.virtual-card")

    /// Touched on `queue` only.
    private var state: State

    private struct State {
        var powerCycleOnTap: Bool
        var leavesFieldAfter: Int?
        var exchanged = 0
        var taps = 0
        var removed = false
    }

    /// A connector for `card`.
    public init(card: VirtualCard, powerCycleOnTap: Bool = true) {
        self.card = card
        state = State(powerCycleOnTap: powerCycleOnTap)
    }

    /// Whether a tap powers the card afresh.
    public var powerCycleOnTap: Bool {
        get { queue.sync { state.powerCycleOnTap } }
        set { queue.sync { state.powerCycleOnTap = newValue } }
    }

    /// A connector for the card whose memory is the image file at `path` (created with `profile`,
    /// default the FIDO 2.1 card, when the file does not exist). A path that is not a regular
    /// file (``CardFileCheck/imageProblem(_:)``) is refused before the card is given it.
    public convenience init(imageAt path: String, profile: CardProfile? = nil) throws {
        if let problem = CardFileCheck.imageProblem(path) { throw CardImageError(path: path, reason: .io(problem)) }
        self.init(card: try VirtualCard(imageAt: path, profile: profile))
    }

    /// When set, the card leaves the field instead of answering APDU number `n + 1`, counted from
    /// now over all taps, and stays away until ``putBack()``.
    public var leavesFieldAfter: Int? {
        get { queue.sync { state.leavesFieldAfter.map { $0 - state.exchanged } } }
        set { queue.sync { state.leavesFieldAfter = newValue.map { $0 + state.exchanged } } }
    }

    /// APDUs the card answered, over all taps.
    public var exchanged: Int { queue.sync { state.exchanged } }

    /// Taps so far.
    public var taps: Int { queue.sync { state.taps } }

    /// Puts a card that left the field back on the reader (powered afresh).
    public func putBack() {
        queue.sync {
            state.removed = false
            state.leavesFieldAfter = nil
            card.powerCycle()
        }
    }

    public func connect() async throws(CardTransportError) -> any CardConnection {
        // On the card's queue, without blocking the task's thread (the queue may be busy).
        let tapped: Result<Void, CardTransportError> = await withCheckedContinuation { continuation in
            queue.async {
                guard !self.state.removed else { return continuation.resume(returning: .failure(.cardRemoved("no card in the field"))) }
                if self.state.taps > 0 && self.state.powerCycleOnTap { self.card.powerCycle() }
                self.state.taps += 1
                continuation.resume(returning: .success(()))
            }
        }
        try tapped.get()
        return BlockingCardConnection(Transport(connector: self), queue: queue)
    }

    /// One APDU, on `queue`.
    fileprivate func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
        guard !state.removed else { throw .cardRemoved("no card in the field") }
        if let limit = state.leavesFieldAfter, state.exchanged >= limit {
            state.removed = true
            card.powerOff()
            throw .cardRemoved("the card left the field")
        }
        state.exchanged += 1
        let answer = card.transmit(apdu)
        // An in-process card that left the field by a fault answers nothing.
        guard !answer.isEmpty else { throw .cardRemoved("the card left the field") }
        return answer
    }

    private struct Transport: CardTransport {
        let connector: VirtualCardConnector

        func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
            try connector.transmit(apdu)
        }

        func powerCycle() throws(CardTransportError) {
            connector.card.powerCycle()
        }
    }
}
