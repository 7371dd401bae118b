import PCSC
import Testing

/// A card that answers from a script and remembers what it was sent: the exchange logic
/// without a reader.
final class ScriptedCard: APDUTransport {
    private var answers: [[UInt8]]
    private(set) var received: [[UInt8]] = []

    init(_ answers: [[UInt8]]) {
        self.answers = answers
    }

    func transmit(_ apdu: [UInt8]) throws -> [UInt8] {
        received.append(apdu)
        guard !answers.isEmpty else { return [0x6F, 0x00] }
        return answers.removeFirst()
    }
}

@Suite("ISO7816Exchange")
struct ISO7816ExchangeTests {
    @Test("a plain answer passes through")
    func plain() throws {
        let card = ScriptedCard([[0x01, 0x02, 0x90, 0x00]])
        #expect(try ISO7816Exchange(card).transmitFollowingResponseChain([0x00, 0xB0, 0x00, 0x00, 0x00]) == [0x01, 0x02, 0x90, 0x00])
        #expect(card.received == [[0x00, 0xB0, 0x00, 0x00, 0x00]])
    }

    @Test("61xx is followed with GET RESPONSE 00 C0 00 00 xx and the data concatenated")
    func responseChain() throws {
        let card = ScriptedCard([[0xAA, 0x61, 0x02], [0xBB, 0xCC, 0x61, 0x00], [0xDD, 0x6A, 0x82]])
        var seen: [[UInt8]] = []
        let response = try ISO7816Exchange(card).transmitFollowingResponseChain([0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x00]) { command, _ in
            seen.append(command)
        }
        #expect(response == [0xAA, 0xBB, 0xCC, 0xDD, 0x6A, 0x82], "the final status word is the last answer's")
        #expect(card.received == [[0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x00], [0x00, 0xC0, 0x00, 0x00, 0x02], [0x00, 0xC0, 0x00, 0x00, 0x00]])
        #expect(seen == card.received)
    }

    @Test("6Cxx re-sends the command with Le = xx")
    func wrongLength() throws {
        let card = ScriptedCard([[0x6C, 0x08], [1, 2, 3, 4, 5, 6, 7, 8, 0x90, 0x00]])
        let response = try ISO7816Exchange(card).transmitFollowingResponseChain([0x00, 0xCA, 0x01, 0x02, 0x00])
        #expect(response == [1, 2, 3, 4, 5, 6, 7, 8, 0x90, 0x00])
        #expect(card.received.last == [0x00, 0xCA, 0x01, 0x02, 0x08])
    }

    @Test("6Cxx then 61xx: both are followed")
    func wrongLengthThenChain() throws {
        let card = ScriptedCard([[0x6C, 0x02], [0x01, 0x02, 0x61, 0x01], [0x03, 0x90, 0x00]])
        let response = try ISO7816Exchange(card).transmitFollowingResponseChain([0x00, 0xCA, 0x01, 0x02])
        #expect(response == [0x01, 0x02, 0x03, 0x90, 0x00])
        #expect(card.received == [[0x00, 0xCA, 0x01, 0x02], [0x00, 0xCA, 0x01, 0x02, 0x02], [0x00, 0xC0, 0x00, 0x00, 0x01]])
    }

