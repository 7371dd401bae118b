import CBOR
import FIDOWire

/// The extensions this card knows (CTAP 2.1 §12, CTAP 2.2 §12): the keys of an extensions map.
enum ExtensionIdentifier: String, MemberKey {
    case credProtect, hmacSecret = "hmac-secret", hmacSecretMC = "hmac-secret-mc", credBlob, largeBlobKey
    case minPinLength, thirdPartyPayment
}

extension Member where Value == Bool {
    /// An input that, when present, is `true` (largeBlobKey, CTAP 2.1 §12.3): false is INVALID_OPTION.
    func onlyTrue() throws(CTAPStatus) -> Bool {
        guard let flag = try optional() else { return false }
        guard flag else { throw .invalidOption }
        return true
    }
}
