import CBOR
import Foundation
import ISO7816
import FIDOWire

/// Replays a transcript against a card (by default the emulated card its headers describe)
/// and checks that the card answers as recorded.
///
/// ```swift
/// try TranscriptReplay.verify(fileAt: "Fixtures/transcripts/pin-set-and-change.transcript")
/// ```
///
/// Every command is sent in order; events are applied where they stand (`power-on` and
/// `tapped` power the card on, `power-off` and `removed` off, `reset` off then on). Then:
///
/// - **Byte-exact** (transcripts with `@seed`): a card with the same seed, image and profile
///   draws the same random values, so every response must be identical byte for byte.
/// - **Structural** (no `@seed`), per logical message (``TranscriptMessage``): the same
///   status word and CTAP status; the same CBOR shape (map keys, types, array lengths); equal
///   constant fields: getInfo in full, `fmt`, `alg` and the `x5c` certificates, the
///   authenticator data's rpIdHash, flags, AAGUID and extension outputs of makeCredential,
///   user entities, `numberOfCredentials`, PIN retries, credential IDs the card had before
///   the transcript started; signatures verified (makeCredential: over
///   authData‖clientDataHash by `x5c[0]`, or by the credential key for self attestation;
///   getAssertion: by the key from an earlier makeCredential in the transcript, or from the
///   card's discoverable credentials; U2F likewise); signature counters strictly increasing.
///   Credential IDs (and U2F key handles) the card issues during the replay replace the
///   recorded ones, as byte strings, in every later request, so multi-step sessions work.
///
/// What a structural replay cannot do: replay exchanges protected by the PIN/UV auth
/// protocol. setPIN, changePIN, getPinToken and friends carry the host's key-agreement key and
/// data encrypted to the recorded card's key; every pinUvAuthParam is a MAC under a token the
/// recorded card issued; hmac-secret salts are encrypted the same way. A card with other random
/// values cannot read them, so the replay stops at the first such exchange with a
/// ``ReplayMismatch/Kind/needsSeededTranscript`` report rather than a confusing mismatch.
/// Record with a seeded card to replay those byte for byte. Substituted credential IDs must
/// have the recorded IDs' length (the emulator's always do).
public final class TranscriptReplay {
    /// The transcript replayed.
    public let transcript: Transcript
    /// How responses are compared.
    public let mode: ReplayMode
    private let makeCard: () throws -> any TranscriptCard
    /// Called after each message that matched (events included), e.g. for a verbose listing.
    public var onMatch: ((TranscriptMessage) -> Void)?

    /// A replay against the card `makeCard` returns (e.g. a deliberately broken one).
    ///
    /// - Parameter mode: default byte-exact when the transcript has `@seed`, else structural.
    public init(transcript: Transcript, mode: ReplayMode? = nil, card makeCard: @escaping () throws -> any TranscriptCard) {
        self.transcript = transcript
        self.mode = mode ?? (transcript.seed == nil ? .structural : .exact)
        self.makeCard = makeCard
    }

    /// A replay against the emulated card the transcript's headers describe (``ReplayCard``).
    ///
    /// - Parameters:
    ///   - baseDirectory: the transcript file's folder, for relative paths in headers.
    ///   - profile: overrides `@profile`.
    ///   - cardImage: overrides `@image` (the file is copied, never changed).
    public convenience init(transcript: Transcript, baseDirectory: String? = nil, mode: ReplayMode? = nil,
                            profile: String? = nil, cardImage: String? = nil) {
        self.init(transcript: transcript, mode: mode) {
            try ReplayCard(transcript: transcript, baseDirectory: baseDirectory, profile: profile, cardImage: cardImage)
        }
    }

