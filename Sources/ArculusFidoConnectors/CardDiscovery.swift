import ArculusCard
import ArculusSDK
import CTAPClient
import Foundation
import Synchronization

/// What `ArculusFido()` (in `ArculusFidoSDKFramework`) reads from the environment, as the table of
/// its doc comment says: the connector and the tap timeout, or a connector that reports why the
/// setting cannot work.
package struct CardDiscovery {
    package static let reader = "ARCULUS_FIDO_READER"
    package static let image = "ARCULUS_FIDO_CARD_IMAGE"
    package static let profile = "ARCULUS_FIDO_PROFILE"
    package static let tapTimeout = "ARCULUS_FIDO_TAP_TIMEOUT"

    package let connector: any CardConnector
    package var timeouts = CardTimeouts()

    /// The longest tap wait the environment may ask for, in seconds (what the command line
    /// allows for its waits).
    static let longestTap = 3600.0

    /// The card and waits `environment` names.
    package init(environment: [String: String]) {
        let reader = environment[Self.reader].flatMap { $0.isEmpty ? nil : $0 }
        let image = environment[Self.image].flatMap { $0.isEmpty ? nil : $0 }
        if let text = environment[Self.tapTimeout], !text.isEmpty {
            guard let seconds = Double(text), seconds > 0, seconds <= Self.longestTap else {
                connector = MisconfiguredConnector(reason: "\(Self.tapTimeout)=\(text) is not a number of seconds above 0 and at most \(Int(Self.longestTap))")
                return
            }
            timeouts.tap = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        switch (reader, image) {
        case (.some, .some):
            connector = MisconfiguredConnector(reason: "\(Self.reader) and \(Self.image) are both set; set one (a PC/SC reader, or an in-process card image)")
        case (let name?, nil):
            connector = PCSCCardConnector(reader: name)
        case (nil, let path?):
            let profile = environment[Self.profile].flatMap { $0.isEmpty ? nil : $0 }
            if let problem = CardFileCheck.imageProblem(path) {
                connector = MisconfiguredConnector(reason: "\(Self.image)=\(path) \(problem)")
            } else if let profile, let problem = CardFileCheck.profileProblem(profile) {
                connector = MisconfiguredConnector(reason: "\(Self.profile)=\(profile) \(problem)")
            } else {
                do {
                    connector = try Self.sharedImageCard(path, profile: profile)
                } catch {
                    connector = MisconfiguredConnector(reason: "\(Self.image)=\(path): \(error)")
                }
            }
        case (nil, nil):
            connector = FirstFIDOReaderConnector()
        }
    }

    /// Image cards opened so far, by path: an image is locked by the process that opens it, so
    /// every `ArculusFido()` of a process shares one card (and one queue for it).
    private static let imageCards = Mutex<[String: VirtualCardConnector]>([:])

    private static func sharedImageCard(_ path: String, profile: String?) throws -> VirtualCardConnector {
        let key = URL(fileURLWithPath: path).standardizedFileURL.path
        return try imageCards.withLock { cards in
            if let card = cards[key] { return card }
            let chosen = try profile.map { try CardProfile.named($0) }
            let card = try VirtualCardConnector(imageAt: path, profile: chosen)
            cards[key] = card
            return card
        }
    }
}

/// A card setting that cannot work: every tap fails with the reason.
private struct MisconfiguredConnector: CardConnector {
    let reason: String

    func connect() async throws(CardTransportError) -> any CardConnection {
        throw .unsupported(reason)
    }
}
