/// A fault the card holds, with the ID that removes it and how often it has acted.
public struct InjectedFault: Hashable, Sendable, CustomStringConvertible {
    /// The card-wide ID (1, 2, …), for ``CardControl/removeFault(id:)``.
    public let id: Int
    /// The fault.
    public let fault: Fault
    /// How many times it has acted so far.
    public internal(set) var hits: Int

    public var description: String { "#\(id) \(fault)" }
}