    /// Reads the transcript at `path`, replays it against its emulated card and throws the
    /// ``ReplayMismatch`` report when a response differs (a ``TranscriptError``,
    /// ``TranscriptFileError`` or ``ReplaySetupError`` when it cannot start).
    @discardableResult
    public static func verify(fileAt path: String, mode: ReplayMode? = nil, profile: String? = nil,
                              cardImage: String? = nil) throws -> ReplayResult {
        let transcript = try Transcript.load(path: path)
        let replay = TranscriptReplay(transcript: transcript, baseDirectory: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                                      mode: mode, profile: profile, cardImage: cardImage)
        let result = try replay.run()
        if let mismatch = result.mismatch { throw mismatch }
        return result
    }

    /// Runs the replay. Throws when it cannot start: a ``TranscriptError`` when the transcript
    /// cannot be used (no exchange, a response cut short, see ``Transcript/validate()``), or
    /// the error making the card threw. A difference is the result's ``ReplayResult/mismatch``.
    ///
    /// Each recording session (``Transcript/sessions``) is replayed on its own card, made
    /// afresh as the recorded one was, with the checks a structural replay carries from one
    /// message to the next (credential IDs, keys, signature counters) starting over.
    public func run() throws -> ReplayResult {
        try transcript.validate()
        let sessionStarts = transcript.sessions.map(\.lowerBound).dropFirst()
        var card = try makeCard()
        var session = 0
        let messages = TranscriptMessages.messages(of: transcript)
        var verifier = StructuralVerifier()
        var notes: [String] = []
        var result = ReplayResult(mode: mode, exchangesReplayed: 0, messagesReplayed: 0, mismatch: nil, notes: [])
        for message in messages {
            let messageSession = sessionStarts.filter { $0 <= message.entries.lowerBound }.count
            if messageSession != session {
                session = messageSession
                card = try makeCard()
                notes += verifier.notes
                verifier = StructuralVerifier()
            }
            if case .event(let event) = message.kind {
                Self.apply(event, to: card)
                result.messagesReplayed += 1
                onMatch?(message)
                continue
            }
            let failure: ReplayMismatch?
            switch mode {
            case .exact:
                failure = replayExactly(message, on: card, matched: result.exchangesReplayed)
            case .structural:
                failure = replayStructurally(message, on: card, verifier: &verifier, matched: result.exchangesReplayed)
            }
            if let failure {
                result.mismatch = failure
                break
            }
            result.exchangesReplayed += message.exchanges.count
            result.messagesReplayed += 1
            onMatch?(message)
        }
        result.notes = notes + verifier.notes
        result.sessionsReplayed = session + 1
        return result
    }

    /// What an event does to a card: `power-on` and `tapped` power it on, `power-off` and
    /// `removed` off, `reset` off then on.
    public static func apply(_ event: CardEvent, to card: any TranscriptCard) {
        switch event {
        case .powerOn, .tapped:
            card.powerOn()
        case .powerOff, .removed:
            card.powerOff()
        case .reset:
            card.powerOff()
            card.powerOn()
        }
    }

    // MARK: - Byte-exact

    private func replayExactly(_ message: TranscriptMessage, on card: any TranscriptCard, matched: Int) -> ReplayMismatch? {
        let sent = MessageDriver.send(message, request: nil, to: card)
        guard sent != message.exchanges else { return nil }
        let firstDifferent = zip(sent, message.exchanges).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(sent.count, message.exchanges.count)
        let lines = exchangeLines(message)
        let line = lines.indices.contains(firstDifferent) ? lines[firstDifferent] : message.line
        let actual = Self.message(from: sent, like: message)
        let command = message.ctapRequest?.first.flatMap(CTAPCommand.init(rawValue:))
        var comparison = CBORComparison(rule: ComparisonRules.exact(command: command))
        comparison.fieldNames = ComparisonRules.fieldNames(command: command, isRequest: false)
        let difference = Self.envelopeDifference(message, actual)
            ?? cborDifference(message, actual, comparison: comparison)
            ?? Self.apduDifference(message.exchanges, sent, index: firstDifferent)
        return mismatch(.mismatch, message: message, actual: actual, line: line, difference: difference,
                        matched: matched + firstDifferent)
    }

    // MARK: - Structural

