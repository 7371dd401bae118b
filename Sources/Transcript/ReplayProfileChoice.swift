import ArculusCard

/// Which profile a replay's card is made with, and where that came from — what `replay` says, so
/// that no difference is read without knowing whether the kind of card was assumed (a transcript
/// without `@profile` replays against the default profile, and a recording of another kind of card
/// then differs at its first getInfo).
public struct ReplayProfileChoice: Equatable, Sendable, CustomStringConvertible {
    /// Where the profile came from.
    public enum Source: Equatable, Sendable {
        /// Given to the replay, instead of `@profile`.
        case given
        /// The transcript's `@profile`.
        case header
        /// Neither: the default profile, assumed.
        case assumed
    }

    /// The profile as named: a built-in name, or a path (as given, or as `@profile` has it,
    /// relative to the transcript).
    public let reference: String
    public let source: Source

    /// The choice for `transcript`, with `given` (nil: none) overriding its `@profile`.
    public init(transcript: Transcript, given: String?) {
        if let given {
            (reference, source) = (given, .given)
        } else if let header = transcript.header(KnownHeader.profile.rawValue) {
            (reference, source) = (header, .header)
        } else {
            (reference, source) = (CardProfile.default.name, .assumed)
        }
    }

    /// `profile ctap-reference, the transcript's @profile`, `profile arculus-fido21, assumed: …`.
    public var description: String {
        switch source {
        case .given: "profile \(reference), as given"
        case .header: "profile \(reference), the transcript's @profile"
        case .assumed: "profile \(reference), assumed: the transcript has no @profile"
        }
    }
}
