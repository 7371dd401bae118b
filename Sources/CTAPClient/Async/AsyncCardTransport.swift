/// A card reached asynchronously: an APDU goes out, its answer is awaited (an NFC session that
/// calls back, a PC/SC handle on a queue of its own, a card in process). What
/// ``AsyncCTAPClient`` talks through, as ``CTAPClient`` talks through a ``CardTransport``.
///
/// One APDU at a time: the client never sends another before the last one's answer came.
public protocol AsyncCardTransport {
    /// Sends `apdu` as it is and returns the card's answer (data + SW1 SW2).
    func transmit(_ apdu: [UInt8]) async throws(CardTransportError) -> [UInt8]
}
