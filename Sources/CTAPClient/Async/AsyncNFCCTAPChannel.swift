import FIDOWire

/// The platform end of the FIDO NFC binding over an ``AsyncCardTransport``: the exchanges of
/// ``NFCCTAPExchange`` sent in the calling task, each APDU awaited, with no thread of its own and
/// none blocked. The asynchronous twin of ``NFCCTAPChannel``, with the same limits.
public struct AsyncNFCCTAPChannel {
    /// Where the APDUs go.
    public let transport: any AsyncCardTransport
    /// The largest data field of one command APDU (a short APDU carries at most 255).
    public var maximumPieceSize = 255
    /// How long to keep polling a card that answers `9100`.
    public var maximumPolling = Duration.seconds(30)
    /// GET RESPONSEs allowed for one answer.
    public var maximumGetResponses = 512

    /// A channel over `transport`.
    public init(transport: any AsyncCardTransport) {
        self.transport = transport
    }

    /// Selects the FIDO applet and returns its answer (`FIDO_2_0`, or `U2F_V2` for a U2F-only card).
    public func selectFIDOApplet() async throws(CTAPClientError) -> String {
        let (data, word) = try await run(NFCCTAPExchange(command: NFCBinding.selectFIDOApplet, maximumGetResponses: maximumGetResponses))
        guard word == 0x9000 else { throw .appletNotFound(statusWord: word) }
        return String(decoding: data, as: UTF8.self)
    }

    /// Sends one CTAP message (command byte + CBOR parameters) and returns the whole response
    /// (status byte + CBOR), after command chaining, response chaining and polling.
    public func sendCTAPMessage(_ message: [UInt8]) async throws(CTAPClientError) -> [UInt8] {
        let exchange = try NFCCTAPExchange(message: message, pieceSize: maximumPieceSize, maximumGetResponses: maximumGetResponses,
                                           maximumPolling: maximumPolling)
        return try await run(exchange).data
    }

    /// Sends what `exchange` says until it is done. A pause ends early, as
    /// ``CardTransportError/cancelled``, when the task is cancelled.
    private func run(_ exchange: NFCCTAPExchange) async throws(CTAPClientError) -> (data: [UInt8], statusWord: UInt16) {
        var exchange = exchange
        var apdu = exchange.first
        let clock = ContinuousClock()
        while true {
            let answer: [UInt8]
            do {
                answer = try await transport.transmit(apdu)
            } catch {
                throw .transport(error)
            }
            switch try exchange.next(after: answer, at: clock.now) {
            case .send(let next):
                apdu = next
            case .pause(let pause, let next):
                do {
                    try await Task.sleep(for: pause)
                } catch {
                    throw .transport(.cancelled)
                }
                apdu = next
            case .done(let data, let word):
                return (data, word)
            }
        }
    }
}
