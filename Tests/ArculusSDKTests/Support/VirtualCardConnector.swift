import ArculusCard
import ArculusSDK
import CTAPClient
import Dispatch

/// The in-process emulated card as the SDK's `CardConnector`: each operation's `connect` is a tap.
///
/// `@unchecked Sendable`: the SDK uses the connector and its transports on its serial card
/// queue only, and the test reads the card only between operations.
final class VirtualCardConnector: CardConnector, @unchecked Sendable {
    let card: VirtualCard
    /// Whether a tap powers the card afresh (a phone's NFC) or leaves it powered (a card lying
    /// on a desktop reader between operations).
    var powerCycleOnTap = true
    /// When set, the card leaves the field instead of answering APDU number `n + 1` (counted over
    /// all taps).
    var removeAfter: Int?
    /// When set, every APDU fails this way (a broken reader).
    var failure: CardTransportError?
    private(set) var exchanged = 0
    private(set) var taps = 0
    private var removed = false
    /// Every command APDU, over all taps.
    private(set) var sent: [[UInt8]] = []

    init(_ card: VirtualCard) {
        self.card = card
    }

    convenience init(profile: CardProfile = .default) throws {
        self.init(try VirtualCard(profile: profile))
    }

    func connect() throws(CardTransportError) -> any CardTransport {
        guard !removed else { throw .cardRemoved("no card in the field") }
        if taps > 0 && powerCycleOnTap { card.powerCycle() }
        taps += 1
        return Transport(connector: self)
    }

    fileprivate func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
        if let failure { throw failure }
        guard !removed else { throw .cardRemoved("no card in the field") }
        if let removeAfter, exchanged >= removeAfter {
            removed = true
            card.powerOff()
            throw .cardRemoved("the test took the card away")
        }
        exchanged += 1
        sent.append(apdu)
        return try deadline.answer { [card] in card.transmit(apdu) }
    }

    /// How long the card may take over one APDU.
    private let deadline = AnswerDeadline(seconds: 15)

    /// The card is tapped again after a removal.
    func putBack() {
        removed = false
        removeAfter = nil
        card.powerCycle()
    }

    private struct Transport: CardTransport {
        let connector: VirtualCardConnector

        func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
            try connector.transmit(apdu)
        }
    }
}

/// The card answers each APDU on a thread of its own, and an answer that takes longer than the
/// deadline fails the exchange: a card stuck in a loop (a broken PIN retry decrement, say) then
/// fails its test with an error. Swift Testing's time limit alone would record the failure but
/// never end a test that waits on the card, since waiting on the card ignores cancellation.
final class AnswerDeadline: @unchecked Sendable {
    private let queue = DispatchQueue(label: "ArculusSDKTests.card")
    private let seconds: Int

    init(seconds: Int) {
        self.seconds = seconds
    }

    /// Set once an answer missed the deadline: the card's thread is still busy with it.
    private var stuck = false

    /// `body`'s answer, or `.failed` when it takes longer than the deadline. The card's thread is
    /// then left to itself, and every later exchange fails at once.
    func answer(_ body: @escaping () -> [UInt8]) throws(CardTransportError) -> [UInt8] {
        guard !stuck else { throw .failed("the card is still busy with an APDU it did not answer within \(seconds) s") }
        let exchange = Exchange(body)
        queue.async { exchange.run() }
        guard exchange.done.wait(timeout: .now() + .seconds(seconds)) == .success, let answer = exchange.answer else {
            stuck = true
            throw .failed("the card did not answer within \(seconds) s; the test stops waiting (is the card stuck in a loop?)")
        }
        return answer
    }

    /// One APDU's work, handed to the card's thread; `answer` is read after `done` is signalled.
    private final class Exchange: @unchecked Sendable {
        let body: () -> [UInt8]
        var answer: [UInt8]?
        let done = DispatchSemaphore(value: 0)

        init(_ body: @escaping () -> [UInt8]) {
            self.body = body
        }

        func run() {
            answer = body()
            done.signal()
        }
    }
}

/// Shared values and helpers.
enum Fixture {
    static let pin = "123456"
    static let rpID = "example.com"
    static let origin = "https://example.com"
    /// 32 bytes, base64url.
    static let challenge = Base64URL.encode((0..<32).map { UInt8($0) })

    static var protocolOneOnly: CardProfile {
        var profile = CardProfile.default
        profile.name = "fido21-protocol-1-only"
        profile.pinUvAuthProtocols = [1]
        return profile
    }

    static var capacityOne: CardProfile {
        var profile = CardProfile.default
        profile.name = "fido21-capacity-1"
        profile.residentKeyCapacity = 1
        return profile
    }

    /// An SDK on a fresh card of `profile` with the PIN set.
    static func sdkWithPIN(_ profile: CardProfile = .default) async throws -> (ArculusFido, VirtualCardConnector) {
        let connector = try VirtualCardConnector(profile: profile)
        let sdk = ArculusFido(card: connector)
        try await sdk.setPin(pin: pin)
        return (sdk, connector)
    }

    /// The `ArculusFidoError` an async body throws, or nil.
    static func error(_ body: () async throws -> Void) async -> ArculusFidoError? {
        do {
            try await body()
            return nil
        } catch let error as ArculusFidoError {
            return error
        } catch {
            return nil
        }
    }

    /// A registration for `username` at `rpID` (from the origin `https://rpID`), parsed.
    static func register(_ sdk: ArculusFido, username: String = "alice@example.com", displayName: String = "Alice",
                         rpID: String = rpID) async throws -> JSONValue {
        try JSONValue(parsing: try await sdk.registerCardOnly(pin: pin, username: username, displayName: displayName,
                                                              rpId: rpID, challenge: challenge, origin: "https://\(rpID)"))
    }
}
