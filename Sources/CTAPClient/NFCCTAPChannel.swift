import FIDOWire
import POSIXSupport

/// The platform end of the FIDO NFC binding (CTAP 2.1 §11.3): ISO 7816-4 APDUs over any
/// ``CardTransport``.
///
/// - SELECT of the FIDO applet: `00 A4 04 00 08 A0000006472F0001 00`.
/// - A CTAP message travels in NFCCTAP_MSG `80 10 80 00` (P1 `80`: this client understands
///   NFCCTAP_GETRESPONSE) with Le `00`. Messages longer than one short APDU are sent with command
///   chaining: pieces of at most ``maximumPieceSize`` bytes, every piece but the last with CLA
///   `90` (the chaining bit `10`), each answered `9000`.
/// - Long answers come back with response chaining: `61xx`, then GET RESPONSE `00 C0 00 00 xx`
///   until `9000`.
/// - `9100` means "still processing": the first data byte is the keepalive status; the client
///   polls with NFCCTAP_GETRESPONSE `80 11 00 00 00` until the answer is ready.
///
/// Short APDUs only, so the exchange works on every reader (and on every PC/SC driver). The
/// framing is `FIDOWire`'s ``NFCHostFraming``, the one every host in the package uses.
public struct NFCCTAPChannel {
    /// Where the APDUs go.
    public let transport: any CardTransport
    /// The largest data field of one command APDU (a short APDU carries at most 255).
    public var maximumPieceSize = 255
    /// How long to keep polling a card that answers `9100`.
    public var maximumPollingSeconds = 30.0
    /// GET RESPONSEs allowed for one answer (a card answering `61xx` forever would loop forever).
    public var maximumGetResponses = 512
    /// Called with the keepalive status of every `9100` answer (1 processing, 2 user presence needed).
    public var keepalive: ((UInt8) -> Void)?

    /// A channel over `transport`.
    public init(transport: any CardTransport) {
        self.transport = transport
    }

    /// Selects the FIDO applet and returns its answer (`FIDO_2_0`, or `U2F_V2` for a U2F-only
    /// card).
    public func selectFIDOApplet() throws(CTAPClientError) -> String {
        let (data, word) = try exchange(NFCBinding.selectFIDOApplet)
        guard word == 0x9000 else { throw .appletNotFound(statusWord: word) }
        return String(decoding: data, as: UTF8.self)
    }

    /// Sends one CTAP message (command byte + CBOR parameters) and returns the whole response
    /// (status byte + CBOR), after command chaining, response chaining and polling.
    public func sendCTAPMessage(_ message: [UInt8]) throws(CTAPClientError) -> [UInt8] {
        guard !message.isEmpty else { throw .invalidArgument("an empty CTAP message") }
        let answer = try framing.run(framing.message(message), transmit: transmit, sleep: { POSIX.sleep(for: $0) },
                                     keepalive: { status in
                                         keepalive?(status)
                                         return .keepPolling
                                     })
        return try answer.ctapResponse(pollingLimit: framing.pollingLimit)
    }

    /// One command APDU, following `61xx` with GET RESPONSE; returns all data and the last word.
    public func exchange(_ apdu: [UInt8]) throws(CTAPClientError) -> (data: [UInt8], statusWord: UInt16) {
        let answer = try framing.run(framing.exchange(apdu), transmit: transmit)
        return (answer.data, try answer.statusWord(pollingLimit: framing.pollingLimit))
    }

    /// The one host-side framing (`FIDOWire`'s), with this channel's limits.
    private var framing: NFCHostFraming {
        let milliseconds = (maximumPollingSeconds * 1000).rounded()
        return .channel(pieceSize: maximumPieceSize, maximumGetResponses: maximumGetResponses,
                        pollingLimit: .milliseconds(Int64(exactly: milliseconds) ?? (milliseconds > 0 ? Int64.max : 0)))
    }

    private func transmit(_ apdu: [UInt8]) throws(CTAPClientError) -> [UInt8] {
        do {
            return try transport.transmit(apdu)
        } catch {
            throw .transport(error)
        }
    }
}
