import ArculusCard
import VirtualReader

/// What `arculus-card serve`'s command line asks for, read and checked before anything starts.
struct ServeOptions {
    /// Where the vpcd driver listens (`--vpcd`, `--slot`).
    var endpoint: VPCDEndpoint
    /// The emulated card (`--card`, `--profile`, `--seed`).
    var card: CardOptions
    /// `--stand-in FILE`: a transcript answers instead of an emulated card.
    var standIn: String?
    /// `--record FILE`: the transcript to append to.
    var record: String?
    var busyFirst: Bool
    var timing: TimingProfile
    var tapDelay: Duration
    var pidFile: String?
    var verbose: Bool
    /// `--control PATH`, the default socket, or none (`--no-control`).
    var control: Control

    enum Control {
        case none
        /// The default path for the endpoint: skipped with a warning when it cannot be made.
        case defaultPath
        /// An explicit path: an error when it cannot be made.
        case path(String)
    }

    static let valued: Set<String> = SharedOptions.endpoint.union([
        "--card", "--profile", "--tap-delay", "--pid-file", "--seed", "--record", "--stand-in", "--control", "--timing",
    ])
    static let flags: Set<String> = ["--verbose", "--busy-first", "--no-control"]

    init(_ arguments: [String]) throws {
        let options = try CommandLineOptions(arguments, valued: Self.valued, flags: Self.flags)
        guard options.positionals.isEmpty else { throw UsageError("unexpected argument '\(options.positionals[0])'") }
        endpoint = try options.vpcdEndpoint()
        tapDelay = try options.duration("--tap-delay") ?? .seconds(1)
        card = try CardOptions(options)
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
        record = options.value("--record")
        standIn = options.value("--stand-in")
        if standIn != nil, record != nil || card.isSeeded || card.imagePath != nil || card.profile != nil {
            throw UsageError("--stand-in answers from a transcript: it takes no --card, --profile, --seed or --record")
        }
        busyFirst = options.flag("--busy-first")
        pidFile = options.value("--pid-file")
        verbose = options.flag("--verbose")
    }
}
