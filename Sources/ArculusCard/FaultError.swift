/// Why a fault could not be injected or removed.
public enum FaultError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The fault could never act (see ``Fault/validate()``).
    case notApplicable(String)
    /// No injected fault has this ID.
    case noSuchFault(Int)

    public var description: String {
        switch self {
        case .notApplicable(let why): "the fault cannot act: \(why)"
        case .noSuchFault(let id): "no injected fault has ID \(id)"
        }
    }
}
