import CTAP2
import ISO7816

/// The headers this build gives a meaning to. Others are kept as they are and ignored, so a
/// newer writer's additions do not stop an older reader.
public enum KnownHeader: String, CaseIterable, Sendable {
    /// `@format 1`: the text format version.
    case format
    /// `@profile NAME|PATH`: the card's profile, a built-in profile name or a profile JSON file
    /// (a path relative to the transcript file).
    case profile
    /// `@seed HEX`: the card drew its random values from this seed (`CardEntropy.seeded`), so
    /// its responses are reproducible byte for byte.
    case seed
    /// `@image blank|PATH`: the card's memory when the recording started: a blank card, or a
    /// copy of a card image file (a path relative to the transcript file).
    case image
    /// `@atr HEX`: the ATR the card presented (else the profile's).
    case atr
    /// `@front busy-first [busy-polls=N]`: card front switches that change the APDUs
    /// (`CardFront.Options`); absent means a card that answers at once.
    case front
    /// `@source TEXT`: who talked to the card and how (client, transport, script).
    case source
    /// `@date ISO-8601`: when the recording started.
    case date

    /// Why `value` is not acceptable for this header, or nil when it is.
    func problem(with value: String) -> String? {
        switch self {
        case .format:
            if Int(value) == Transcript.formatVersion { return nil }
            return value.isEmpty ? "@format without a version (this build reads \(Transcript.formatVersion))"
                : "@format \(value) is not a version this build reads (\(Transcript.formatVersion))"
        case .source, .date:
            return nil
        case .profile:
            return value.isEmpty ? "@profile needs a profile name or a path" : nil
        case .seed:
            guard let bytes = [UInt8](hex: value), !bytes.isEmpty else { return "@seed is not hex bytes" }
            return nil
        case .image:
            return value.isEmpty ? "@image needs 'blank' or a path to a card image" : nil
        case .atr:
            guard let bytes = [UInt8](hex: value), (1...33).contains(bytes.count) else {
                return "@atr is not 1 to 33 hex bytes"
            }
            return nil
        case .front:
            return FrontHeader(value) == nil
                ? "@front '\(value)' is not understood (expected 'busy-first' and optionally 'busy-polls=N')"
                : nil
        }
    }
}

/// The value of a `@front` header.
struct FrontHeader {
    let options: CardFront.Options

    init?(_ value: String) {
        var busyFirst = false
        var polls = 1
        for word in value.split(separator: " ") {
            if word == "busy-first" {
                busyFirst = true
            } else if word.hasPrefix("busy-polls="), let count = Int(word.dropFirst("busy-polls=".count)), count >= 0 {
                polls = count
            } else {
                return nil
            }
        }
        guard busyFirst else { return nil }
        options = CardFront.Options(busyFirst: true, busyPolls: polls)
    }

    /// The header value for `options`, nil for a card front that answers at once.
    static func value(for options: CardFront.Options) -> String? {
        guard options.busyFirst else { return nil }
        return options.busyPolls == 1 ? "busy-first" : "busy-first busy-polls=\(options.busyPolls)"
    }
}
