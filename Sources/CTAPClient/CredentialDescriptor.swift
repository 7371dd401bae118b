import CBOR

/// PublicKeyCredentialDescriptor (WebAuthn §5.8.3): a credential named by its ID.
public struct CredentialDescriptor: Equatable, Hashable, Sendable {
    /// The credential ID.
    public var id: [UInt8]
    /// Always `public-key` today.
    public var type: String

    /// A descriptor for the credential `id`.
    public init(id: [UInt8], type: String = "public-key") {
        self.id = id
        self.type = type
    }

    /// Reads the map a card returns.
    public init(cbor: CBORValue) throws(CTAPClientError) {
        let (map, id) = try CBORMap.webAuthnStructure(cbor, id: \.bytesValue, "a credential descriptor without a byte-string id")
        self.init(id: id, type: map[text: "type"]?.textValue ?? "public-key")
    }

    var cbor: CBORValue { .map(["id": .bytes(id), "type": .text(type)]) }
}
