import CTAP2
import FIDOWire
import ISO7816

extension CardFront.Behaviour {
    /// The front's switches of `profile` (its ``CardBehaviour`` and ``CardDepartures``), for every
    /// front that answers as a card of that profile (the card model, a transcript's stand-in).
    public init(profile: CardProfile) {
        self.init()
        let behaviour = profile.behaviour
        malformedAPDU = behaviour.malformedAPDU
        unknownClass = behaviour.unknownClass
        unknownInstructionClass00 = behaviour.unknownInstructionClass00
        unknownInstructionClass80 = behaviour.unknownInstructionClass80
        incorrectP1P2 = behaviour.incorrectP1P2
        emptyMessage = behaviour.emptyMessage
        getResponseIdle = behaviour.getResponseIdle
        nfcctapGetResponseIdle = behaviour.nfcctapGetResponseIdle
        nfcctapGetResponse = behaviour.nfcctapGetResponse
        responseChunk = behaviour.responseChunk
        commandResponseChunk = behaviour.commandResponseChunk
        exceedsLe = profile.departures.exceedsLe
        getResponseInChain = behaviour.getResponseInChain == .process
        selectInChain = behaviour.selectInChain == .process
        getResponseChecksP1P2 = behaviour.getResponseP1P2 == .check
        if case .answer(let word) = behaviour.afterRefusedSelect { afterRefusedSelect = word }
        if case .refused(let word) = behaviour.chainOverflow { chainOverflow = word }
        notSelected = behaviour.notSelected
        selectOtherP1P2 = behaviour.selectOtherP1P2
        selectAnswersWithP2NoData = behaviour.selectNoDataP2 == .answer
        switch behaviour.selectWithoutAID {
        case .status(let word): selectWithoutAID = word
        case .selects: selectWithoutAID = nil
        }
        selectPartialAID = behaviour.selectPartialAID == .select
        selectLongerAID = profile.departures.longerAIDSelects
        failedSelectDeselects = behaviour.failedSelectDeselects
        // Only a card that does not list U2F_V2 answers U2F_VERSION alone (validation refuses the rest).
        u2fVersionOnly = behaviour.u2fUnlisted == .versionOnly ? StatusWord(rawValue: 0x6986) : nil
        u2fVersionIgnoresData = behaviour.u2fVersionData == .ignore
    }
}
