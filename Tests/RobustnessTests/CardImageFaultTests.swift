@testable import ArculusCard
import CardCrypto
import Foundation
import POSIXSupport
import Testing
import FIDOWire
@testable import CTAP2
import TestSupport

/// Storage that fails the commits a test chooses: a write error (full disk, I/O error) at a
/// given persistence step.
final class FailingStorage: CardStorage {
    let inner = InMemoryStorage()
    /// Commits still to succeed before the failures start; nil: never fail.
    var failAfter: Int?

    func load() throws(CardImageError) -> CardState? { try inner.load() }
    func save(_ state: CardState) throws(CardImageError) { try inner.save(state) }
    func commit(_ mutations: [CardMutation], onto state: CardState) throws(CardImageError) {
        if let remaining = failAfter {
            guard remaining > 0 else { throw CardImageError(path: "(test)", reason: .io("injected write failure")) }
            failAfter = remaining - 1
        }
        try inner.commit(mutations, onto: state)
    }
}

@Suite("Card image faults: write failures and torn tails")
struct CardImageFaultTests {
    /// Finding (power-loss tests): a compaction that fails after the change was already appended
    /// and fdatasync'ed made the command answer CTAP1_ERR_OTHER, although the change was durable:
    /// after a reopen the card held a credential the host had been told was not made, and until
    /// then the card's memory and its file disagreed. Finding (security review): the failure was
    /// then swallowed (`try? save`); it is reported as a write failure that kept the change.
    @Test("a failed compaction after a durable append: the host's answer matches the file, and the failure is reported")
    func compactionFailureAfterDurableAppend() throws {
        let directory: TemporaryDirectory
        let path: String
        let fileSystem = RecordingFileSystem()
        do {
            let session = try PowerLossSession(fileSystem: fileSystem)
            directory = session.directory
            path = session.path
            var reported: [CardWriteFailure] = []
            session.card.onWriteFailure = { reported.append($0) }
            guard try session.platform.setPIN("1234").isOK else { throw TestFailure("setPIN") }
            let token = try session.platform.token("1234", permissions: PermissionBit.makeCredential).get()
            try session.prepareCompaction()
            // Compaction cannot create its temporary file, however often it tries.
            fileSystem.fault = .init(call: "open", file: "card.img.tmp", code: EACCES, persistent: true)

            let reply = session.platform.call(CTAPByte.makeCredential,
                                              PlatformClient.makeCredentialRequest(userId: [42], rk: true, token: token))
            let onDisk = try CardImageFormat.state(fromImage: try readFile(path), path: path)
            #expect(onDisk == session.state, "the card's memory and its image disagree")
            let stored = onDisk.residentCredentials.contains { $0.userId == [42] }
            #expect(stored == reply.isOK, "credential stored: \(stored), host told: \(reply)")
            #expect(reply.isOK, "the change is durable in the journal, so the command succeeded")
            let why = "card image \(path): cannot create a temporary file beside it: open: \(SystemCallError.text(EACCES))"
            #expect(reported.map(\.description) == ["authenticatorMakeCredential: signature counter 64, new credential for example.com was stored, but compacting the image after it failed: \(why)"])
            #expect(reported.first?.changeKept == true)
            #expect(session.card.writeFailures.count == 1)

            // The retry counter still counts down, in memory and on disk alike; the next
            // compaction fails again, and is reported again.
            _ = try session.platform.token("0000")
            let afterWrongPIN = try CardImageFormat.state(fromImage: try readFile(path), path: path)
            #expect(afterWrongPIN.pinRetries == 7)
            #expect(session.state.pinRetries == 7)
            #expect(reported.count == 2)
            #expect(reported.last?.reason == why)
        }
        fileSystem.fault = nil
        let reopened = try VirtualCard(imageAt: path)
        #expect(reopened.pinState.retries == 7)
        #expect(reopened.credentials.contains { $0.userId == [42] })
        withExtendedLifetime(directory) {}
    }

