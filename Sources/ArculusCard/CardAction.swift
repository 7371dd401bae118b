import CTAP2

/// What the card model asks its caller to do after an input.
public enum CardAction {
    /// Send this response APDU, after the card's simulated work time (`work`, zero unless the
    /// timing profile is on). `ran` is the command that ran to produce it, if any.
    case respond([UInt8], ran: CardCommand?, work: Duration)
    /// Make these changes durable, then call ``CardModel/finishWrite(succeeded:)``: only then may
    /// the answer leave the card.
    case persist([CardMutation], for: CardCommand)
    /// Nothing: the card is not in the field, so it cannot answer.
    case silent
}
