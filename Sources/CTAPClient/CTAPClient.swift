import CBOR
import FIDOWire

/// A host-side CTAP 2.1 client for an NFC card: the platform of CTAP 2.1, over any
/// ``CardTransport``.
///
/// Opening selects the FIDO applet and reads getInfo; the choices a platform makes follow
/// that answer: PIN/UV auth protocol 2 when the card lists it (else 1), and
/// getPinUvAuthTokenUsingPinWithPermissions when the card has the `pinUvAuthToken` option (else
/// getPinToken).
///
/// ```swift
/// let client = try CTAPClient(transport: card)
/// let token = try client.pinToken(pin: "123456", permissions: .makeCredential, rpID: "example.com")
/// let made = try client.makeCredential(request, token: token)
/// ```
///
/// Not thread-safe: one client talks to one card, one command at a time (as a card does).
public final class CTAPClient {
    /// The APDU channel to the card.
    public let channel: NFCCTAPChannel
    /// What the FIDO applet answered to SELECT (`FIDO_2_0`).
    public let selectAnswer: String
    /// The card's getInfo as read when the client opened (or last refreshed).
    public private(set) var info: AuthenticatorInfo

    /// Selects the FIDO applet on the card behind `transport` and reads getInfo.
    ///
    /// - Throws: ``CTAPClientError``: ``CTAPClientError/appletNotFound(statusWord:)`` for a card
    ///   without a FIDO applet, ``CTAPClientError/ctap2NotSupported(selectAnswer:)`` for a
    ///   U2F-only one, ``CTAPClientError/transport(_:)`` when the card cannot be reached.
    public init(transport: any CardTransport) throws(CTAPClientError) {
        self.channel = NFCCTAPChannel(transport: transport)
        selectAnswer = try channel.selectFIDOApplet()
        if selectAnswer == "U2F_V2" { throw .ctap2NotSupported(selectAnswer: selectAnswer) }
        info = try Self.readInfo(channel)
    }

    /// Reads getInfo again (e.g. after setting a PIN, to see `clientPin` true).
    @discardableResult
    public func refreshInfo() throws(CTAPClientError) -> AuthenticatorInfo {
        info = try Self.readInfo(channel)
        return info
    }

    private static func readInfo(_ channel: NFCCTAPChannel) throws(CTAPClientError) -> AuthenticatorInfo {
        try info(from: try channel.sendCTAPMessage([CTAPCommand.getInfo.rawValue]))
    }

    /// Makes the client use this PIN/UV auth protocol version instead of the one getInfo
    /// suggests (for tests, or a card whose preferred protocol is broken).
    public var forcedPINProtocolVersion: Int?

    /// The PIN/UV auth protocol this client uses with the card: 2 if the card lists it, else 1
    /// (or ``forcedPINProtocolVersion``).
    public var pinProtocol: any PlatformPINUVAuthProtocol {
        get throws(CTAPClientError) { try Self.pinProtocol(info, forced: forcedPINProtocolVersion) }
    }

    /// Sends one CTAP command and returns the decoded response map (empty for a bare `CTAP2_OK`).
    ///
    /// - Parameter subcommand: named in the error if the card refuses.
    /// - Throws: ``CTAPClientError/ctap(_:)`` for any status other than `CTAP2_OK`.
    public func send(_ command: CTAPCommand, _ parameters: CBORMap? = nil,
                     subcommand: String? = nil) throws(CTAPClientError) -> CBORMap {
        try Self.responseMap(try channel.sendCTAPMessage(Self.message(command, parameters)), command: command, subcommand: subcommand)
    }

    static func decodeBody(_ response: [UInt8], command: CTAPCommand) throws(CTAPClientError) -> CBORMap {
        let body: CBORValue
        do {
            body = try CBORDecoder.decode(response[1...])
        } catch {
            throw .malformedResponse("the \(command) response is not CBOR: \(error)")
        }
        guard let map = body.mapValue else { throw .malformedResponse("the \(command) response is not a CBOR map") }
        return map
    }

    /// authenticatorReset (CTAP 2.1 §6.6): erases every credential and the PIN. Cards allow it
    /// only shortly after being tapped (`CTAP2_ERR_NOT_ALLOWED` otherwise).
    public func reset() throws(CTAPClientError) {
        _ = try send(.reset)
        try refreshInfo()
    }

    /// authenticatorSelection (CTAP 2.1 §6.9): asks for user presence.
    public func selection() throws(CTAPClientError) {
        _ = try send(.selection)
    }
}
