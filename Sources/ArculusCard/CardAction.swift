import CTAP2

/// What the card model asks its caller to do after an input.
///
/// `faultActs` are the times an armed fault (``ArmedFaults``) acted while the model worked
/// towards this action, in order: the caller that armed them counts and logs them before it does
/// anything else (``CardControl/record(_:)``); a caller that arms none always gets none.
public enum CardAction {
    /// Send this response APDU, after the card's simulated work time (`work`, zero unless the
    /// timing profile is on). `ran` is the command that ran to produce it, if any.
    case respond([UInt8], ran: CardCommand?, work: Duration, faultActs: [FaultAct])
    /// Make these changes durable, then call ``CardModel/finishWrite(succeeded:)``: only then may
    /// the answer leave the card.
    case persist([CardMutation], for: CardCommand, faultActs: [FaultAct])
    /// The command stopped at its test of user presence, which the environment left undecided:
    /// ask the person `prompt`, then give the model the answer (``CardModel/answerPresence(approved:)``)
    /// and call ``CardModel/continueAfterPresence(in:givingUp:)``. A driver that cannot ask at once
    /// waits until the answer comes or `deadline` passes — unless `mayDefer` (the host polls): then
    /// it may go on at once, and the host is answered `9100` UPNEEDED until the answer comes.
    case awaitPresence(PresencePrompt, until: CardInstant, mayDefer: Bool)
    /// Nothing: the card is not in the field, so it cannot answer.
    case silent
}
