/// How the person holding a card answers its tests of user presence.
public enum PresenceMode: String, Sendable, CaseIterable, CustomStringConvertible {
    /// Yes, at once (a card in the NFC field counts as present): the default. In process the
    /// card asks ``VirtualCard/userPresence``, which says yes unless a test replaced it.
    case approve
    /// No, at once.
    case decline
    /// The card waits for an answer (``VirtualCard/answerPresence(id:approve:)``, or `arculus-card
    /// ctl presence --approve ID` on a served card); a host that polls is answered `9100` with
    /// keepalive UPNEEDED meanwhile, and with no answer by the presence time-out the command fails
    /// with CTAP2_ERR_USER_ACTION_TIMEOUT (U2F: `6985`).
    case ask

    public var description: String { rawValue }
}
