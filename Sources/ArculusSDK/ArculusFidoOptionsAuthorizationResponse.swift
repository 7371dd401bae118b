import Foundation
import Synchronization

/// The authentication options a backend-proxied app hands to
/// ``ArculusFido/authenticateCardOnly(pin:username:rpId:optionsResponse:)``, named and shaped as in
/// the vendor SDK's sample apps (`createOptionsResponseFromBackend`): the challenge and RP ID from
/// phase 1, the allowed credentials, and either a ready clientDataJSON (with its hash) or the
/// origin to build one with.
///
/// A reference type, as in the samples (`let options = ...; options.challenge = ...`); its
/// properties are guarded by a lock, so it may be shared.
public final class ArculusFidoOptionsAuthorizationResponse: Sendable {
    private struct Fields {
        var challenge: String?
        var rpId: String?
        var allowList: [String] = []
        var clientDataJSONbase64: String?
        var clienthash: Data?
        var rpIdHash: Data?
        var origin: String?
    }

    private let fields = Mutex(Fields())

    /// Empty options, to fill in as the samples do.
    public init() {}

    /// The server's challenge (base64url).
    public var challenge: String? {
        get { fields.withLock { $0.challenge } }
        set { fields.withLock { $0.challenge = newValue } }
    }

    /// The RP ID the server expects.
    public var rpId: String? {
        get { fields.withLock { $0.rpId } }
        set { fields.withLock { $0.rpId = newValue } }
    }

    /// The credential IDs the server accepts (base64url); empty: any of the user's discoverable
    /// credentials on the card.
    public var allowList: [String] {
        get { fields.withLock { $0.allowList } }
        set { fields.withLock { $0.allowList = newValue } }
    }

    /// A ready clientDataJSON (base64url) to sign over; when nil the SDK builds one from
    /// ``challenge`` and ``origin``.
    public var clientDataJSONbase64: String? {
        get { fields.withLock { $0.clientDataJSONbase64 } }
        set { fields.withLock { $0.clientDataJSONbase64 = newValue } }
    }

    /// SHA-256 of ``clientDataJSONbase64``'s JSON; checked against it when both are set.
    public var clienthash: Data? {
        get { fields.withLock { $0.clienthash } }
        set { fields.withLock { $0.clienthash = newValue } }
    }

    /// SHA-256 of ``rpId``; checked when set.
    public var rpIdHash: Data? {
        get { fields.withLock { $0.rpIdHash } }
        set { fields.withLock { $0.rpIdHash = newValue } }
    }

    /// The origin for a clientDataJSON the SDK builds (e.g. the backend's `fido2ServerOrigin`).
    public var origin: String? {
        get { fields.withLock { $0.origin } }
        set { fields.withLock { $0.origin = newValue } }
    }
}
