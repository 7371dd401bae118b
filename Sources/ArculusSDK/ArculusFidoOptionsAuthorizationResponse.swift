import Foundation
import Synchronization

/// The authentication options a backend-proxied app hands to
/// ``ArculusFido/authenticateCardOnly(pin:username:rpId:optionsResponse:)``, named and shaped as in
/// the vendor SDK's sample apps (`createOptionsResponseFromBackend`): the challenge and RP ID from
/// phase 1, the allowed credentials, and either a ready clientDataJSON (with its hash) or the
/// origin to build one with.
///
/// A reference type, as in the samples (`let options = ...; options.challenge = ...`): its
/// properties are the ``Fields``, read and changed under a lock, so it may be shared.
@dynamicMemberLookup
public final class ArculusFidoOptionsAuthorizationResponse: Sendable {
    /// What the options' properties hold, by name: `options.challenge` is ``challenge``.
    public struct Fields: Sendable {
        /// The server's challenge (base64url).
        public var challenge: String?
        /// The RP ID the server expects.
        public var rpId: String?
        /// The credential IDs the server accepts (base64url); empty: any of the user's discoverable
        /// credentials on the card.
        public var allowList: [String] = []
        /// A ready clientDataJSON (base64url) to sign over; when nil the SDK builds one from
        /// ``challenge`` and ``origin``.
        public var clientDataJSONbase64: String?
        /// SHA-256 of ``clientDataJSONbase64``'s JSON; checked against it when both are set.
        public var clienthash: Data?
        /// SHA-256 of ``rpId``; checked when set.
        public var rpIdHash: Data?
        /// The origin for a clientDataJSON the SDK builds (e.g. the backend's `fido2ServerOrigin`).
        public var origin: String?
    }

    private let fields = Mutex(Fields())

    /// Empty options, to fill in as the samples do.
    public init() {}

    /// One of the ``Fields``, read or changed under the lock.
    public subscript<Value: Sendable>(dynamicMember field: WritableKeyPath<Fields, Value>) -> Value {
        get { fields.withLock { $0[keyPath: field] } }
        set { fields.withLock { $0[keyPath: field] = newValue } }
    }
}
