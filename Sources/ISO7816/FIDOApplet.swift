/// The FIDO applet behind the card front.
///
/// The front (``CardFront``) owns everything ISO 7816: selection, chaining, GET RESPONSE,
/// the NFCCTAP instructions and U2F's APDU framing. The applet sees only whole, length-checked
/// requests.
public protocol FIDOApplet: AnyObject {
    /// SELECT answer: "FIDO_2_0" or "U2F_V2" as ASCII bytes.
    var selectResponse: [UInt8] { get }
    /// Whether NFCCTAP_MSG / NFCCTAP_GETRESPONSE are offered (else they answer `6D00`).
    var supportsCTAP2: Bool { get }
    /// Whether the U2F instructions REGISTER, AUTHENTICATE and VERSION are offered
    /// (else they answer `6D00`).
    var supportsU2F: Bool { get }
    /// CTAP maxMsgSize: bound on an assembled NFCCTAP_MSG payload (command byte + CBOR).
    var maxMessageSize: Int { get }
    /// CTAP2: request = command byte + CBOR; returns status byte + CBOR.
    func processCTAP2(_ request: [UInt8]) -> [UInt8]
    /// U2F REGISTER: 32-byte challenge parameter, 32-byte application parameter.
    func u2fRegister(challenge: [UInt8], application: [UInt8]) -> U2FOutcome
    /// U2F AUTHENTICATE with control byte P1 (0x03 enforce-user-presence-and-sign,
    /// 0x07 check-only, 0x08 dont-enforce-user-presence-and-sign).
    func u2fAuthenticate(control: UInt8, challenge: [UInt8], application: [UInt8], keyHandle: [UInt8]) -> U2FOutcome
    /// The card left the RF field (power off): clear volatile state.
    func powerOff()
}
