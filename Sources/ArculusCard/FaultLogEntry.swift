/// One time an injected fault acted: the in-process fault log (``CardControl/log``) and the
/// `! fault injected: …` lines of `arculus-card serve`.
public struct FaultLogEntry: Hashable, Sendable, CustomStringConvertible {
    /// The ID of the fault that acted.
    public let faultID: Int
    /// The command it acted in.
    public let command: CardCommand
    /// What it did.
    public let effect: FaultEffect
    /// What happened, in words (e.g. "answered CTAP2_ERR_NO_CREDENTIALS (0x2E) instead of running").
    public let detail: String
    /// Whether that was the fault's last act (a one-shot fault).
    public let removed: Bool

    /// `fault injected: authenticatorGetAssertion: … (fault #1)`.
    public var description: String {
        "fault injected: \(command): \(detail) (fault #\(faultID)\(removed ? ", now removed" : ""))"
    }
}
