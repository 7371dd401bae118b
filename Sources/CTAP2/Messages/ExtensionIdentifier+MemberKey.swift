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
    /// Reads the inputs from `extensions` (the map as its request's reading found it): the values
    /// of the extensions `profile` offers, judged in the declaration's order; the others not read.
    init(_ extensions: ExtensionsMap, profile: CardProfile) throws(CTAPStatus) {
        let inputs: Result<Self, CTAPStatus>
        do {
            inputs = try Self.members.read(extensions.values, initial: Self.initial) { $0.isOffered(by: profile) }
        } catch {
            throw CTAPStatus(decodingError: error)  // not reached: the request's reading checked the values
        }
        self = try inputs.get()
    }
}
