@testable import ArculusCard
import CardCrypto
import Foundation
import Testing
@testable import CTAP2
import TestSupport

// Power loss at any instant. For each state-changing command on a card whose memory is a
// CardImageFile, the test records the image after every persistence step the command takes, then
// rebuilds every image a power cut could leave behind and reopens it:
//   - an append (journal record, fdatasync'ed): the file cut after every byte of the record, and
//     the file extended over the whole record but with zeros from any point on (the size reached
//     the disk, the data did not: ext4 data=writeback, XFS);
//   - a compaction (forced by lowering `compactionThreshold`): the record appended in part or in
//     full; a temporary file partly written, or complete, before the rename (a stale `.tmp` beside
//     the image); the renamed new snapshot.
// Every rebuilt image must load, as the state before the step or after it (never anything else);
// a change appears only once its step is complete; what the host saw acknowledged is in the final
// image; the PIN retry counter is decremented by the first step of every PIN check, before the
// card could compare anything. Reopened images also take a further write and reopen again (the
// torn tail is replaced, a stale .tmp is harmless).

/// Wraps the card's image file and keeps a copy of the file after every commit.
final class RecordingImageStorage: CardStorage {
    struct Step {
        let mutations: [CardMutation]
        let before: [UInt8]
        let after: [UInt8]
        let failed: Bool
    }

    let file: CardImageFile
    private(set) var steps: [Step] = []
    var recording = false

    init(file: CardImageFile) { self.file = file }

    func load() throws(CardImageError) -> CardState? { try file.load() }

    func save(_ state: CardState) throws(CardImageError) { try file.save(state) }

    func takeUpkeepFailure() -> CardImageError? { file.takeUpkeepFailure() }

    func commit(_ mutations: [CardMutation], onto state: CardState) throws(CardImageError) {
        let before = recording ? ((try? readFile(file.path)) ?? []) : []
        do {
            try file.commit(mutations, onto: state)
        } catch {
            if recording { steps.append(Step(mutations: mutations, before: before, after: (try? readFile(file.path)) ?? [], failed: true)) }
            throw error
        }
        if recording { steps.append(Step(mutations: mutations, before: before, after: (try? readFile(file.path)) ?? [], failed: false)) }
    }
}

/// One card on an image file, with a host that talks to it.
final class PowerLossSession {
    let directory: TemporaryDirectory
    let path: String
    let file: CardImageFile
    let storage: RecordingImageStorage
    let card: VirtualCard
    let platform: PlatformClient

    init(profile: CardProfile = .arculusFIDO21, fileSystem: CardImageFileSystem? = nil) throws {
        directory = try TemporaryDirectory()
        path = directory.file("card.img")
        let path = path
        if let fileSystem {
            file = try CardImageFile(path: path, fileSystem: fileSystem)
        } else {
            file = try CardImageFile(path: path)
        }
        file.compactionThreshold = Int.max
        storage = RecordingImageStorage(file: file)
        card = try VirtualCard(profile: profile, storage: storage, entropy: .seeded(testSeed))
        let card = card
        platform = PlatformClient(send: { card.ctap2($0) })
    }

    var state: CardState { card.authenticator.state }

    /// Grows the journal to at least the snapshot's size with no-op changes, then sets the
    /// threshold so that the next commit compacts.
    func prepareCompaction() throws {
        var bytes = try readFile(path)
        let snapshot = Self.snapshotRecordLength(bytes)
        while bytes.count - CardImageFormat.headerLength - snapshot < snapshot {
            try file.commit([.setSignatureCounter(state.signatureCounter)], onto: state)
            bytes = try readFile(path)
        }
        file.compactionThreshold = bytes.count - CardImageFormat.headerLength - snapshot
    }

    static func snapshotRecordLength(_ image: [UInt8]) -> Int {
        let offset = CardImageFormat.headerLength
        let length = image[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        return CardImageFormat.recordLength(payloadLength: length)
    }
}

/// Counts reopened images across the suite, for the report.
final class RoundCounter: @unchecked Sendable {
    static let shared = RoundCounter()
    private let lock = NSLock()
    private var rounds = 0
    func add(_ count: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        rounds += count
        return rounds
    }
}

@Suite("Power loss at every persistence step")
struct PowerLossTests {
    enum Mode: String, CaseIterable, Sendable {
        case append
        case compaction
    }

