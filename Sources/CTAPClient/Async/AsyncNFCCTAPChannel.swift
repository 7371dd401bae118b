import FIDOWire

/// The platform end of the FIDO NFC binding over an ``AsyncCardTransport``: the one host-side
/// framing (`FIDOWire`'s ``NFCHostFraming``) driven in the calling task, each APDU and each
/// polling pause awaited, with no thread of its own and none blocked. The asynchronous twin of
/// ``NFCCTAPChannel``, with the same limits and the same errors.
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
        let framing = self.framing
        let answer = try await framing.run(framing.exchange(NFCBinding.selectFIDOApplet), transmit: transmit, sleep: Self.pause)
        let word = try answer.statusWord(pollingLimit: maximumPolling)
        guard word == 0x9000 else { throw .appletNotFound(statusWord: word) }
        return String(decoding: answer.data, as: UTF8.self)
    }

    /// Sends one CTAP message (command byte + CBOR parameters) and returns the whole response
    /// (status byte + CBOR), after command chaining, response chaining and polling.
    public func sendCTAPMessage(_ message: [UInt8]) async throws(CTAPClientError) -> [UInt8] {
        guard !message.isEmpty else { throw .invalidArgument("an empty CTAP message") }
        let framing = self.framing
        let answer = try await framing.run(framing.message(message), transmit: transmit, sleep: Self.pause)
        return try answer.ctapResponse(pollingLimit: maximumPolling)
    }

    private var framing: NFCHostFraming {
        .channel(pieceSize: maximumPieceSize, maximumGetResponses: maximumGetResponses, pollingLimit: maximumPolling)
    }

    /// One APDU; a task cancelled (during a polling pause, say) sends nothing more and ends the
    /// exchange as ``CardTransportError/cancelled``.
    private func transmit(_ apdu: [UInt8]) async throws(CTAPClientError) -> [UInt8] {
        guard !Task.isCancelled else { throw .transport(.cancelled) }
        do {
            return try await transport.transmit(apdu)
        } catch {
            throw .transport(error)
        }
    }

    /// A polling pause, cut short when the task is cancelled (the next APDU then is not sent).
    private static func pause(_ duration: Duration) async {
        try? await Task.sleep(for: duration)
    }
}
