import CTAPClient

/// How the SDK reaches a card: each operation asks for a connection, as an app asks its user to
/// tap the card, and closes it when done.
///
/// Asynchronous, so that an app can plug in the transport it has: an NFC reader session that
/// calls back when a tag is found and when it answers, a PC/SC reader, a card in process. The
/// SDK bounds every wait by its ``CardTimeouts`` and stops waiting when the calling task is
/// cancelled, whether or not the connector notices: a connector that can stop early (an NFC
/// session it can invalidate) should check `Task.isCancelled` or use a cancellation handler.
///
/// `ArculusFidoSDKFramework` has connectors for a named PC/SC reader (`PCSCCardConnector`) and
/// for the in-process emulated card (`VirtualCardConnector`), and the `ArculusFido()` that finds
/// one.
public protocol CardConnector: Sendable {
    /// Waits for a card in the field and connects to it; ``CardTransportError/cardRemoved(_:)``
    /// when there is none to be had.
    func connect() async throws(CardTransportError) -> any CardConnection
}

/// One tap of a card: APDUs in, answers out, until ``close()``.
///
/// The SDK sends one APDU at a time and never two at once, so a connection need not be
/// reentrant; it may be called from any thread.
public protocol CardConnection: Sendable {
    /// Sends `apdu` as it is and returns the card's answer (data + SW1 SW2). A card that left
    /// the field is ``CardTransportError/cardRemoved(_:)``.
    func transmit(_ apdu: [UInt8]) async throws(CardTransportError) -> [UInt8]

    /// Takes the card out of the field and back in (the card loses its volatile state). The
    /// default answers ``CardTransportError/unsupported(_:)``.
    func powerCycle() async throws(CardTransportError)

    /// Ends the tap: the reader connection is released (PC/SC: disconnected, leaving the card
    /// as it is; NFC: the session invalidated). Called once, after the last APDU. The default
    /// does nothing.
    func close() async
}

extension CardConnection {
    public func powerCycle() async throws(CardTransportError) {
        throw .unsupported("this connection cannot take the card off the reader and back")
    }

    public func close() async {}
}
