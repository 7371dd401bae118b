import CTAP2
import Foundation
import ISO7816

/// The headers this build gives a meaning to. Others are kept as they are and ignored, so a
/// newer writer's additions do not stop an older reader.
public enum KnownHeader: String, CaseIterable, Sendable {
    /// `@format 1`: the text format version.
    case format
    /// `@profile NAME|PATH`: the card model, a built-in profile name or a profile JSON file
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
        case .format, .source, .date:
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

extension Transcript {
    /// The `@seed` bytes, nil when the recording was not deterministic.
    public var seed: [UInt8]? {
        header(KnownHeader.seed.rawValue).flatMap { [UInt8](hex: $0) }
    }

    /// The `@atr` bytes, nil when absent.
    public var atr: [UInt8]? {
        header(KnownHeader.atr.rawValue).flatMap { [UInt8](hex: $0) }
    }

    /// The card front switches of `@front` (default: a card that answers at once).
    public var frontOptions: CardFront.Options {
        header(KnownHeader.front.rawValue).flatMap(FrontHeader.init)?.options ?? CardFront.Options()
    }

    /// The headers a recording starts with, in the order they are written.
    ///
    /// - Parameters:
    ///   - profile: a built-in profile name, or a path to a profile file (write it relative
    ///     to the transcript's folder, see ``relativePath(of:fromFolderOf:)``).
    ///   - seed: the card's seed when it is deterministic.
    ///   - image: `"blank"`, or a path to a snapshot of the card image as it was before the
    ///     first command (see ``TranscriptRecorder/imageReference(forImageAt:recordingTo:)``).
    ///   - atr: the card's ATR.
    ///   - front: the card front's switches; only non-default ones are written.
    ///   - source: who is talking to the card, e.g. `python-fido2 2.2.1 via pcscd + vpcd`.
    ///   - date: the start of the recording.
    public static func recordingHeaders(profile: String, seed: [UInt8]?, image: String, atr: [UInt8]?,
                                        front: CardFront.Options = .init(), source: String,
                                        date: Date = Date()) -> [Header] {
        var headers = [Header(KnownHeader.format.rawValue, "\(formatVersion)"), Header(KnownHeader.profile.rawValue, profile)]
        if let seed { headers.append(Header(KnownHeader.seed.rawValue, seed.hexString.uppercased())) }
        headers.append(Header(KnownHeader.image.rawValue, image))
        if let atr { headers.append(Header(KnownHeader.atr.rawValue, atr.hexString.uppercased())) }
        if let front = FrontHeader.value(for: front) { headers.append(Header(KnownHeader.front.rawValue, front)) }
        headers.append(Header(KnownHeader.source.rawValue, source))
        headers.append(Header(KnownHeader.date.rawValue, Self.iso8601(date)))
        return headers
    }

    /// `path` written relative to the folder of `transcriptPath` when both are on the same
    /// tree (`../profiles/x.json`), so a transcript and the files it names can move together.
    public static func relativePath(of path: String, fromFolderOf transcriptPath: String) -> String {
        let target = URL(fileURLWithPath: path).standardizedFileURL.pathComponents
        let base = URL(fileURLWithPath: transcriptPath).standardizedFileURL.deletingLastPathComponent().pathComponents
        var common = 0
        while common < target.count, common < base.count, target[common] == base[common] { common += 1 }
        guard common > 1 else { return URL(fileURLWithPath: path).standardizedFileURL.path }
        let ups = Array(repeating: "..", count: base.count - common)
        return (ups + target[common...]).joined(separator: "/")
    }

    /// `reference` (a header's path) resolved against the transcript's folder.
    static func resolve(_ reference: String, relativeTo baseDirectory: String?) -> String {
        guard !reference.hasPrefix("/"), let baseDirectory else { return reference }
        return URL(fileURLWithPath: baseDirectory).appendingPathComponent(reference).standardizedFileURL.path
    }

    private static func iso8601(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
