#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A point in time as the card sees it: how long after some origin. The card model never reads a
/// clock itself; every transition is given the time, so every timer (the getNextAssertion window,
/// the reset window after power-up) can be tested without sleeping, and the model is
/// deterministic given its seed, the times and its inputs.
public struct CardInstant: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// The time since the origin.
    public var sinceOrigin: Duration

    /// The instant `sinceOrigin` after the origin.
    public init(sinceOrigin: Duration) {
        self.sinceOrigin = sinceOrigin
    }

    /// The origin itself: a convenient start for tests.
    public static let origin = CardInstant(sinceOrigin: .zero)

    /// The instant `seconds` after the origin.
    public static func seconds(_ seconds: Double) -> CardInstant {
        CardInstant(sinceOrigin: .nanoseconds(Int64((seconds * 1e9).rounded())))
    }

    /// Now, on the machine's monotonic clock (the default clock of a card in use).
    public static func monotonicNow() -> CardInstant {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return CardInstant(sinceOrigin: .seconds(Int64(time.tv_sec)) + .nanoseconds(Int64(time.tv_nsec)))
    }

    /// This instant moved by `duration`.
    public func advanced(by duration: Duration) -> CardInstant {
        CardInstant(sinceOrigin: sinceOrigin + duration)
    }

    /// How long from this instant to `other` (negative when `other` is earlier).
    public func duration(to other: CardInstant) -> Duration {
        other.sinceOrigin - sinceOrigin
    }

    public static func < (lhs: CardInstant, rhs: CardInstant) -> Bool { lhs.sinceOrigin < rhs.sinceOrigin }

    public var description: String { "t+\(sinceOrigin)" }
}
