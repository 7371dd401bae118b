import FIDOWire

/// A fingerprint file that cannot be read, with what is wrong and where.
public enum FingerprintError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file could not be read at all.
    case unreadable(file: String, reason: String)
    /// The text is not JSON (a file cut short, or another kind of file).
    case notJSON(file: String, excerpt: String)
    /// JSON, but not a fingerprint.
    case notAFingerprint(file: String)
    /// A fingerprint of a format version this build does not read.
    case unsupportedFormat(file: String, version: Int)
    /// A fingerprint with a member missing or of the wrong kind.
    case malformed(file: String, path: String, reason: String)
    /// A fingerprint made by another version of the battery than this build runs.
    case otherBattery(file: String, version: Int)

    public var description: String {
        switch self {
        case .unreadable(let file, let reason):
            "cannot read \(file): \(reason)"
        case .notJSON(let file, let excerpt):
            "\(file) is not a fingerprint: it is not JSON (cut short?) — it starts \(excerpt.debugDescription)"
        case .notAFingerprint(let file):
            "\(file) is not a fingerprint: it has no \"format\": \"\(Fingerprint.format)\" (make one with 'arculus-card pcsc probe')"
        case .unsupportedFormat(let file, let version):
            "\(file) is a fingerprint of format \(version); this build reads format \(Fingerprint.formatVersion)"
        case .malformed(let file, let path, let reason):
            "\(file) is not a whole fingerprint: \(DisplayText.escaped(path)) \(DisplayText.escaped(reason))"
        case .otherBattery(let file, let version):
            "\(file) comes from battery version \(version); this build runs battery version \(CardProber.batteryVersion): "
                + "probe the card again with this build"
        }
    }
}