    @Test(arguments: PowerLossScenarios.all, Mode.allCases)
    func cutEverywhere(_ scenario: PowerLossScenario, _ mode: Mode) throws {
        let session = try PowerLossSession()
        try scenario.prepare(session)
        if mode == .compaction { try session.prepareCompaction() }
        let initialImage = try readFile(session.path)
        let before = session.state
        session.storage.recording = true
        let host = try scenario.command(session)
        session.storage.recording = false
        let after = session.state
        let steps = session.storage.steps
        let finalImage = try readFile(session.path)

        // The command did what it should, and the card's view is the file's.
        #expect(host.reply.isOK || scenario.pinCheck, "\(scenario.name): \(host.reply)")
        #expect(try CardImageFormat.state(fromImage: finalImage, path: session.path) == after)
        #expect(!steps.isEmpty, "the command changed nothing durable")
        #expect(steps.allSatisfy { !$0.failed })
        if mode == .compaction {
            #expect(steps.first.map { !$0.after.starts(with: $0.before) } == true, "the first step did not compact")
        }
        if scenario.pinCheck {
            // The decrement is the first durable step, before any comparison could answer.
            #expect(steps.first?.mutations == [.setPINRetries(before.pinRetries - 1)],
                    "first step of a PIN check: \(String(describing: steps.first?.mutations))")
        }
        if let credential = host.credential {
            #expect(host.reply.isOK)
            if credential.resident {
                #expect(after.residentCredentials.contains { $0.id == credential.id }, "an acknowledged credential is missing")
                #expect(!before.residentCredentials.contains { $0.id == credential.id })
            }
        }
        if let counter = host.counter { #expect(after.signatureCounter >= counter) }
        #expect(steps.first?.before == initialImage)

        // Every image a cut could leave.
        var states: [CardState] = [before]
        for step in steps { states.append(try CardImageFormat.state(fromImage: step.after, path: session.path)) }
        var cuts: [Cut] = []
        for (index, step) in steps.enumerated() {
            cuts += try Cut.all(for: step, index: index, beforeState: states[index], afterState: states[index + 1], path: session.path)
        }

        let scratch = try TemporaryDirectory()
        var reopened = 0
        var verifiedStates: [CardState] = []
        for (number, cut) in cuts.enumerated() {
            let path = scratch.file("cut-\(number).img")
            try writeFile(path, cut.image)
            if let temporary = cut.temporary { try writeFile(path + ".tmp", temporary) }
            let loaded: CardState
            do {
                let file = try CardImageFile(path: path)
                guard let state = try file.load() else { throw TestFailure("no image") }
                loaded = state
            } catch {
                Issue.record("\(scenario.name) [\(mode)]: \(cut.label): the image does not load: \(error)")
                continue
            }
            reopened += 1
            #expect(loaded == cut.expected, "\(scenario.name) [\(mode)]: \(cut.label): loaded another state than expected")
            if let problem = Self.problem(loaded, before: before, after: after, host: host, scenario: scenario, cut: cut) {
                Issue.record("\(scenario.name) [\(mode)]: \(cut.label): \(problem)")
            }
            if cut.writeAfterReopen || !verifiedStates.contains(loaded) {
                try Self.reopenAndUse(path, expected: loaded, label: "\(scenario.name) [\(mode)]: \(cut.label)")
                verifiedStates.append(loaded)
            }
        }
        let total = RoundCounter.shared.add(reopened)
        print("power loss: \(scenario.name) [\(mode)]: \(steps.count) step(s), \(reopened) cut images reopened (suite total \(total))")
        #expect(reopened == cuts.count)
    }

    /// What must hold of any image a cut leaves, beyond being one of the two expected states.
    static func problem(_ loaded: CardState, before: CardState, after: CardState, host: HostView,
                        scenario: PowerLossScenario, cut: Cut) -> String? {
        let known = Set(before.residentCredentials.map(\.id) + after.residentCredentials.map(\.id))
        if loaded.residentCredentials.contains(where: { !known.contains($0.id) }) {
            return "a credential that neither the old nor the new state has"
        }
        if let credential = host.credential, credential.resident, !host.reply.isOK,
           loaded.residentCredentials.contains(where: { $0.id == credential.id }) {
            return "a credential the host was never told about"
        }
        if loaded.signatureCounter < before.signatureCounter { return "the signature counter went backwards" }
        // A counter value the host was answered with is never handed out again: the durable
        // ceiling of the state the answer came from covers it.
        if let seen = host.counter, host.reply.isOK, cut.complete, loaded.signatureCounter < seen {
            return "the host saw counter \(seen) but the image holds \(loaded.signatureCounter): it could repeat"
        }
        if scenario.pinCheck, cut.stepIndex > 0 || cut.complete {
            // From the moment the decrement is durable the card may compare; from then on the
            // counter is at most what it is without a cut, until the PIN proved right.
            if loaded.pinRetries > max(after.pinRetries, before.pinRetries - 1) {
                return "PIN retries \(loaded.pinRetries) after the decrement was durable (before \(before.pinRetries), after \(after.pinRetries))"
            }
        }
        if scenario.pinCheck, loaded.pinRetries > before.pinRetries, loaded.pinRetries > after.pinRetries {
            return "PIN retries went up"
        }
        return scenario.check(loaded, before, after, host)
    }