    private func replayStructurally(_ message: TranscriptMessage, on card: any TranscriptCard,
                                    verifier: inout StructuralVerifier, matched: Int) -> ReplayMismatch? {
        if let request = message.ctapRequest, let reason = Self.pinProtocolReason(request) {
            return ReplayMismatch(kind: .needsSeededTranscript, line: message.line, messageLine: message.line,
                                  command: message.name, difference: nil, expected: Self.describe(message), actual: "",
                                  mode: mode.rawValue, exchangesMatched: matched, explanation: reason)
        }
        var request: [UInt8]?
        switch message.kind {
        case .ctap2(let recorded, _):
            request = verifier.substituted(recorded)
        case .u2f(_, _, _, let data):
            request = verifier.substituted(data)
        default:
            request = nil
        }
        let sent = MessageDriver.send(message, request: request, to: card)
        let actual = Self.message(from: sent, like: message)
        let fail = { (difference: FieldDifference?) in
            self.mismatch(.mismatch, message: message, actual: actual, line: message.line, difference: difference, matched: matched)
        }
        if let difference = Self.envelopeDifference(message, actual) { return fail(difference) }
        switch message.kind {
        case .ctap2:
            guard message.statusWord == .success, message.ctapStatusByte == CTAPStatus.ok.rawValue else { return nil }
            let recordedBody: CBORValue?
            let actualBody: CBORValue?
            do {
                recordedBody = try message.responseCBOR()
                actualBody = try actual.responseCBOR()
            } catch {
                return fail(FieldDifference(path: FieldPath("response"), expected: "CBOR", actual: "\(error)", reason: "not CBOR"))
            }
            let difference = verifier.check(ctap: actual.ctapRequest ?? [], recorded: recordedBody, actual: actualBody,
                                            line: message.line, card: card)
            return difference.map(fail)
        case .u2f(let instruction, _, _, _):
            guard message.statusWord == .success, case .u2f(_, _, _, let sentData) = actual.kind else { return nil }
            let difference = verifier.check(u2f: instruction, requestData: sentData, recorded: message.response,
                                            actual: actual.response, card: card)
            return difference.map(fail)
        case .select, .apdu, .event:
            guard message.response != actual.response else { return nil }
            return fail(FieldDifference(path: FieldPath("response"), expected: CBORRendering.render(.bytes(message.response)),
                                        actual: CBORRendering.render(.bytes(actual.response)), reason: "different value"))
        }
    }

    /// Why a CTAP2 request can only be replayed by a card with the recording's seed, or nil.
    static func pinProtocolReason(_ request: [UInt8]) -> String? {
        guard let command = request.first, request.count > 1,
              let map = (try? CBORDecoder.decode(request.dropFirst()))?.mapValue else { return nil }
        func nonEmpty(_ key: Int) -> Bool {
            guard let value = map[int: key] else { return false }
            return value.bytesValue.map { !$0.isEmpty } ?? true
        }
        if command == CTAPCommand.clientPIN.rawValue && map[ClientPINKey.keyAgreement] != nil {
            return "it carries the host's key-agreement key and data encrypted to the recorded card's key (clientPIN keyAgreement)"
        }
        if let key = CTAPCommand(rawValue: command)?.pinUvAuthParamKey, nonEmpty(key) {
            return "its pinUvAuthParam is a MAC under a PIN/UV auth token the recorded card issued"
        }
        if command == CTAPCommand.getAssertion.rawValue,
           map[GetAssertionKey.extensions]?.mapValue?[text: ExtensionIdentifier.hmacSecret.rawValue] != nil {
            return "its hmac-secret salts are encrypted to the recorded card's key-agreement key"
        }
        return nil
    }

    // MARK: - Comparison helpers

