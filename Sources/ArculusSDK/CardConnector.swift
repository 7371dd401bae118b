import CTAPClient

/// How the SDK reaches a card: each operation asks for a connection, as an app asks its user to
/// tap the card, and drops it when done.
///
/// The executable provides connectors for a PC/SC reader and for an in-process card image; tests
/// provide one over `VirtualCard`. The transport a connector returns is used from one thread at
/// a time (the SDK's card queue), so it need not be thread-safe.
public protocol CardConnector: Sendable {
    /// Connects to the card in the field; ``CardTransportError/cardRemoved(_:)`` when there is none.
    func connect() throws(CardTransportError) -> any CardTransport
}
