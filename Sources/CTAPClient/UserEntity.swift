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
        let (map, id) = try CBORMap.webAuthnStructure(cbor, id: \.bytesValue, "a user entity without a byte-string id")
        self.init(id: id, name: map[text: "name"]?.textValue, displayName: map[text: "displayName"]?.textValue)
    }

    var cbor: CBORValue {
        .map(CBORMap(["id": .bytes(id), "name": name.map { .text($0) }, "displayName": displayName.map { .text($0) }]))
    }
}
