import ArculusCard
import Foundation
import JSONSupport
import VirtualReader

/// `arculus-card image`: makes and changes card images directly — a card with a PIN, counters
/// and credentials already on it — without going through CTAP. Each change is made through
/// ``VirtualCard``'s state controls and written like one a command makes (a journal record), so
/// the image opens as that card in `serve` or in-process.
enum ImageCommand: Subcommand {
    static let name = "image"
    static let summary = "Create a card image with a PIN and credentials already set; list, add, remove"

    static var declaration: CommandDeclaration {
        CommandDeclaration(
            usage: ["arculus-card image create --card FILE [--profile NAME|FILE] [--pin PIN] [--retries N]",
                    "                         [--counter N] [--credential SPEC]... [--seed HEX]",
                    "arculus-card image credentials list --card FILE",
                    "arculus-card image credentials add --card FILE --credential SPEC...",
                    "arculus-card image credentials remove --card FILE --id ID",
                    "arculus-card image pin --card FILE [--set PIN] [--retries N]",
                    "arculus-card image counter --card FILE [--set N]"],
            about: """
            Sets a card's state without CTAP: a test starts from a card that already has a PIN, a
            signature counter and credentials. Works on an image file that no process is serving
            (the image is locked while served; change a served card with 'arculus-card ctl').
            """,
            actions: [
                .init(title: "create", help: ["Make a new image (FILE must not exist) from the profile, then set",
                                              "what the options say. If anything fails, no image is left behind."]),
                .init(title: "credentials list", help: ["The credentials on the card, with their algorithms and public keys."]),
                .init(title: "credentials add", help: ["Put credentials on the card (see SPEC)."]),
                .init(title: "credentials remove", help: ["Delete the discoverable credential with this ID."]),
                .init(title: "pin", help: ["Show the PIN state; --set sets the PIN (retries back to 8),",
                                           "--retries sets the retry counter (0 blocks the PIN)."]),
                .init(title: "counter", help: ["Show the signature counter; --set sets it."]),
            ],
            options: [
                .valued("--card", "FILE", "The card image."),
                .valued("--profile", "NAME|FILE", "create: the card profile (\(SharedOptions.profileChoices) or a",
                        "profile JSON file). Default: \(CardProfile.default.name)."),
                .valued("--pin", "PIN", "create: set this PIN (the profile's PIN policy applies: at least",
                        "minPINLength code points, at most 63 bytes)."),
                .valued("--retries", "N", "PIN retries left, 0 to 8."),
                .valued("--counter", "N", "create: the signature counter (the next assertion reports N+1)."),
                CredentialOption.declaration,
                .valued("--id", "ID", "A credential ID, base64url (as WebAuthn writes it) or hex."),
                .valued("--set", "VALUE", "pin: the new PIN; counter: the new counter."),
                .valued("--seed", "HEX", "create: a deterministic card (secrets and generated keys derive",
                        "from HEX), for reproducible tests only."),
            ],
            sections: [
                .init(title: "OUTPUT", body: """
                  One JSON object on stdout, as the control channel answers ('ok', and 'credentials' /
                  'credential' with id (base64url), idHex, algorithm, publicKeyPEM, rpId, user fields, and
                  WebDriver's credentialId, isResidentCredential, userHandle, privateKey (null when only
                  the card knows it), signCount (the card's counter); 'pin' with isSet, retries, length,
                  minLength, blocked; 'counter'). On failure 'ok' is false, the error also goes to stderr
                  and the exit status is 1.
                """),
                .init(title: "EXAMPLES", body: """
                  arculus-card image create --card card.img --pin 123456 --counter 41 \\
                      --credential rp=example.com,user=alice,discoverable=yes \\
                      --credential rp=example.com,user=bob,discoverable=no,key=bob.pem
                  arculus-card image credentials list --card card.img
                  arculus-card image pin --card card.img --retries 1
                """),
            ])
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        // Every option of every image command; each command takes its own subset (`allow`).
        let options = try declaration.parse(arguments)
        let words = options.positionals
        guard let path = options.value("--card") else { throw UsageError("--card FILE is required") }
        switch words {
        case ["create"]:
            try options.allow(["--card", "--profile", "--pin", "--retries", "--counter", "--seed", "--credential"], words: 1,
                              what: "image create")
            return try create(path: path, options: options)
        case ["credentials", "list"], ["credentials", "add"], ["credentials", "remove"]:
            return try credentials(words[1], path: path, options: options)
        case ["pin"], ["counter"]:
            return try pinOrCounter(words[0], path: path, options: options)
        default:
            throw UsageError(words.isEmpty ? "which command? create, credentials list|add|remove, pin or counter"
                                           : "unknown command '\(words.joined(separator: " "))'")
        }
    }

    // MARK: - Opening an image and answering

    /// Runs `body` on the card of the existing image at `path` and prints its answer.
    static func withImage(_ path: String, _ body: (VirtualCard) throws -> JSONValue) -> Int32 {
        guard FileManager.default.fileExists(atPath: path) else {
            return fail("no card image at \(path) (make one with 'arculus-card image create --card \(path)')")
        }
        let card: VirtualCard
        do {
            card = try VirtualCard(imageAt: path)
        } catch let error as CardImageError where error.reason == .locked {
            return fail("\(error); to change a card while it is served, use 'arculus-card ctl'")
        } catch {
            return fail("\(error)")
        }
        reportCompactionFailures(of: card)
        do {
            Console.output(try body(card).text)
            return ExitStatus.success
        } catch {
            return fail("\(error)")
        }
    }

    /// A change that was stored but whose compaction failed (a deleted credential's key, an old
    /// PIN hash left in the file until a later write rewrites it) is said on stderr; a change
    /// that failed is the command's error.
    static func reportCompactionFailures(of card: VirtualCard) {
        card.onWriteFailure = { failure in
            if failure.changeKept { Console.error("arculus-card image: \(failure)") }
        }
    }

    /// A failure: `{"ok": false, "error": …}` on stdout, the message on stderr, status 1.
    static func fail(_ message: String) -> Int32 {
        Console.output(ControlChannelError.refused(message).answer().text)
        Console.error("arculus-card image: \(message)")
        return ExitStatus.failure
    }
}
