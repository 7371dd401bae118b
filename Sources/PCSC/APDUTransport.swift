/// Anything that carries one command APDU to a card and brings the response APDU (data + SW1
/// SW2) back: a ``PCSCCard``, or a test double scripted with a card's answers.
public protocol APDUTransport {
    /// Sends `apdu` as it is and returns the card's answer.
    func transmit(_ apdu: [UInt8]) throws -> [UInt8]
}
