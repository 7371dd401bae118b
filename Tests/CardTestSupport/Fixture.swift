import CTAP2
import CardCrypto

/// The values the card's tests send, in one table: the card's own tests (CTAP2Tests), the CTAP
/// client's and the SDK's speak of the same relying party, user and PIN, and build the same
/// variant profiles. The tests assert bytes derived from these (RP ID hashes, PIN hashes,
/// signatures over client data hashes): a value changes here or nowhere.
///
/// A test target adds what only it needs (its card factories, its error helpers) in an
/// extension of its own.
public enum Fixture {
    // MARK: - Relying parties and users

    /// The relying party.
    public static let rpID = "example.com"
    /// A second relying party, for what must stay apart from ``rpID``.
    public static let otherRpID = "other.example"
    /// The web origin of ``rpID``.
    public static let origin = "https://example.com"
    /// The relying party's display name in a makeCredential request.
    public static let rpName = "Example"
    /// The user handle ("user-1").
    public static let userID: [UInt8] = [0x75, 0x73, 0x65, 0x72, 0x2D, 0x31]
    /// The user's name in a makeCredential request.
    public static let userName = "alice"
    /// The user's display name in a makeCredential request.
    public static let userDisplayName = "Alice A."

    // MARK: - PINs

    /// The PIN the host-side tests (the CTAP client's, the SDK's) set: six digits.
    public static let pin = "123456"
    /// The PIN the card's own tests set: four code points, the shortest a card with the default
    /// minimum PIN length takes.
    public static let shortPIN = "1234"

    // MARK: - Client data

    /// The client data hash of a request: SHA-256 of `label`, so that each request of a test can
    /// have a hash of its own and the same one on every run.
    public static func clientDataHash(_ label: String = "client data") -> [UInt8] { SHA256.hash(Array(label.utf8)) }

    // MARK: - Profiles

    /// The FIDO 2.1 profile with PIN/UV auth protocol 1 only: a card that makes a client fall back.
    public static var protocolOneOnly: CardProfile {
        var profile = CardProfile.default
        profile.name = "fido21-protocol-1-only"
        profile.pinUvAuthProtocols = [1]
        return profile
    }

    /// The FIDO 2.1 profile with room for one discoverable credential.
    public static var capacityOne: CardProfile {
        var profile = CardProfile.default
        profile.name = "fido21-capacity-1"
        profile.residentKeyCapacity = 1
        return profile
    }
}
