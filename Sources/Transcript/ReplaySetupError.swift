/// A replay that cannot start: the card the transcript describes cannot be made.
public struct ReplaySetupError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `profile: unknown profile 'x': …`.
    public let description: String

    /// An error saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}