    static let leVectors: [(apdu: [UInt8], le: Int, expected: [UInt8]?)] = [
        ([0x00, 0xCA, 0x01, 0x02], 8, [0x00, 0xCA, 0x01, 0x02, 0x08]),                          // case 1
        ([0x00, 0xCA, 0x01, 0x02, 0x00], 256, [0x00, 0xCA, 0x01, 0x02, 0x00]),                  // case 2S, 256 = 00
        ([0x00, 0xCA, 0x01, 0x02, 0x10], 4, [0x00, 0xCA, 0x01, 0x02, 0x04]),                    // case 2S
        ([0x80, 0x10, 0x00, 0x00, 0x01, 0x04], 200, [0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0xC8]), // case 3S
        ([0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x00], 16, [0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x10]), // case 4S
        ([0x00, 0xB0, 0x00, 0x00, 0x00, 0x00, 0x00], 5, [0x00, 0xB0, 0x00, 0x00, 0x00, 0x00, 0x05]),  // case 2E
        ([0x80, 0x10, 0x00, 0x00, 0x00, 0x00, 0x01, 0x04], 256, [0x80, 0x10, 0x00, 0x00, 0x00, 0x00, 0x01, 0x04, 0x01, 0x00]), // case 3E
        ([0x80, 0x10, 0x00, 0x00, 0x00, 0x00, 0x01, 0x04, 0x00, 0x00], 9, [0x80, 0x10, 0x00, 0x00, 0x00, 0x00, 0x01, 0x04, 0x00, 0x09]), // case 4E
        ([0x00, 0xCA, 0x01], 8, nil),                                                           // no header
        ([0x80, 0x10, 0x00, 0x00, 0x03, 0x04], 8, nil),                                         // Lc says 3, 1 byte follows
        ([0x80, 0x10, 0x00, 0x00, 0x00, 0x00], 8, nil),                                         // extended Lc 0
        ([0x00, 0xCA, 0x01, 0x02], 0, nil),                                                     // Le out of range
        ([0x00, 0xCA, 0x01, 0x02], 257, nil),
    ]

    @Test("setting Le in each APDU case", arguments: leVectors.indices)
    func settingLe(index: Int) {
        let vector = Self.leVectors[index]
        #expect(ISO7816Exchange<ScriptedCard>.settingLe(of: vector.apdu, to: vector.le) == vector.expected)
    }

    @Test("an answer without a status word is an error")
    func tooShort() {
        let card = ScriptedCard([[0x90]])
        #expect(throws: ISO7816ExchangeError.responseTooShort(command: [0x00, 0xB0, 0x00, 0x00, 0x00], response: [0x90])) {
            try ISO7816Exchange(card).transmitFollowingResponseChain([0x00, 0xB0, 0x00, 0x00, 0x00])
        }
    }

    @Test("a card that asks for another Le twice is an error")
    func wrongLengthTwice() {
        let card = ScriptedCard([[0x6C, 0x08], [0x6C, 0x04]])
        #expect(throws: ISO7816ExchangeError.wrongLengthRepeated(command: [0x00, 0xCA, 0x01, 0x02, 0x08])) {
            try ISO7816Exchange(card).transmitFollowingResponseChain([0x00, 0xCA, 0x01, 0x02, 0x00])
        }
    }

    @Test("6Cxx to something that is not an APDU is an error")
    func wrongLengthOnGarbage() {
        let card = ScriptedCard([[0x6C, 0x08]])
        #expect(throws: ISO7816ExchangeError.cannotCorrectLength(command: [0x80, 0x10, 0x00, 0x00, 0x05, 0x01])) {
            try ISO7816Exchange(card).transmitFollowingResponseChain([0x80, 0x10, 0x00, 0x00, 0x05, 0x01])
        }
    }

    @Test("a card that answers 61xx forever is stopped at the limit")
    func endlessChain() {
        let card = ScriptedCard(Array(repeating: [0x00, 0x61, 0x01], count: 20))
        var exchange = ISO7816Exchange(card)
        exchange.maximumGetResponses = 5
        #expect(throws: ISO7816ExchangeError.tooManyGetResponses(5)) {
            try exchange.transmitFollowingResponseChain([0x00, 0xB0, 0x00, 0x00, 0x00])
        }
        #expect(card.received.count == 6)
    }

    @Test("the transport's own errors pass through")
    func transportError() {
        struct Broken: APDUTransport, Sendable {
            struct Failure: Error, Equatable {}
            func transmit(_ apdu: [UInt8]) throws -> [UInt8] { throw Failure() }
        }
        #expect(throws: Broken.Failure()) {
            try ISO7816Exchange(Broken()).transmitFollowingResponseChain([0x00, 0xB0, 0x00, 0x00, 0x00])
        }
    }
}
