import ArculusCard
import Transcript
import VirtualReader

/// What `serve` puts on the reader: the emulated card (perhaps behind a transcript recorder), or
/// a transcript standing in for one.
struct ServedCard {
    /// What the bridge talks to.
    let readerCard: any ReaderCard
    /// The emulated card, for the control channel; nil for a stand-in.
    let emulated: VirtualCard?
    let standIn: TranscriptStandIn?
    let recorder: TranscriptRecorder?
    /// How `serve` names it on stderr.
    let name: String

    /// Opens card `index` of those the options describe.
    init(_ options: ServeOptions, index: Int = 0) throws {
        if let path = options.standIn {
            let transcriptCard = try TranscriptStandIn(fileAt: path)
            transcriptCard.onMismatch = { Console.error("\($0)") }
            (readerCard, emulated, standIn, recorder) = (transcriptCard, nil, transcriptCard, nil)
            name = "stand-in for \(path)"
            return
        }
        var imageReference = "blank"
        if let recordPath = options.record {
            // Snapshot the image before the card opens (and may change) it.
            imageReference = try TranscriptRecorder.imageReference(forImageAt: options.card.imagePath, recordingTo: recordPath,
                                                                   fileMode: .appendSession)
        }
        let cardOptions = options.cards[index]
        // The page's own recording (--ui without --record) starts from the image as it is now.
        let imageAtStart = options.record == nil ? ServePage.imageReference(cardOptions.imagePath) : nil
        let card = try cardOptions.open(frontOptions: CardFront.Options(busyFirst: options.busyFirst))
        card.timing = options.timing
        card.control.onFaultInjected = { Console.error("! \($0)") }
        // A change the image could not store (the card answered CTAP1_ERR_OTHER), or a compaction
        // that failed after one it did: each with the failing call and its error.
        card.onWriteFailure = { Console.error("arculus-card serve: \($0)") }
        var name = "\(card.profile.name) card" + (cardOptions.imagePath.map { " from \($0)" } ?? " (in memory)")
        guard let recordPath = options.record else {
            let pageRecorder = options.page == nil ? nil : try ServePage.recorder(card, options, index: index, image: imageAtStart ?? "blank")
            (readerCard, emulated, standIn, recorder, self.name) = (pageRecorder ?? card, card, nil, pageRecorder, name)
            return
        }
        let profileReference = options.card.profileArgument.map { argument in
            CardProfile.builtInNames.contains(argument) ? argument : Transcript.relativePath(of: argument, fromFolderOf: recordPath)
        }
        let transcriptRecorder: TranscriptRecorder
        do {
            transcriptRecorder = try TranscriptRecorder(
                card: card, profile: profileReference, image: imageReference,
                source: "arculus-card serve via vpcd (\(options.endpoint))", recordingTo: recordPath, fileMode: .appendSession)
        } catch {
            // A card image this serve just made is not left behind by a serve that does not run.
            if let image = card.storage as? CardImageFile, image.isNew { image.removeImage() }
            throw error
        }
        name += ", recording to \(recordPath) (session \(transcriptRecorder.file?.session ?? 1))"
        (readerCard, emulated, standIn, recorder, self.name) = (transcriptRecorder, card, nil, transcriptRecorder, name)
    }
}
