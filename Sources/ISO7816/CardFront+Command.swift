import FIDOWire

extension CardFront {
    /// A whole command the front hands to the card (chains assembled, header checked).
    public enum Command: Sendable, Equatable, CustomStringConvertible {
        /// SELECT with this AID (the front checks it once the card lets it run).
        case select(aid: [UInt8], p2: UInt8)
        /// NFCCTAP_MSG: command byte + CBOR. `mayDefer`: P1 was `80`, so the card may answer
        /// ``Result/deferred(polls:)`` and run the request when the client polls.
        case ctap([UInt8], mayDefer: Bool)
        /// NFCCTAP_GETRESPONSE for a deferred request: run it now, or defer again.
        case ctapPoll([UInt8])
        /// U2F REGISTER: 32-byte challenge parameter, 32-byte application parameter.
        case u2fRegister(challenge: [UInt8], application: [UInt8])
        /// U2F AUTHENTICATE with control byte P1 (see `U2FControl`).
        case u2fAuthenticate(control: UInt8, challenge: [UInt8], application: [UInt8], keyHandle: [UInt8])

        public var description: String {
            switch self {
            case .select: "SELECT"
            case .ctap(let request, _), .ctapPoll(let request): "CTAP request \(request.first.map { "0x" + String($0, radix: 16) } ?? "(empty)")"
            case .u2fRegister: "U2F_REGISTER"
            case .u2fAuthenticate: "U2F_AUTHENTICATE"
            }
        }
    }

    /// The card's result for a ``Command``.
    public enum Result: Sendable, Equatable {
        /// SELECT: let it run as ISO 7816 says.
        case run
        /// A CTAP response: status byte + CBOR.
        case ctap([UInt8])
        /// A CTAP request sent with P1 `80` (or polled): answer `9100` and keep it for the next
        /// poll, which is itself answered `9100` `polls` more times before the card is asked again.
        case deferred(polls: Int)
        /// A CTAP request sent with P1 `80` (or polled) that waits for the person: answer `9100`
        /// with keepalive UPNEEDED and keep it for the next poll.
        case awaitingUser
        /// A U2F outcome.
        case u2f(U2FOutcome)
        /// Answer this status word instead, with no data (a test double's fault).
        case statusWord(StatusWord)
    }

    /// Runs one APDU with `card` answering the whole commands: the front's whole cycle for a
    /// caller that has nothing to do between the two halves (a stand-in, a test).
    public mutating func transmit(_ apdu: [UInt8], card: (Command) -> Result) -> ResponseAPDU {
        switch receive(apdu) {
        case .answer(let response): return response
        case .command(let command): return complete(card(command))
        }
    }
}
