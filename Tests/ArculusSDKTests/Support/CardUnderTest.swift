import ArculusCard
import ArculusFidoSDKFramework
import CTAPClient
import CardTestSupport
import Foundation
import TestSupport

/// The in-process emulated card (``VirtualCardConnector``, the framework's public connector) with
/// a test's instruments: every command APDU kept, a reader failure injected, the card taken away
/// after a number of APDUs and put back.
///
/// `@unchecked Sendable`: the log and the failure are touched under `lock`, the card through the
/// connector's own queue, and the test reads the card only between operations.
final class CardUnderTest: CardConnector, @unchecked Sendable {
    let connector: VirtualCardConnector
    private let lock = NSLock()
    private var log: [[UInt8]] = []
    private var injected: CardTransportError?

    init(_ card: VirtualCard) {
        connector = VirtualCardConnector(card: card)
    }

    convenience init(profile: CardProfile = .default) throws {
        self.init(try VirtualCard(profile: profile))
    }

    var card: VirtualCard { connector.card }
    /// Whether a tap powers the card afresh (a phone's NFC) or leaves it powered (a card lying
    /// on a desktop reader between operations).
    var powerCycleOnTap: Bool {
        get { connector.powerCycleOnTap }
        set { connector.powerCycleOnTap = newValue }
    }
    var exchanged: Int { connector.exchanged }
    var taps: Int { connector.taps }
    /// When set, the card leaves the field instead of answering APDU number `n + 1` (counted over
    /// all taps).
    var removeAfter: Int? {
        get { connector.leavesFieldAfter.map { $0 + connector.exchanged } }
        set { connector.leavesFieldAfter = newValue.map { $0 - connector.exchanged } }
    }
    /// When set, every APDU fails this way (a broken reader).
    var failure: CardTransportError? {
        get { lock.withLock { injected } }
        set { lock.withLock { injected = newValue } }
    }
    /// Every command APDU, over all taps.
    var sent: [[UInt8]] { lock.withLock { log } }

    /// The card is tapped again after a removal.
    func putBack() {
        connector.putBack()
    }

    func connect() async throws(CardTransportError) -> any CardConnection {
        Instrumented(inner: try await connector.connect(), card: self)
    }

    fileprivate func record(_ apdu: [UInt8]) throws(CardTransportError) {
        let failure = lock.withLock { () -> CardTransportError? in
            log.append(apdu)
            return injected
        }
        if let failure { throw failure }
    }

    private struct Instrumented: CardConnection {
        let inner: any CardConnection
        let card: CardUnderTest

        func transmit(_ apdu: [UInt8]) async throws(CardTransportError) -> [UInt8] {
            try card.record(apdu)
            return try await inner.transmit(apdu)
        }

        func powerCycle() async throws(CardTransportError) {
            try await inner.powerCycle()
        }

        func close() async {
            await inner.close()
        }
    }
}

/// The SDK's values and helpers, beside the shared ones (CardTestSupport).
extension Fixture {
    /// 32 bytes, base64url.
    static let challenge = Base64URL.encode((0..<32).map { UInt8($0) })

    /// An SDK on a fresh card of `profile` with the PIN set.
    static func sdkWithPIN(_ profile: CardProfile = .default) async throws -> (ArculusFido, CardUnderTest) {
        let connector = try CardUnderTest(profile: profile)
        let sdk = ArculusFido(card: connector, timeouts: timeouts)
        try await sdk.throwing.setPin(pin: pin)
        return (sdk, connector)
    }

    /// The SDK's waits in tests: a card stuck in a loop fails its test within seconds instead of
    /// hanging it.
    static let timeouts = CardTimeouts(tap: .seconds(5), answer: .seconds(15))

    /// The `ArculusFidoError` an async body throws, or nil.
    static func error(_ body: () async throws -> Void) async -> ArculusFidoError? { await thrownError(body) }

    /// A registration for `username` at `rpID` (from the origin `https://rpID`), parsed.
    static func register(_ sdk: ArculusFido, username: String = "alice@example.com", displayName: String = "Alice",
                         rpID: String = rpID) async throws -> JSONValue {
        try JSONValue(parsing: try await sdk.registerCardOnly(pin: pin, username: username, displayName: displayName,
                                                              rpId: rpID, challenge: challenge, origin: "https://\(rpID)"))
    }
}
