import CBOR
import FIDOWire

/// PublicKeyCredentialUserEntity (WebAuthn §5.4.3) as CTAP carries it: FIDOWire's, named here so
/// that a client needs only this module.
public typealias UserEntity = FIDOWire.UserEntity

extension UserEntity {
    /// Reads the map a card returns (getAssertion, credential management).
    public init(cbor: CBORValue) throws(CTAPClientError) {
        let (map, id) = try CBORMap.webAuthnStructure(cbor, id: \.bytesValue, "a user entity without a byte-string id")
        self.init(id: id, name: map[text: "name"]?.textValue, displayName: map[text: "displayName"]?.textValue)
    }

    var cbor: CBORValue {
        .map(CBORMap(["id": .bytes(id), "name": name.map { .text($0) }, "displayName": displayName.map { .text($0) }]))
    }
}
