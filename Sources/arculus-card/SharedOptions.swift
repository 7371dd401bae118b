import ArculusCard
import VirtualReader

/// The options several subcommands share, read and checked in one place so that each means
/// and refuses the same everywhere: the card (`--card` / `--card-image`, `--profile`, `--seed`),
/// the vpcd endpoint (`--vpcd`, `--slot`) and the value kinds (seconds, whole numbers, counters).
enum SharedOptions {
    /// `--vpcd HOST:PORT`, `--slot N`.
    static let endpoint: Set<String> = ["--vpcd", "--slot"]
    /// How `--profile` is described in help texts.
    static var profileChoices: String { CardProfile.builtInNames.joined(separator: ", ") }
}

/// The card a command runs: an image file or a card in memory, its profile and its entropy.
struct CardOptions {
    /// The card image (`--card FILE` or `--card-image FILE`); nil for a card in memory.
    var imagePath: String?
    /// `--profile`, loaded; nil when not given (an image keeps its own profile).
    var profile: CardProfile?
    /// `--profile` as given (a built-in name or a path).
    var profileArgument: String?
    /// `--seed HEX` makes a deterministic card; otherwise the system's randomness.
    var entropy: CardEntropy = .system
    /// Whether `--seed` was given.
    var isSeeded = false

    /// Reads the card options; `image` is the image option's name for this command.
    init(_ options: CommandLineOptions, image: String = "--card") throws(UsageError) {
        imagePath = options.value(image)
        if imagePath?.isEmpty == true { throw UsageError("\(image) wants a file name") }
        profileArgument = options.value("--profile")
        profile = try options.profile("--profile")
        if let text = options.value("--seed") {
            guard let seed = [UInt8](hex: text), !seed.isEmpty else {
                throw UsageError("--seed wants hex bytes (e.g. 000102...), not '\(text)'")
            }
            entropy = .seeded(seed)
            isSeeded = true
        }
    }

    /// The card: from the image (created from the profile when missing), else blank in memory.
    func open(frontOptions: CardFront.Options = .init()) throws -> VirtualCard {
        if let imagePath {
            return try VirtualCard(imageAt: imagePath, profile: profile, frontOptions: frontOptions, entropy: entropy)
        }
        return try VirtualCard(profile: profile ?? .default, frontOptions: frontOptions, entropy: entropy)
    }
}

extension CommandLineOptions {
    /// A profile option (`--profile`, `--base`): a built-in name or a profile JSON file.
    func profile(_ name: String) throws(UsageError) -> CardProfile? {
        guard let text = value(name) else { return nil }
        do {
            return try CardProfile.named(text)
        } catch {
            throw UsageError("\(name): \(error). Built-in profiles: \(SharedOptions.profileChoices).")
        }
    }

    /// `--vpcd HOST:PORT` and `--slot N` (port 35963 + N on that host); 127.0.0.1:35963 by default.
    func vpcdEndpoint() throws(UsageError) -> VPCDEndpoint {
        var endpoint = VPCDEndpoint.default
        if let text = value("--vpcd") {
            guard let parsed = VPCDEndpoint(parsing: text) else {
                throw UsageError("--vpcd wants HOST:PORT (e.g. 127.0.0.1:35963), not '\(text)'")
            }
            endpoint = parsed
        }
        if let text = value("--slot") {
            guard let slot = Int(text), let slotted = endpoint.slot(slot) else {
                throw UsageError("--slot wants a slot number (0, 1, ...), not '\(text)'")
            }
            endpoint = slotted
        }
        return endpoint
    }

    /// A number of seconds between 0 and 3600.
    func seconds(_ name: String) throws(UsageError) -> Double? {
        guard let text = value(name) else { return nil }
        guard let seconds = Double(text), seconds >= 0, seconds <= 3600 else {
            throw UsageError("\(name) wants seconds between 0 and 3600, not '\(text)'")
        }
        return seconds
    }

    /// A number of seconds between 0 and 3600, as a duration (to the millisecond).
    func duration(_ name: String) throws(UsageError) -> Duration? {
        try seconds(name).map { .milliseconds(Int64(($0 * 1000).rounded())) }
    }

    /// A whole number.
    func integer(_ name: String) throws(UsageError) -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text) else { throw UsageError("\(name) wants a whole number, not '\(text)'") }
        return number
    }

    /// A signature counter: 0 to 4294967295.
    func counter(_ name: String) throws(UsageError) -> UInt32? {
        guard let text = value(name) else { return nil }
        guard let counter = UInt32(text) else { throw UsageError("\(name) wants a counter from 0 to \(UInt32.max), not '\(text)'") }
        return counter
    }
}