    /// The logical message the card's answers make, for a recorded message.
    static func message(from exchanges: [TranscriptMessage.APDUExchange], like recorded: TranscriptMessage) -> TranscriptMessage {
        let transcript = Transcript(entries: exchanges.map { .exchange(command: $0.command, response: $0.response, note: nil) })
        var messages = TranscriptMessages.messages(of: transcript)
        guard !messages.isEmpty else {
            return TranscriptMessage(kind: recorded.kind, response: [], statusWord: nil, exchanges: [], entries: 0..<0, line: recorded.line)
        }
        var message = messages.removeFirst()
        message.line = recorded.line
        // Several messages: the card cut the exchange short; keep what the first one says.
        return message
    }

    /// A difference in the status word or the CTAP status byte.
    static func envelopeDifference(_ recorded: TranscriptMessage, _ actual: TranscriptMessage) -> FieldDifference? {
        if recorded.statusWord != actual.statusWord {
            return FieldDifference(path: FieldPath("sw"), expected: Self.describe(recorded.statusWord), actual: Self.describe(actual.statusWord),
                                   reason: "different status word")
        }
        if recorded.ctapRequest != nil, recorded.ctapStatusByte != actual.ctapStatusByte {
            let name = { (byte: UInt8?) in byte.map(CTAPNames.statusName) ?? "nothing" }
            return FieldDifference(path: FieldPath("status"), expected: name(recorded.ctapStatusByte), actual: name(actual.ctapStatusByte),
                                   reason: "different CTAP status")
        }
        return nil
    }

    private func cborDifference(_ recorded: TranscriptMessage, _ actual: TranscriptMessage, comparison: CBORComparison) -> FieldDifference? {
        guard let expected = try? recorded.responseCBOR(), let got = try? actual.responseCBOR() else { return nil }
        return comparison.firstDifference(expected, got, at: FieldPath("response"))
    }

    private static func apduDifference(_ recorded: [TranscriptMessage.APDUExchange], _ sent: [TranscriptMessage.APDUExchange],
                                       index: Int) -> FieldDifference {
        let path = FieldPath("apdu[\(index)]")
        guard recorded.indices.contains(index) else {
            return FieldDifference(path: path, expected: "no more APDUs", actual: sent.indices.contains(index) ? Hex.string(sent[index].response) : "nothing",
                                   reason: "the card wanted more APDUs than the transcript has")
        }
        guard sent.indices.contains(index) else {
            return FieldDifference(path: path, expected: Hex.string(recorded[index].response), actual: "nothing",
                                   reason: "the card finished before the transcript did")
        }
        return FieldDifference(path: path, expected: Hex.string(recorded[index].response), actual: Hex.string(sent[index].response),
                               reason: "different response bytes")
    }

    private func mismatch(_ kind: ReplayMismatch.Kind, message: TranscriptMessage, actual: TranscriptMessage, line: Int,
                          difference: FieldDifference?, matched: Int) -> ReplayMismatch {
        ReplayMismatch(kind: kind, line: line, messageLine: message.line, command: message.name, difference: difference,
                       expected: Self.describe(message), actual: Self.describe(actual), mode: mode.rawValue,
                       exchangesMatched: matched, explanation: nil)
    }

    /// The lines of a message's APDU exchanges.
    private func exchangeLines(_ message: TranscriptMessage) -> [Int] {
        message.entries.compactMap { index -> Int? in
            guard transcript.entries.indices.contains(index), case .exchange = transcript.entries[index] else { return nil }
            return transcript.line(ofEntry: index)
        }
    }

    /// A message's response for a report: status word, CTAP status, CBOR.
    static func describe(_ message: TranscriptMessage) -> String {
        var text = describe(message.statusWord)
        if message.ctapRequest != nil, let status = message.ctapStatusByte {
            text += " " + CTAPNames.statusName(status)
            if let body = try? message.responseCBOR() { text += " " + CBORRendering.render(body) }
        } else if !message.response.isEmpty {
            text += " " + CBORRendering.render(.bytes(message.response))
        }
        return text
    }

    private static func describe(_ word: StatusWord?) -> String {
        word.map { "\($0)" + ($0.meaning.map { " (\($0))" } ?? "") } ?? "no status word"
    }

}
