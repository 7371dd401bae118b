import CBOR
import FIDOWire

/// The extensions this card knows (FIDOWire's identifiers) are the keys of an extensions map.
extension ExtensionIdentifier: MemberKey {}

extension Member where Value == Bool {
    /// An input that, when present, is `true` (largeBlobKey, CTAP 2.1 §12.3): false is INVALID_OPTION.
    func onlyTrue() throws(CTAPStatus) -> Bool {
        guard let flag = try optional() else { return false }
        guard flag else { throw .invalidOption }
        return true
    }
}
