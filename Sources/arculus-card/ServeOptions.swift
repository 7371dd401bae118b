import ArculusCard
import VirtualReader

/// What `arculus-card serve`'s command line asks for, read and checked before anything starts.
struct ServeOptions {
    /// Where the vpcd driver listens for the first card (`--vpcd`, `--slot`); card `i` is on the
    /// reader `i` ports further (``endpoint(ofCard:)``).
    var endpoint: VPCDEndpoint
    /// The emulated cards (`--card`, once per card, or `--cards N` in memory; `--profile`,
    /// `--seed`), in reader order. One for `--stand-in`.
    var cards: [CardOptions]
    /// `--stand-in FILE`: a transcript answers instead of an emulated card.
    var standIn: String?
    /// `--record FILE`: the transcript to append to.
    var record: String?
    var busyFirst: Bool
    var timing: TimingProfile
    var tapDelay: Duration
    var pidFile: String?
    /// `--ready-file FILE`: written once every card is on its reader.
    var readyFile: String?
    /// `--wait-for-reader`: how long the cards may take to come onto their readers the first
    /// time (default 5 s); nil (`forever`) waits for ever.
    var waitForReader: Duration?
    var verbose: Bool
    /// `--control PATH`, the default socket, or none (`--no-control`). A socket that cannot be
    /// made is an error either way.
    var control: Control
    /// `--control-timeout`: how long a control request may wait for the card.
    var controlTimeout: Duration
    /// `--ui [127.0.0.1:PORT]`: the card page's address; nil without a page.
    var page: PageAddress?

    enum Control: Equatable {
        case none
        /// The default socket for the endpoint: in a new private directory, recorded for `ctl`.
        case defaultPath
        /// An explicit path.
        case path(String)
    }

    /// The first card's options (the only card's, but with `--card`/`--cards` for several).
    var card: CardOptions { cards[0] }

    /// Where card `index` connects: the first card's port plus `index`.
    func endpoint(ofCard index: Int) -> VPCDEndpoint {
        VPCDEndpoint(host: endpoint.host, port: endpoint.port + UInt16(index))
    }

    /// The most cards one serve puts on readers: pcscd's limit of readers.
    static let maximumCards = 16

    init(_ commandLine: [String]) throws {
        let (arguments, page) = try Self.pageAddress(in: commandLine)
        self.page = page
        let options = try ServeCommand.declaration.parse(arguments)
        guard options.positionals.isEmpty else { throw UsageError("unexpected argument '\(options.positionals[0])'") }
        endpoint = try options.vpcdEndpoint()
        tapDelay = try options.duration("--tap-delay") ?? .seconds(1)
        cards = try Self.cards(options)
        guard Int(endpoint.port) + cards.count - 1 <= Int(UInt16.max) else {
            throw UsageError("\(cards.count) cards from port \(endpoint.port) go past port \(UInt16.max)")
        }
        timing = .off
        if let name = options.value("--timing") {
            guard let named = TimingProfile.named(name) else {
                throw UsageError("--timing wants \(TimingProfile.builtIn.map(\.name).joined(separator: " or ")), not '\(name)'")
            }
            timing = named
        }
        switch (options.flag("--no-control"), options.value("--control")) {
        case (true, .some): throw UsageError("--control or --no-control, not both")
        case (true, nil): control = .none
        case (false, let path?): control = .path(path)
        case (false, nil): control = .defaultPath
        }
        controlTimeout = try options.duration("--control-timeout") ?? .seconds(10)
        if case .none = control, options.value("--control-timeout") != nil {
            throw UsageError("--control-timeout is for the control socket; --no-control has none")
        }
        guard controlTimeout >= .milliseconds(100) else { throw UsageError("--control-timeout wants at least 0.1 seconds") }
        record = options.value("--record")
        standIn = options.value("--stand-in")
        let first = cards[0]
        if standIn != nil, record != nil || first.isSeeded || first.imagePath != nil || first.profile != nil || cards.count > 1 {
            throw UsageError("--stand-in answers from a transcript: it takes no --card, --cards, --profile, --seed or --record")
        }
        if cards.count > 1, let one = ["--record", "--seed", "--control"].first(where: { options.value($0) != nil }) {
            throw UsageError("\(one) is for one card; with several, each gets the default control socket of its reader")
        }
        busyFirst = options.flag("--busy-first")
        pidFile = options.value("--pid-file")
        readyFile = options.value("--ready-file")
        switch options.value("--wait-for-reader") {
        case "forever": waitForReader = nil
        case nil: waitForReader = .seconds(5)
        case let text?:
            guard let seconds = Double(text), seconds > 0, seconds <= 3600 else {
                throw UsageError("--wait-for-reader wants seconds (above 0, at most 3600) or 'forever', not '\(text)'")
            }
            waitForReader = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        verbose = options.flag("--verbose")
    }

    /// One card per `--card FILE`, or `--cards N` in memory, or the one card in memory.
    private static func cards(_ options: CommandLineOptions) throws -> [CardOptions] {
        let images = options.values("--card")
        let base = try CardOptions(options)
        var count = images.isEmpty ? 1 : images.count
        if let text = options.value("--cards") {
            guard let number = Int(text), (1...maximumCards).contains(number) else {
                throw UsageError("--cards wants a number of cards from 1 to \(maximumCards), not '\(text)'")
            }
            guard images.isEmpty else { throw UsageError("--cards N is for cards in memory; give --card once per card image instead") }
            count = number
        }
        guard count <= maximumCards else { throw UsageError("at most \(maximumCards) cards (pcscd's readers), not \(count)") }
        if images.contains("") { throw UsageError("--card wants a file name") }
        if Set(images).count < images.count { throw UsageError("a card image is given twice: each card needs its own") }
        return (0..<count).map { index in
            var card = base
            card.imagePath = images.isEmpty ? nil : images[index]
            return card
        }
    }
}
