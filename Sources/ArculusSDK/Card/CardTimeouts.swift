/// How long the SDK waits for the card: for it to be presented, and for each of its answers.
/// Every wait also ends when the task that runs the operation is cancelled (701 Cancelled). A
/// wait longer than a day is a day.
///
/// ```swift
/// let sdk = ArculusFido(card: connector, timeouts: CardTimeouts(tap: .seconds(10), answer: .seconds(5)))
/// ```
public struct CardTimeouts: Equatable, Sendable {
    /// How long an operation waits for its connector to find a card (an app: for the user to tap
    /// it). Past it: 600 Tag Lost.
    public var tap: Duration
    /// How long the SDK waits for one answer of the card (one APDU; a card that is still busy
    /// answers `9100` long before). Past it: 607 Transmit Failed, and the tap ends.
    public var answer: Duration

    /// Waits of `tap` (default 30 s, as long as a phone's NFC reader session stays open) and
    /// `answer` (default 15 s).
    public init(tap: Duration = .seconds(30), answer: Duration = .seconds(15)) {
        self.tap = tap
        self.answer = answer
    }

    /// The longest wait the SDK makes (a day): a longer one given is a day, so that no deadline
    /// computed from it overflows the clock.
    static let longest = Duration.seconds(86_400)

    /// `duration`, at least zero and at most ``longest``.
    static func bounded(_ duration: Duration) -> Duration {
        min(max(duration, .zero), longest)
    }

    /// `Duration` as a person reads it: `30 s`, `0.5 s`.
    static func text(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}
