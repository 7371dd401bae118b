import ArculusCard
import CardPage
import POSIXSupport
import Synchronization
import Transcript
import VirtualReader

/// `serve --ui`: the card page of every served card, on one loopback server (``CardPage``).
/// Each card's reader events go to its feed as well as to `serve`'s own trace; the page's ops run
/// through a control handler of the card's own, as `ctl`'s do, on the card's thread.
enum ServePage {
    /// The feeds of the cards' pages (one per card), nil without `--ui`.
    static func feeds(_ options: ServeOptions) -> [CardPageFeed]? {
        options.page.map { _ in options.cards.map { _ in CardPageFeed() } }
    }

    /// `serve`'s trace hook, also feeding the card's page when there is one.
    static func trace(_ hook: @escaping @Sendable (VPCDBridge.Event) -> Void,
                      feed: CardPageFeed?) -> @Sendable (VPCDBridge.Event) -> Void {
        guard let feed else { return hook }
        return { event in
            hook(event)
            feed.observe(event)
        }
    }

    /// The page server for `cards` on `bridges`, started, its address printed (`ui on …`); nil
    /// without `--ui`.
    static func start(_ options: ServeOptions, cards: [ServedCard], bridges: [VPCDBridge],
                      feeds: [CardPageFeed]?) throws -> CardPageServer? {
        guard let address = options.page, let feeds else { return nil }
        var pages: [CardPageCard] = []
        for (index, (card, bridge)) in zip(cards, bridges).enumerated() {
            let handler = ControlChannelHandler(card: card.emulated, bridge: bridge)
            let reader = ServeTrace.readerName(for: options.endpoint(ofCard: index))
            let prefix = cards.count > 1 ? "[\(reader)] " : ""
            if options.verbose { handler.trace = { Console.error(prefix + "page " + $0) } }
            handler.log = { Console.error(prefix + "page " + $0) }
            let transcript = card.recorder.map { recorder -> @Sendable () -> String in
                let held = RecorderOnCardThread(recorder: recorder)
                return { held.text }
            }
            pages.append(CardPageCard(name: reader, executor: { bridge.perform($0) }, handler: handler, transcript: transcript))
        }
        let server = try CardPageServer(port: address.port, cards: pages, feeds: feeds, workTimeout: options.controlTimeout)
        server.start()
        Console.output("ui on \(server.address(ofCard: 0))")
        for index in cards.indices.dropFirst() { Console.output("ui for card \(index + 1) on \(server.address(ofCard: index))") }
        return server
    }

    /// How many entries the page's own recording keeps (`--record` keeps everything in its file).
    static let transcriptMemoryLimit = 200_000
}

/// A card's recorder, read only on the card's thread (the page's transcript download runs there).
private struct RecorderOnCardThread: @unchecked Sendable {
    let recorder: TranscriptRecorder

    /// The session so far in the transcript format, with a note of what memory did not keep.
    var text: String {
        var text = recorder.transcript.text
        if recorder.entriesNotKept > 0 {
            text += "# the page kept the first \(recorder.transcript.entries.count) entries of this session; "
                + "\(recorder.entriesNotKept) later ones are not in this download\n"
        }
        return text
    }
}

extension ServePage {
    /// `--ui`'s line in `serve --help`.
    static let option = CommandDeclaration.Option(
        label: "--ui [127.0.0.1:PORT]", names: [("--ui", false, false)],
        help: ["A live web page of each card, served by this process on loopback only",
               "(default: a free port): what the card holds (PIN state, token,",
               "credentials, counter, faults), a trace of every message, and",
               "buttons for tap, remove, insert, presence, PIN, credentials, faults",
               "and the session's transcript. stdout says 'ui on http://127.0.0.1:",
               "PORT/?t=SECRET'; every request needs that secret, and the page's own",
               "Host and Origin. It changes the card only through the control",
               "channel's operations, and never shows a PIN, key or token."])
}

extension ServePage {
    /// What the page's recording names as the card's image: `blank` for a card in memory or a new
    /// image, else the image's path (its contents as they are before the card opens it).
    static func imageReference(_ path: String?) -> String {
        guard let path, let status = try? POSIX.status(atPath: path), status.size > 0 else { return "blank" }
        return path
    }

    /// The in-memory recording the page's transcript download gives (`--ui` without `--record`).
    static func recorder(_ card: VirtualCard, _ options: ServeOptions, index: Int, image: String) throws -> TranscriptRecorder {
        let recorder = try TranscriptRecorder(card: card, profile: options.cards[index].profileArgument, image: image,
                                              source: "arculus-card serve via vpcd (\(options.endpoint(ofCard: index)))")
        recorder.memoryLimit = transcriptMemoryLimit
        if image != "blank" {
            recorder.comment("the card started from the image \(image) as it was then; a replay needs a copy of it from before this session")
        }
        return recorder
    }
}
