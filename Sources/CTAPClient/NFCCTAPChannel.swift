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
/// Short APDUs only, so the exchange works on every reader (and on every PC/SC driver).
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
        let apdus = NFCFraming.apdus(message, pieceSize: maximumPieceSize)
        for piece in apdus.dropLast() {
            let (_, word) = try exchange(piece)
            guard word == 0x9000 else {
                throw .unexpectedStatusWord(word, during: "a chained NFCCTAP_MSG piece")
            }
        }
        var (data, word) = try exchange(apdus[apdus.count - 1])
        if word == 0x9100 {
            (data, word) = try poll(firstStatus: data.first)
        }
        guard word == 0x9000 else { throw .unexpectedStatusWord(word, during: "NFCCTAP_MSG") }
        guard !data.isEmpty else { throw .malformedResponse("a CTAP response without a status byte") }
        return data
    }

    /// NFCCTAP_GETRESPONSE until the card stops answering `9100`.
    private func poll(firstStatus: UInt8?) throws(CTAPClientError) -> ([UInt8], UInt16) {
        if let firstStatus { keepalive?(firstStatus) }
        let clock = ContinuousClock()
        let start = clock.now
        var pause = 0.005
        while true {
            let waited = start.duration(to: clock.now)
            let seconds = Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18
            guard seconds <= maximumPollingSeconds else { throw .stillProcessing(afterSeconds: maximumPollingSeconds) }
            Self.sleep(seconds: pause)
            pause = min(pause * 2, 0.1)
            let (data, word) = try exchange([0x80, 0x11, 0x00, 0x00, 0x00])
            guard word == 0x9100 else { return (data, word) }
            if let status = data.first { keepalive?(status) }
        }
    }

    /// One command APDU, following `61xx` with GET RESPONSE; returns all data and the last word.
    public func exchange(_ apdu: [UInt8]) throws(CTAPClientError) -> (data: [UInt8], statusWord: UInt16) {
        var data: [UInt8] = []
        var command = apdu
        var getResponses = 0
        while true {
            let response: [UInt8]
            do {
                response = try transport.transmit(command)
            } catch {
                throw .transport(error)
            }
            guard response.count >= 2 else {
                throw .malformedResponse("an APDU answer of \(response.count) byte(s) (\(Hex.string(response))); it must end with SW1 SW2")
            }
            data += response.dropLast(2)
            let sw1 = response[response.count - 2]
            let sw2 = response[response.count - 1]
            guard sw1 == 0x61 else { return (data, UInt16(sw1) << 8 | UInt16(sw2)) }
            getResponses += 1
            guard getResponses <= maximumGetResponses else {
                throw .malformedResponse("the card still answered 61xx after \(maximumGetResponses) GET RESPONSEs")
            }
            command = [0x00, 0xC0, 0x00, 0x00, sw2]
        }
    }

    private static func sleep(seconds: Double) {
        POSIX.sleep(for: .seconds(seconds))
    }
}
