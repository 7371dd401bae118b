import ArculusCard
import PCSC
import POSIXSupport
import Transcript

/// What `pcsc record` writes as `@profile`, so that a replay of the recording runs against the
/// kind of card that answered it rather than assuming the default: the profile the user names
/// (`--profile`), else the built-in profile whose identity the card reports (its getInfo's AAGUID,
/// versions and extensions), else the card's identity captured into a profile file beside the
/// transcript (`FILE.profile.json`, as `pcsc capture-profile` writes one). A card whose identity
/// cannot be read (not a CTAP2 card) gets none, and serve says so.
extension PCSCCommand {
    /// `@profile`'s value for the recording to `output`, and the line that says where it came
    /// from; nil value when there is none. Reads the card's identity (SELECT, getInfo) when no
    /// `--profile` was given: before the recording, whose power cycle starts it afresh.
    static func recordedProfile(_ options: CommandLineOptions, card: PCSCCard, reader: String,
                                output: String) throws -> (reference: String?, said: String) {
        if let given = options.value("--profile") {
            let reference = CardProfile.builtInNames.contains(given) ? given : Transcript.relativePath(of: given, fromFolderOf: output)
            return (reference, "@profile \(reference): given with --profile")
        }
        let captured: ProfileCapture
        do {
            captured = try capturedProfile(of: card, in: reader, base: .default, strict: false).capture
        } catch let error as PCSCCommandError {
            return (nil, "no @profile: \(error) (a replay assumes \(CardProfile.default.name); --profile names the card's)")
        }
        let identity = captured.profile
        if let builtIn = CardProfile.builtIn.first(where: {
            $0.aaguid == identity.aaguid && $0.versions == identity.versions && $0.extensions == identity.extensions
        }) {
            return (builtIn.name, "@profile \(builtIn.name): the card's getInfo is that profile's (AAGUID, versions, extensions)")
        }
        let file = output + ".profile.json"
        do {
            try NewFile.replace(file, with: Array(identity.jsonData()), mode: 0o644)
        } catch {
            throw PCSCCommandError("cannot write the card's profile to \(file): \(error.failure)")
        }
        let reference = Transcript.relativePath(of: file, fromFolderOf: output)
        return (reference, "@profile \(reference): the card's identity, captured (no built-in profile has it)")
    }
}
