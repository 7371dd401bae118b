import CBOR
import FIDOWire

/// The extensions this card knows (FIDOWire's identifiers) are the keys of an extensions map.
extension ExtensionIdentifier: MemberKey {
    /// Whether `profile` offers the extension: one it does not offer is ignored, as the
    /// specification asks of an unknown extension.
    func isOffered(by profile: CardProfile) -> Bool { profile.offers(self) }
}

/// A command's extension inputs (CTAP 2.1 §12): the members of its request's extensions map that
/// the card knows, read for the extensions the profile offers.
protocol ExtensionInputs: DeclaredMembers where Key == ExtensionIdentifier {}

extension ExtensionInputs {
    /// Reads `extensions` (the map as sent, checked whole with the request): the members of the
    /// extensions `profile` offers, judged in the declaration's order; the others skipped.
    init(_ extensions: [UInt8], profile: CardProfile) throws(CTAPStatus) {
        var reader = CBORReader(extensions[...])
        let inputs: Result<Self, CTAPStatus>
        do {
            inputs = try Self.members.read(from: &reader, initial: Self.initial) { $0.isOffered(by: profile) }
        } catch {
            throw CTAPStatus(decodingError: error)  // not reached: the request's reading checked the map
        }
        self = try inputs.get()
    }
}
