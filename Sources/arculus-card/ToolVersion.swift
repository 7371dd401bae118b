import CardProbe
import Transcript

/// `arculus-card --version` (or `version`): the tool's version, and the versions of the files
/// it writes and reads that a script may need to match (a transcript's `@format`, a
/// fingerprint's format and the probe battery it was made by).
enum ToolVersion {
    /// The release; raised with every release of the emulator.
    static let version = "0.1.0"

    static var text: String {
        "arculus-card \(version) (transcript format \(Transcript.formatVersion), fingerprint format \(Fingerprint.formatVersion), "
            + "probe battery \(CardProber.batteryVersion))"
    }
}