    /// Finding (power-loss tests): a cut after the file's new size reached the disk but before the
    /// appended record's data did leaves the file extended with zeros. Only a zero tail of exactly
    /// 21 bytes was recognised as such; longer ones made the image refuse to load ("damaged").
    @Test("a journal append cut after the size was written but not the data (zero tail) loads as before",
          arguments: [1, 5, 20, 21, 22, 36, 64, 200, 4096])
    func zeroTail(_ zeros: Int) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        let state: CardState
        do {
            let card = try VirtualCard(imageAt: path, entropy: .seeded(testSeed))
            _ = PlatformClient(send: card.ctap2).call(CTAPByte.makeCredential,
                                                      PlatformClient.makeCredentialRequest(userId: [1], rk: true))
            state = card.authenticator.state
        }
        let image = try readFile(path)
        try writeFile(path, image + [UInt8](repeating: 0, count: zeros))
        let reopened = try VirtualCard(imageAt: path, entropy: .seeded(testSeed))
        #expect(reopened.authenticator.state == state)
        // The next change replaces the zeros.
        #expect(PlatformClient(send: reopened.ctap2).call(CTAPByte.makeCredential,
                                                          PlatformClient.makeCredentialRequest(userId: [2], rk: true)).isOK)
        let after = reopened.authenticator.state
        _ = consume reopened
        #expect(try VirtualCard(imageAt: path).authenticator.state == after)
    }

    @Test("a record whose checksum fails in the middle of the journal is still damage")
    func damagedRecordBeforeAnother() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        do {
            let card = try VirtualCard(imageAt: path, entropy: .seeded(testSeed))
            let platform = PlatformClient(send: card.ctap2)
            // Two discoverable credentials: two journal records (a non-discoverable one would
            // write nothing while the signature counter is within its reservation).
            #expect(platform.call(CTAPByte.makeCredential, PlatformClient.makeCredentialRequest(userId: [1], rk: true)).isOK)
            #expect(platform.call(CTAPByte.makeCredential, PlatformClient.makeCredentialRequest(userId: [2], rk: true)).isOK)
        }
        var image = try readFile(path)
        let snapshot = PowerLossSession.snapshotRecordLength(image)
        // Zero the digest of the first journal record: a real record follows it, so this is not a
        // torn tail.
        let first = CardImageFormat.headerLength + snapshot
        let length = image[first..<first + 4].reduce(0) { $0 << 8 | Int($1) }
        let digest = first + 5 + length
        for index in digest..<digest + CardImageFormat.digestLength { image[index] = 0 }
        try writeFile(path, image)
        let why = "the record at byte \(first) fails its checksum; truncating the file to \(first) bytes keeps every record before it"
        #expect(throws: CardImageError(path: path, reason: .damaged(why))) {
            _ = try VirtualCard(imageAt: path)
        }
    }

    @Test("a failed decrement write answers the same for the right and the wrong PIN, and costs no attempt")
    func failedDecrementRevealsNothing() throws {
        var answers: [String: [UInt8]] = [:]
        for guess in ["1234", "0000"] {
            let storage = FailingStorage()
            let card = try VirtualCard(profile: .arculusFIDO21, storage: storage, entropy: .seeded(testSeed))
            let platform = PlatformClient(send: card.ctap2)
            guard try platform.setPIN("1234").isOK else { throw TestFailure("setPIN") }
            storage.failAfter = 0
            let reply = platform.call(CTAPByte.clientPIN, try platform.tokenRequest(guess).0)
            answers[guess] = reply.bytes
            #expect(reply.bytes == [CTAPStatus.other.rawValue], "guess \(guess): \(reply)")
            #expect(card.pinState.retries == 8)
            #expect(storage.inner.state?.pinRetries == 8)
            storage.failAfter = nil
            #expect(platform.call(CTAPByte.clientPIN, try platform.tokenRequest("0000").0).status == CTAPStatus.pinInvalid.rawValue)
            #expect(card.pinState.retries == 7)
        }
        #expect(answers["1234"] == answers["0000"])
    }

    @Test("a failed write of a new credential answers CTAP1_ERR_OTHER and stores nothing")
    func failedCredentialWrite() throws {
        let storage = FailingStorage()
        let card = try VirtualCard(profile: .arculusFIDO21, storage: storage, entropy: .seeded(testSeed))
        storage.failAfter = 0
        let reply = PlatformClient(send: card.ctap2).call(CTAPByte.makeCredential,
                                                          PlatformClient.makeCredentialRequest(userId: [1], rk: true))
        #expect(reply.bytes == [CTAPStatus.other.rawValue])
        #expect(card.credentials.isEmpty)
        #expect(storage.inner.state?.residentCredentials.isEmpty == true)
        #expect(card.answersNormally())
    }
}
