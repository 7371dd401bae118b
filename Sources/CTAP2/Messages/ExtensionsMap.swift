import CBOR
import FIDOWire

/// A request's extensions map (CTAP 2.1 §12) as the request's reading found it, in its one pass
/// over the map (``MemberCoding/extensionsMap``): the bytes as sent, written back as they came,
/// and where the value of each member whose key is an extension the card knows lies in them, in
/// the order sent. The command's extension inputs (``ExtensionInputs``) read the values of the
/// extensions the profile offers from these, without reading the map again.
struct ExtensionsMap: Sendable, Equatable {
    /// A member the card knows: its extension, and its value's bytes in ``encoded``.
    struct Entry: Sendable, Equatable {
        let identifier: ExtensionIdentifier
        let value: Range<Int>
    }

    /// The map as sent (checked whole).
    let encoded: [UInt8]
    /// The members whose key names an extension the card knows, in the order sent; a member of
    /// another key is not kept (its value was checked, never to be read).
    let entries: [Entry]

    /// The members as their keys and their values as sent.
    var values: some Sequence<(key: ExtensionIdentifier, value: ArraySlice<UInt8>)> {
        entries.lazy.map { [encoded] entry in (key: entry.identifier, value: encoded[entry.value]) }
    }
}
