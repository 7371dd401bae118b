import CBOR

/// PublicKeyCredentialRpEntity (WebAuthn §5.4.2) as CTAP carries it.
public struct RelyingPartyEntity: Equatable, Sendable {
    /// The RP ID, e.g. `example.com`.
    public var id: String
    /// A name for people, optional.
    public var name: String?

    /// The relying party `id`, with an optional name.
    public init(id: String, name: String? = nil) {
        self.id = id
        self.name = name
    }

    /// Reads the map a card returns (credential management).
    public init(cbor: CBORValue) throws(CTAPClientError) {
        let (map, id) = try CBORMap.webAuthnStructure(cbor, id: \.textValue, "a relying party entity without an id")
        self.init(id: id, name: map[text: "name"]?.textValue)
    }

    var cbor: CBORValue { .map(CBORMap(["id": .text(id), "name": name.map { .text($0) }])) }
}

extension CBORMap {
    /// The map of a WebAuthn structure a card returns (an entity, a credential descriptor) and
    /// its `id` member, which `id` reads; ``CTAPClientError/malformedResponse(_:)`` with
    /// `missing` when it is not a map or its `id` is absent or of another type.
    static func webAuthnStructure<ID>(_ value: CBORValue, id: (CBORValue) -> ID?,
                                      _ missing: String) throws(CTAPClientError) -> (CBORMap, ID) {
        guard let map = value.mapValue, let id = map[text: "id"].flatMap(id) else { throw .malformedResponse(missing) }
        return (map, id)
    }
}
