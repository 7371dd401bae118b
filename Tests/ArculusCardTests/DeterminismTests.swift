import ArculusCard
import CardCrypto
import Testing
import FIDOWire

/// The card model is deterministic given its seed, the times and its inputs: the same seeded
/// entropy, the same clock values and the same APDUs give byte-identical responses and equal
/// memory — for two models, for two `VirtualCard`s, and across the two — while another seed gives
/// other responses.
@Suite("A seeded card is deterministic")
struct DeterminismTests {
    static let seedA = Array("seed A: determinism test".utf8)
    static let seedB = Array("seed B: determinism test".utf8)
    static let pin = "271828"

    /// Every APDU a driver sent and the card's answer, in order.
    struct Recording<Base: CardDriver>: CardDriver {
        var base: Base
        var exchanges: [(command: [UInt8], response: [UInt8])] = []

        mutating func transmit(_ apdu: [UInt8]) -> [UInt8] {
            let response = base.transmit(apdu)
            exchanges.append((apdu, response))
            return response
        }

        mutating func powerCycle() { base.powerCycle() }

        var now: CardInstant {
            get { base.now }
            set { base.now = newValue }
        }
    }

    /// A realistic session: the card is tapped, selected, asked getInfo; a PIN is set, tokens
    /// fetched; two discoverable credentials made; getAssertion and getNextAssertion; credential
    /// management (metadata, RPs, credentials); the card leaves the field a minute later, is tapped
    /// again and reset. Each step at a time of its own. Fails if the card refuses a step.
    static func session<Card: CardDriver>(_ card: inout Card) throws {
        let platform = try FixedKeyPlatform()
        var clock = Duration.zero
        func tick(_ card: inout Card, _ step: Duration = .milliseconds(700)) {
            clock += step
            card.now = CardInstant(sinceOrigin: clock)
        }
        card.powerCycle()
        try card.select()
        tick(&card)
        _ = try card.ok(.getInfo)
        tick(&card)
        try card.setPIN(pin, platform: platform)
        for user in [[UInt8(0xA1)], [0xB2]] {
            tick(&card)
            let token = try card.grantedToken(pin, permissions: [.makeCredential, .getAssertion], platform: platform)
            tick(&card)
            #expect(try card.makeCredential(userId: user, token: token).status == .ok)
        }
        tick(&card)
        let first = try card.getAssertion()
        #expect(first.status == .ok && first.body[GetAssertionResponseKey.numberOfCredentials] == 2)
        tick(&card)
        _ = try card.ok(.getNextAssertion)
        tick(&card)
        let token = try card.grantedToken(pin, permissions: .credentialManagement, platform: platform)
        for subcommand in [CredentialManagementSubcommand.getCredsMetadata, .enumerateRPsBegin] {
            tick(&card)
            #expect(try card.credentialManagement(subcommand, token: token).status == .ok)
        }
        tick(&card)
        let rpIDHash = CBORMap([CredentialManagementParameterKey.rpIDHash: .bytes(SHA256.hash(Array("example.com".utf8)))])
        #expect(try card.credentialManagement(.enumerateCredentialsBegin, rpIDHash, token: token).status == .ok)
        tick(&card)
        #expect(try card.credentialManagement(.enumerateCredentialsGetNextCredential).status == .ok)
        tick(&card, .seconds(60))
        card.powerCycle()
        tick(&card)
        try card.select()
        tick(&card)
        _ = try card.ok(.reset)
        tick(&card)
        _ = try card.ok(.getInfo)
    }

    static func model(seed: [UInt8]) throws -> Recording<ModelDriver> {
        var card = Recording(base: try ModelDriver(entropy: .seeded(seed)))
        try session(&card)
        return card
    }

    static func virtualCard(seed: [UInt8]) throws -> Recording<VirtualCardDriver> {
        var card = Recording(base: try VirtualCardDriver { try VirtualCard(entropy: .seeded(seed), clock: $0) })
        try session(&card)
        return card
    }

    /// The first exchange at which two runs differ, as text; nil when they are the same bytes.
    static func firstDifference(_ a: [(command: [UInt8], response: [UInt8])],
                                _ b: [(command: [UInt8], response: [UInt8])]) -> String? {
        guard a.count == b.count else { return "\(a.count) exchanges against \(b.count)" }
        for (index, (x, y)) in zip(a, b).enumerated() where x.command != y.command || x.response != y.response {
            return "exchange \(index): > \(Hex.string(x.command)) < \(Hex.string(x.response)) / > \(Hex.string(y.command)) < \(Hex.string(y.response))"
        }
        return nil
    }

    @Test("two card models, same seed, times and APDUs: byte-identical responses and equal memory")
    func twoModels() throws {
        let one = try Self.model(seed: Self.seedA)
        let two = try Self.model(seed: Self.seedA)
        #expect(one.exchanges.contains { $0.response.dropLast().last == 0x61 }, "some answers need GET RESPONSE")
        #expect(Self.firstDifference(one.exchanges, two.exchanges) == nil)
        #expect(one.base.model.authenticator.state == two.base.model.authenticator.state)
    }

    @Test("two VirtualCards, same seed: byte-identical responses, equal memory, and the model's bytes")
    func twoVirtualCards() throws {
        let one = try Self.virtualCard(seed: Self.seedA)
        let two = try Self.virtualCard(seed: Self.seedA)
        #expect(Self.firstDifference(one.exchanges, two.exchanges) == nil)
        #expect(one.base.card.authenticator.state == two.base.card.authenticator.state)
        let stored = try #require(one.base.card.storage as? InMemoryStorage)
        #expect(stored.state == one.base.card.authenticator.state, "what is stored is what the card holds")
        // A VirtualCard is the model plus storage, faults and time: the same bytes as the bare model.
        let difference = Self.firstDifference(one.exchanges, try Self.model(seed: Self.seedA).exchanges)
        #expect(difference == nil, "\(difference ?? "")")
    }

    @Test("another seed: other key-agreement keys, credentials and signatures; the same getInfo")
    func otherSeed() throws {
        let a = try Self.model(seed: Self.seedA)
        let b = try Self.model(seed: Self.seedB)
        #expect(a.exchanges.count == b.exchanges.count)
        let pairs = zip(a.exchanges, b.exchanges)
        let differing = pairs.filter { $0.0.response != $0.1.response }.count
        #expect(differing > 10, "responses that draw on the seed differ")
        // getInfo on a card without credentials draws on nothing the seed decides.
        let getInfo = TestAPDU.nfcctapMessage([CTAPCommand.getInfo.rawValue])
        let infoA = a.exchanges.first { $0.command == getInfo }?.response
        #expect(infoA != nil && infoA == b.exchanges.first { $0.command == getInfo }?.response)
        #expect(a.base.model.authenticator.state != b.base.model.authenticator.state)
    }
}
