import CTAP2

/// How the driver of a card waits for a deadline the card set: the time a command's answer is
/// due (``TimingProfile``, a delay fault), the end of a wait for the person (``PresenceMode/ask``).
/// The card model never waits; it returns the deadline as a value, and ``VirtualCard`` hands it
/// here. A waiter is the one place where the card's time passes, so it decides what a wait is:
/// ``SystemCardWaiter`` blocks the thread until the card's clock reaches the deadline and a stop
/// cuts it short; ``ManualCardClock`` moves a test's clock to the deadline at once; a reader
/// bridge serves other work meanwhile (its control requests) and ends the wait when it stops.
public protocol CardWaiter: AnyObject {
    /// Waits until `clock` reads `deadline` or later, or until `isSettled()` is true (checked
    /// before the wait and after anything the waiter does meanwhile), or until the waiter is
    /// stopped; says which came first. `purpose` says what the card waits for.
    func wait(until deadline: CardInstant, for purpose: CardWaitPurpose, clock: () -> CardInstant,
              unless isSettled: () -> Bool) -> CardWaitOutcome
}

/// What a card waits for.
public enum CardWaitPurpose: Sendable, Equatable {
    /// Its own work: the time an answer is due (the timing profile, a delay fault). The card is
    /// busy meanwhile.
    case work
    /// The person's answer to a test of user presence (``PresenceMode/ask``): the card is idle
    /// meanwhile, and the answer comes from outside (a served card's control requests run).
    case person
}

/// How a wait ended.
public enum CardWaitOutcome: Sendable, Equatable {
    /// The card's clock reached the deadline.
    case reached
    /// What the wait was for happened first (the person answered).
    case settled
    /// The waiter was stopped (the card is going away): the caller goes on as if the deadline had
    /// passed, at once.
    case interrupted
}
