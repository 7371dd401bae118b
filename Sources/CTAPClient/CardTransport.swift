/// Anything that carries one command APDU to a card and brings the response APDU (data + SW1
/// SW2) back: the in-process emulated card, a PC/SC reader, a recorded transcript.
///
/// The host side and the card side share nothing but these bytes, so an adapter for a concrete
/// card lives next to whoever owns both ends (the tests, the command-line tool), never here.
///
/// A transport reports a card that left the field (NFC tag lost, `SCARD_W_REMOVED_CARD`, an empty
/// reader) as ``CardTransportError/cardRemoved(_:)``: that is the "card left" signal the SDK turns
/// into its Tag Lost error. Every other failure to exchange bytes is
/// ``CardTransportError/failed(_:)``.
public protocol CardTransport {
    /// Sends `apdu` as it is and returns the card's answer (data + SW1 SW2).
    func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8]

    /// Takes the card out of the field and back in, as when it is lifted off the reader and
    /// tapped again: the card loses its volatile state (selected applet, PIN token, the count of
    /// consecutive wrong PINs). Optional; the default answers ``CardTransportError/unsupported(_:)``.
    func powerCycle() throws(CardTransportError)
}

extension CardTransport {
    public func powerCycle() throws(CardTransportError) {
        throw .unsupported("this transport cannot take the card off the reader and back")
    }
}
