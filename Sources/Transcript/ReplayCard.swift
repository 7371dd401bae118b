import ArculusCard
import CardCrypto
import Foundation
import POSIXSupport

/// The emulated card a transcript's headers describe, ready for a replay:
/// - `@profile`: a built-in name, or a profile file (a path relative to the transcript);
/// - `@seed`: a deterministic card (`CardEntropy.seeded`), else system randomness;
/// - `@image blank`: a blank card in memory; `@image PATH`: a copy of that card image in a
///   temporary folder (the original is never written), removed with this object;
/// - `@front`: the card front's switches (`busy-first`).
///
/// Tests can change the card before replaying (`replayCard.card.userPresence
/// = { false }`) to see a replay fail.
public final class ReplayCard: TranscriptCard {
    /// The emulated card.
    public let card: VirtualCard
    private let folder: String?

    /// The card for `transcript`, whose file is in `baseDirectory` (for relative paths).
    ///
    /// - Parameters:
    ///   - profile: overrides `@profile` (name or path, relative to the working directory).
    ///   - cardImage: overrides `@image` with this card image file (copied, not changed).
    public init(transcript: Transcript, baseDirectory: String?, profile: String? = nil, cardImage: String? = nil) throws(ReplaySetupError) {
        let choice = ReplayProfileChoice(transcript: transcript, given: profile)
        let chosenProfile: CardProfile?
        if choice.source != .assumed {
            let resolved = choice.source == .given || CardProfile.builtIn.contains(where: { $0.name == choice.reference })
                ? choice.reference : Transcript.resolve(choice.reference, relativeTo: baseDirectory)
            do {
                chosenProfile = try CardProfile.named(resolved)
            } catch {
                throw ReplaySetupError("profile: \(error)")
            }
        } else {
            chosenProfile = nil
        }
        let entropy: CardEntropy = transcript.seed.map { .seeded($0) } ?? .system
        let front = transcript.frontOptions

        var imagePath: String?
        if let cardImage {
            imagePath = cardImage
        } else if let header = transcript.header(KnownHeader.image.rawValue), header != "blank" {
            imagePath = Transcript.resolve(header, relativeTo: baseDirectory)
        }
        guard let imagePath else {
            do {
                card = try VirtualCard(profile: chosenProfile ?? .default, frontOptions: front, entropy: entropy)
            } catch {
                throw ReplaySetupError("cannot make the card: \(error)")
            }
            folder = nil
            return
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("arculus-replay-\(UUID().uuidString)").path
        let copy = folder + "/card.image"
        do {
            // A private scratch copy: the replay's writes must not reach the image it starts from.
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw ReplaySetupError("cannot copy the card image \(imagePath): \(error.localizedDescription)")
        }
        do {
            guard let bytes = try CardImageFile.contents(ofImageAt: imagePath) else {
                throw ReplaySetupError("cannot copy the card image \(imagePath): there is no such file")
            }
            do {
                try NewFile.replace(copy, with: bytes, mode: 0o600, durable: false)
            } catch {
                throw ReplaySetupError("cannot copy the card image \(imagePath): \(error)")
            }
        } catch let failure as ReplaySetupError {
            try? FileManager.default.removeItem(atPath: folder)
            throw failure
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw ReplaySetupError("cannot copy the card image \(imagePath): \(error)")
        }
        do {
            card = try VirtualCard(imageAt: copy, profile: chosenProfile, frontOptions: front, entropy: entropy)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            // The copy is the replay's own scratch file: the user knows the image by its name.
            let described = (error as? CardImageError).map { CardImageError(path: imagePath, reason: $0.reason) } ?? error
            throw ReplaySetupError("cannot open the card image \(imagePath): \(described)")
        }
        self.folder = folder
    }

    deinit {
        if let folder { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// Powers the emulated card on.
    public func powerOn() { card.powerOn() }
    /// Powers the emulated card off.
    public func powerOff() { card.powerOff() }
    /// Sends one APDU to the emulated card.
    public func transmit(_ apdu: [UInt8]) -> [UInt8] { card.transmit(apdu) }
    /// The key of one of the card's discoverable credentials.
    public func credentialPublicKey(id: [UInt8]) -> P256PublicKey? { card.credentialPublicKey(id: id) }
}