    /// Opens the image as a card, checks it answers from that state, writes once more and reopens.
    static func reopenAndUse(_ path: String, expected: CardState, label: String) throws {
        let counter: UInt32
        do {
            let card = try VirtualCard(imageAt: path, entropy: .seeded(testSeed))
            #expect(card.authenticator.state == expected, "\(label): the card's state is not the file's")
            let platform = PlatformClient(send: card.ctap2)
            #expect(platform.call(CTAPByte.getInfo).isOK, "\(label): getInfo")
            if expected.isPINSet {
                #expect(platform.pinRetries() == expected.pinRetries, "\(label): getPINRetries")
            } else {
                let reply = platform.call(CTAPByte.clientPIN, [.int(1): 1, .int(2): 1])
                #expect(reply.status == 0x35, "\(label): getPINRetries without a PIN is PIN_NOT_SET: \(reply)")
            }
            for credential in expected.residentCredentials where credential.credProtect == 1 {
                let reply = platform.call(CTAPByte.getAssertion, PlatformClient.getAssertionRequest(rpId: credential.rpId, allow: [credential.id]))
                #expect(reply.isOK, "\(label): a stored credential does not assert: \(reply)")
            }
            // A write after the reopen replaces a torn tail; a stale .tmp does not disturb it.
            let reply = platform.call(CTAPByte.makeCredential, PlatformClient.makeCredentialRequest(userId: [0x77], rk: false))
            #expect(reply.isOK || expected.isPINSet, "\(label): a write after the reopen: \(reply)")
            counter = card.authenticator.state.signatureCounter
        }
        let again = try VirtualCard(imageAt: path, entropy: .seeded(testSeed))
        #expect(again.authenticator.state.signatureCounter == counter, "\(label): the write after the reopen was lost")
        #expect(again.authenticator.state.residentCredentials == expected.residentCredentials)
    }
}

/// One image a power cut could leave, and the state it must load as.
struct Cut {
    let label: String
    let image: [UInt8]
    /// A stale temporary file beside the image (compaction cut before the rename).
    var temporary: [UInt8]?
    let expected: CardState
    /// Which step of the command, and whether that step was complete.
    let stepIndex: Int
    let complete: Bool
    /// Also write after reopening (at record boundaries and a few torn points).
    var writeAfterReopen = false

    static func all(for step: RecordingImageStorage.Step, index: Int, beforeState: CardState, afterState: CardState,
                    path: String) throws -> [Cut] {
        var cuts: [Cut] = []
        let record: [UInt8]
        let compacted: Bool
        if step.after.starts(with: step.before) {
            record = Array(step.after[step.before.count...])
            compacted = false
        } else {
            // A compaction: the journal record the change was (appended before compacting), then the
            // new snapshot through a temporary file.
            record = CardImageFormat.record(kind: .mutations,
                                          payload: CBOREncoder.encode(.array(step.mutations.map { $0.encoded() })))
            compacted = true
            #expect(try CardImageFormat.state(fromImage: step.before + record, path: path) == afterState,
                    "the modelled journal record does not give the state after the step")
        }
        let name = "step \(index + 1) (" + step.mutations.map { String(describing: $0).prefix { $0 != "(" } }.joined(separator: ", ") + ")"
        let torn = Set([1, record.count / 2, record.count - 1, record.count - CardImageFormat.trailerLength(version: CardImageFormat.formatVersion)])
        for length in 0..<record.count {
            cuts.append(Cut(label: "\(name): \(length)/\(record.count) bytes of the record", image: step.before + record.prefix(length),
                            expected: beforeState, stepIndex: index, complete: false, writeAfterReopen: torn.contains(length)))
        }
        // The size reached the disk, the data only up to `written` bytes (zeros after it).
        for written in stride(from: 0, to: record.count, by: max(1, record.count / 24)) {
            let zeros = [UInt8](repeating: 0, count: record.count - written)
            cuts.append(Cut(label: "\(name): record of \(record.count) bytes, zeros from byte \(written)",
                            image: step.before + record.prefix(written) + zeros, expected: beforeState, stepIndex: index,
                            complete: false, writeAfterReopen: written == 0))
        }
        cuts.append(Cut(label: "\(name): whole record", image: step.before + record, expected: afterState, stepIndex: index,
                        complete: true, writeAfterReopen: true))
        if compacted {
            let snapshot = step.after
            for length in Set([0, 1, snapshot.count / 2, snapshot.count - 1]).sorted() {
                cuts.append(Cut(label: "\(name): compaction, .tmp has \(length)/\(snapshot.count) bytes", image: step.before + record,
                                temporary: Array(snapshot.prefix(length)), expected: afterState, stepIndex: index, complete: true,
                                writeAfterReopen: true))
            }
            cuts.append(Cut(label: "\(name): compaction, .tmp complete, not renamed", image: step.before + record,
                            temporary: snapshot, expected: afterState, stepIndex: index, complete: true, writeAfterReopen: true))
            cuts.append(Cut(label: "\(name): compaction, renamed", image: snapshot, expected: afterState, stepIndex: index,
                            complete: true, writeAfterReopen: true))
        }
        return cuts
    }
}
