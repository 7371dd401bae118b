import CBOR

/// PublicKeyCredentialUserEntity (WebAuthn §5.4.3) as CTAP carries it.
public struct UserEntity: Equatable, Sendable {
    /// The user handle: at most 64 opaque bytes.
    public var id: [UInt8]
    /// The account name, e.g. an e-mail address.
    public var name: String?
    /// A name for people.
    public var displayName: String?

    /// The account with handle `id`.
    public init(id: [UInt8], name: String? = nil, displayName: String? = nil) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }

    /// Reads the map a card returns (getAssertion, credential management).
    public init(cbor: CBORValue) throws(CTAPClientError) {
        guard let map = cbor.mapValue, let id = map[text: "id"]?.bytesValue else {
            throw .malformedResponse("a user entity without a byte-string id")
        }
        self.id = id
        name = map[text: "name"]?.textValue
        displayName = map[text: "displayName"]?.textValue
    }

    var cbor: CBORValue {
        var map = CBORMap()
        map["id"] = .bytes(id)
        if let name { map["name"] = .text(name) }
        if let displayName { map["displayName"] = .text(displayName) }
        return .map(map)
    }
}
