import ArculusCard
import CardCrypto
import Foundation
import POSIXSupport
import ISO7816
import FIDOWire

/// Records everything said to a card: wraps any ``TranscriptCard``, passes every call
/// through, and keeps each exchange and power event in ``transcript`` (and, with a file,
/// appends it there as it happens, see ``TranscriptFileWriter``).
///
/// In a test:
/// ```swift
/// let card = try VirtualCard(entropy: .seeded(seed))
/// let recorder = try TranscriptRecorder(card: card)          // headers from the card
/// _ = recorder.transmit(select)
/// try recorder.transcript.text.write(toFile: path, atomically: true, encoding: .utf8)
/// ```
/// On a reader, put the recorder where the card would be (`Transcript+ReaderCard.swift` in
/// the tool makes it a `ReaderCard`); the reader's power-on, power-off and reset become
/// `! power-on`, `! power-off` and `! reset` lines, which a replay applies in the same places
/// so that a seeded card draws the same random values.
///
/// Every NFCCTAP_MSG command line gets the CTAP command's name as its note
/// (`> 80100000010400  # authenticatorGetInfo`), U2F and SELECT lines their instruction name.
/// Not thread-safe: one caller at a time, like the card.
public final class TranscriptRecorder: TranscriptCard {
    /// The card that answers.
    public let card: any TranscriptCard
    /// The ATR to present for the card on a reader.
    public let atr: [UInt8]
    /// What was recorded so far.
    public private(set) var transcript: Transcript
    /// The file the recording is appended to, if any.
    public let file: TranscriptFileWriter?
    /// The first error writing ``file``. Recording goes on in memory after one; the reader
    /// wrapper reports it.
    public private(set) var fileError: TranscriptFileError?

    /// The most entries ``transcript`` keeps in memory (nil: no limit); past it, entries still go
    /// to ``file`` but memory keeps only the first ones, and ``entriesNotKept`` counts the rest.
    /// For a recording that nothing writes out but may be asked for (the card page's transcript),
    /// so that a card in use for hours does not grow without bound.
    public var memoryLimit: Int?
    /// Entries past ``memoryLimit`` that ``transcript`` does not hold.
    public private(set) var entriesNotKept = 0

    /// The CTAP command name of an NFCCTAP_MSG chain being sent, for the pieces' notes.
    private var openChainName: String?

    /// Records `card` under `headers`, also appending to `file` when given (the file's
    /// headers were written when it was created).
    public init(card: any TranscriptCard, atr: [UInt8] = [], headers: [Transcript.Header], file: TranscriptFileWriter? = nil) {
        self.card = card
        self.atr = atr
        self.transcript = Transcript(headers: headers)
        self.file = file
    }

    /// Records an emulated card, with the headers taken from it: its profile, its seed when
    /// it is deterministic, its ATR and front switches.
    ///
    /// - Parameters:
    ///   - profile: what `@profile` says; default the card's profile name (pass the path
    ///     when the profile came from a file, see ``Transcript/relativePath(of:fromFolderOf:)``).
    ///   - image: `"blank"` or the snapshot from ``imageReference(forImageAt:recordingTo:fileMode:)``.
    ///   - source: what talks to the card.
    ///   - path: when given, the transcript file written as the recording goes.
    ///   - fileMode: whether the recording replaces what the file holds (the default) or is
    ///     added to it as its next session (``TranscriptFileWriter/Mode/appendSession``);
    ///     ``transcript`` is this recording alone either way.
    public convenience init(card: VirtualCard, profile: String? = nil, image: String = "blank",
                            source: String = "in-process (Swift)", date: Date = Date(),
                            recordingTo path: String? = nil,
                            fileMode: TranscriptFileWriter.Mode = .replace) throws(TranscriptFileError) {
        var seed: [UInt8]?
        if case .seeded(let bytes) = card.authenticator.entropy { seed = bytes }
        let headers = Transcript.recordingHeaders(profile: profile ?? card.profile.name, seed: seed, image: image,
                                                  atr: card.atr, front: card.front.configuration.options, source: source, date: date)
        let file = try path.map { (path) throws(TranscriptFileError) in
            try TranscriptFileWriter(path: path, headers: headers, mode: fileMode)
        }
        self.init(card: card, atr: card.atr, headers: headers, file: file)
    }

    // MARK: - The card's interface, recorded

    /// Powers the card on and records `! power-on`.
    public func powerOn() {
        record(.powerOn)
        card.powerOn()
    }

    /// Powers the card off and records `! power-off`.
    public func powerOff() {
        record(.powerOff)
        card.powerOff()
        openChainName = nil
    }

