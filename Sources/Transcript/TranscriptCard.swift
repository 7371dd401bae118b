import ArculusCard
import CardCrypto

/// Anything that answers APDUs like a card and can be powered: what the recorder wraps and
/// what a replay talks to. `VirtualCard` is one; a test can write a deliberately broken one.
public protocol TranscriptCard: AnyObject {
    /// The card entered the field.
    func powerOn()
    /// The card left the field: volatile state is lost.
    func powerOff()
    /// One command APDU in, the response APDU (data + SW1 SW2) out.
    func transmit(_ apdu: [UInt8]) -> [UInt8]
    /// The public key of a credential the card holds, when it can tell (a structural replay
    /// uses it to check assertions made with credentials older than the transcript).
    func credentialPublicKey(id: [UInt8]) -> P256PublicKey?
}

extension TranscriptCard {
    /// By default a card does not reveal its credentials.
    public func credentialPublicKey(id: [UInt8]) -> P256PublicKey? { nil }
}
