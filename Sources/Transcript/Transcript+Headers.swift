import CTAP2
import Foundation
import ISO7816
import FIDOWire

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
    ///     first command (see ``TranscriptRecorder/imageReference(forImageAt:recordingTo:fileMode:)``).
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
