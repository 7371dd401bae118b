import ArculusCard
import Foundation
import Transcript

/// `arculus-card replay`: replays a transcript against the emulated card and reports the first
/// response that differs.
enum ReplayCommand: Subcommand {
    static let name = "replay"
    static let summary = "Replay a transcript against the emulated card and compare the answers"
    static var declaration: CommandDeclaration {
        CommandDeclaration(
            usage: ["arculus-card replay FILE [--card-image FILE] [--profile NAME|FILE] [--structural] [--verbose]"],
            about: """
            Sends every command of the transcript FILE, in order, to an emulated card made as its
            headers say (@profile, @seed, @image, @front), applies its events (power-on, power-off,
            reset, removed, tapped) where they stand, and compares each answer with the recorded one:

              byte-exact   when the transcript has @seed: a card with the same seed, memory and
                           profile must give identical bytes.
              structural   otherwise: per logical message (chained APDUs and GET RESPONSE joined), the
                           same status word and CTAP status, the same CBOR shape, equal constant fields
                           (getInfo, fmt, certificates, flags, user entities, counts), valid signatures
                           and increasing signature counters. Credential IDs the card issues replace
                           the recorded ones in later commands. Exchanges protected by the PIN/UV auth
                           protocol (setPIN, getPinToken, pinUvAuthParam, hmac-secret) cannot be
                           replayed this way: the replay stops there and says the transcript needs
                           a seed.

            Which profile the card was made with, and whether it was @profile, --profile or assumed
            (a transcript without @profile replays against \(CardProfile.default.name)), is said on stderr.
            On success it prints 'N exchanges replayed, all matched'. On the first difference it prints
            the transcript line, the command, the first differing field (e.g. response.authData{2}.flags)
            and both responses in CBOR diagnostic notation, and exits with status 1.
            """,
            options: [
                .valued("--card-image", "FILE", "Start from this card image instead of @image (it is copied; the file",
                        "itself is never changed)."),
                .valued("--profile", "NAME|FILE", "Use this card profile instead of @profile (a built-in name or a",
                        "profile JSON file), e.g. to see what a different kind of card would", "answer."),
                .flag("--structural", "Compare structurally even when the transcript has @seed."),
                .flag("--verbose", "List each message as it matches."),
            ],
            sections: [
                .init(title: "EXIT STATUS", body: """
                  0 all matched; 1 a difference, or the transcript or card cannot be used; 64 a bad command line.
                """),
                .init(title: "EXAMPLES", body: """
                  arculus-card replay Fixtures/transcripts/pin-set-and-change.transcript
                  arculus-card replay session.transcript --profile arculus-fido2 --verbose
                """),
            ])
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try declaration.parse(arguments)
        guard options.positionals.count == 1 else {
            throw UsageError(options.positionals.isEmpty ? "expected a transcript FILE" : "expected one transcript FILE, got \(options.positionals.count) arguments")
        }
        let path = options.positionals[0]
        // Checked as every command checks them; the replay resolves them itself.
        let card = try CardOptions(options, image: "--card-image")
        let transcript = try Transcript.load(path: path)
        let replay = TranscriptReplay(transcript: transcript, baseDirectory: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                                      mode: options.flag("--structural") ? .structural : nil,
                                      profile: card.profileArgument, cardImage: card.imagePath)
        if options.flag("--verbose") {
            replay.onMatch = { message in
                Console.output("line \(message.line)".padding(10) + message.name + "  ok")
            }
        }
        let result = try replay.run()
        let choice = ReplayProfileChoice(transcript: transcript, given: card.profileArgument)
        Console.error("arculus-card replay: against \(choice)" + (choice.source == .assumed ? " (--profile names the card's)" : ""))
        for note in result.notes { Console.error("note: \(note)") }
        if let mismatch = result.mismatch {
            Console.output(mismatch.description)
            return ExitStatus.failure
        }
        Console.output(result.summary)
        return ExitStatus.success
    }
}
