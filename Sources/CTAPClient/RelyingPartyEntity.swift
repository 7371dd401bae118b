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
        guard let map = cbor.mapValue, let id = map[text: "id"]?.textValue else {
            throw .malformedResponse("a relying party entity without an id")
        }
        self.id = id
        name = map[text: "name"]?.textValue
    }

    var cbor: CBORValue {
        var map = CBORMap()
        map["id"] = .text(id)
        if let name { map["name"] = .text(name) }
        return .map(map)
    }
}