    /// A reader reset: recorded as `! reset`, done as power off then on (a contactless card
    /// sees its field cycled), which is also what a replay does for it.
    public func reset() {
        record(.reset)
        card.powerOff()
        card.powerOn()
        openChainName = nil
    }

    /// Sends `apdu` to the card and records the exchange.
    public func transmit(_ apdu: [UInt8]) -> [UInt8] {
        let response = card.transmit(apdu)
        append(.exchange(command: apdu, response: response, note: note(for: apdu)))
        return response
    }

    /// The wrapped card's answer.
    public func credentialPublicKey(id: [UInt8]) -> P256PublicKey? {
        card.credentialPublicKey(id: id)
    }

    /// Records an event without touching the card (e.g. `.removed` next to the reader's own
    /// power-off, for a reader of the transcript). A replay does apply it, so record only
    /// what happened to the card.
    public func record(_ event: CardEvent) {
        append(.event(event))
    }

    /// Adds a `# comment` line.
    public func comment(_ text: String) {
        append(.comment(text))
    }

    private func append(_ entry: TranscriptEntry) {
        if let memoryLimit, transcript.entries.count >= memoryLimit {
            entriesNotKept += 1
        } else {
            transcript.entries.append(entry)
        }
        guard let file, fileError == nil else { return }
        do {
            try file.append(entry)
        } catch {
            fileError = error
        }
    }

    // MARK: - Notes

    private func note(for apdu: [UInt8]) -> String? {
        guard let command = try? CommandAPDU(parsing: apdu),
              let instruction = FIDOInstruction(commandClass: command.commandClass, ins: command.ins) else {
            openChainName = nil
            return nil
        }
        switch instruction {
        case .nfcctapMessage:
            if command.isChained {
                if let name = openChainName { return "\(name) (continued)" }
                let name = CTAPNames.commandName(Array(command.data.prefix(1)))
                openChainName = name
                return "\(name) (chained)"
            }
            if let name = openChainName {
                openChainName = nil
                return "\(name) (last piece)"
            }
            return CTAPNames.commandName(command.data)
        case .select:
            openChainName = nil
            return command.data == NFCBinding.fidoAID ? "SELECT FIDO" : "SELECT"
        case .u2fRegister, .u2fVersion:
            openChainName = nil
            return instruction.name
        case .u2fAuthenticate:
            openChainName = nil
            return CTAPNames.u2fControlName(command.p1).map { "\(instruction.name) (\($0))" } ?? instruction.name
        case .getResponse, .nfcctapGetResponse:
            return nil
        }
    }

    // MARK: - Card image snapshots

    /// What `@image` should say for a recording of the card whose image is at `imagePath`.
    /// Call it before the card opens the image: a missing file (or no image at all) is a
    /// blank card (`"blank"`); an existing one is copied next to the transcript as
    /// `TRANSCRIPT.image` and its file name returned, so the replay starts from the card's
    /// memory as it was before the first command, however the session changed it.
    ///
    /// With `fileMode` ``TranscriptFileWriter/Mode/appendSession`` and a transcript in the
    /// file already, an existing image is refused (before the snapshot of the file's first
    /// session is overwritten): a session cannot be appended for a card that starts from one.
    public static func imageReference(forImageAt imagePath: String?, recordingTo transcriptPath: String,
                                      fileMode: TranscriptFileWriter.Mode = .replace) throws(TranscriptFileError) -> String {
        guard let imagePath, FileManager.default.fileExists(atPath: imagePath) else { return "blank" }
        if fileMode == .appendSession, let existing = try TranscriptFileWriter.transcriptToAppendTo(at: transcriptPath),
           let problem = Transcript.appendProblem(fileHeaders: existing.headers, sessionHeaders: [
               .init(KnownHeader.image.rawValue, URL(fileURLWithPath: transcriptPath + ".image").lastPathComponent)]) {
            throw TranscriptFileError(path: transcriptPath, reason: "cannot append a session to it: \(problem)")
        }
        let snapshot = transcriptPath + ".image"
        // Owner-only, as card images are, and never written through a link at its name.
        let bytes: [UInt8]
        do {
            // Only a card image is copied: never a device or a foreign file read without end.
            bytes = try CardImageFile.contents(ofImageAt: imagePath) ?? []
        } catch {
            throw TranscriptFileError(path: transcriptPath, reason: "cannot copy the card image: \(error)")
        }
        do {
            try NewFile.replace(snapshot, with: bytes, mode: 0o600)
        } catch {
            throw TranscriptFileError(path: transcriptPath, reason: "cannot copy the card image \(imagePath) to \(snapshot): \(error.failure)")
        }
        return URL(fileURLWithPath: snapshot).lastPathComponent
    }
}
