import ArculusCard
import CardCrypto
import Foundation
import Testing
import TestSupport

@Suite("Card image files")
struct CardImageTests {
    /// Creates an image at `path` with a PIN, a discoverable and a non-discoverable credential.
    static func populate(_ path: String) throws -> (state: CardState, discoverable: (id: [UInt8], key: P256PublicKey),
                                                     nonDiscoverable: (id: [UInt8], key: P256PublicKey)) {
        let card = try VirtualCard(imageAt: path)
        try PlatformPINOne.setPIN("314159", on: card)
        let token = try PlatformPINOne.token("314159", on: card)
        let discoverable = try credential(from: try card.send(.makeCredential,
                                                              makeCredentialParameters(userId: [1], rk: true, token: token)).okBody())
        let nonDiscoverable = try credential(from: try card.send(.makeCredential,
                                                                 makeCredentialParameters(userId: [2], rk: false)).okBody())
        return (card.authenticator.state, discoverable, nonDiscoverable)
    }

    static func expectImageError(_ expected: CardImageError.Reason, path: String,
                                 sourceLocation: SourceLocation = #_sourceLocation,
                                 _ body: () throws -> Void) -> CardImageError? {
        do {
            try body()
            Issue.record("expected a CardImageError", sourceLocation: sourceLocation)
            return nil
        } catch let error as CardImageError {
            #expect(error.path == path, sourceLocation: sourceLocation)
            #expect(error.description.contains(path), "the message names the file", sourceLocation: sourceLocation)
            #expect(error.reason == expected, sourceLocation: sourceLocation)
            return error
        } catch {
            Issue.record("expected a CardImageError, got \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    @Test("an image reopens as the same card: state, PIN and credentials")
    func roundTrip() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        let (state, discoverable, nonDiscoverable) = try Self.populate(path)
        #expect(FileManager.default.fileExists(atPath: path))

        let reopened = try VirtualCard(imageAt: path)
        #expect(reopened.authenticator.state == state)
        #expect(reopened.profile == .arculusFIDO21)
        #expect(reopened.pinState.isSet)
        #expect(reopened.pinState.retries == 8)
        #expect(reopened.pinState.signatureCounter == state.signatureCounter)

        let clientDataHash = SHA256.hash(Array("after reopen".utf8))
        let found = try reopened.send(.getAssertion, [.int(1): "example.com", .int(2): .bytes(clientDataHash)]).okBody()
        #expect(found[int: 1]?.mapValue?[text: "id"] == .bytes(discoverable.id))
        let authData = try #require(found[int: 2]?.bytesValue)
        #expect(discoverable.key.isValidSignature(try #require(found[int: 3]?.bytesValue), for: authData + clientDataHash))

        let byID = try reopened.send(.getAssertion, [.int(1): "example.com", .int(2): .bytes(clientDataHash),
                                                     .int(3): .array([.map(["id": .bytes(nonDiscoverable.id), "type": "public-key"])])]).okBody()
        let byIDAuthData = try #require(byID[int: 2]?.bytesValue)
        #expect(nonDiscoverable.key.isValidSignature(try #require(byID[int: 3]?.bytesValue), for: byIDAuthData + clientDataHash))

        #expect(try PlatformPINOne.token("314159", on: reopened).count == 32)
    }

    @Test("the signature counter after a reopen (a kill at any moment) starts above every value handed out: at the durable ceiling")
    func counterAfterReopen() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        let id: [UInt8]
        do {
            let card = try VirtualCard(imageAt: path)
            id = try credential(from: try card.send(.makeCredential, makeCredentialParameters(userId: [1], rk: false)).okBody()).id
            for expected in UInt32(2)...5 {
                #expect(try signatureCounter(of: card.send(.getAssertion, getAssertionParameters(allow: id)).okBody()) == expected)
            }
            #expect(card.authenticator.state.signatureCounter == 64, "1...64 reserved by the first use")
        }
        // The process is gone without a word (as after kill -9): values 6...64 were never handed out,
        // and the reopened card does not hand them out either.
        let reopened = try VirtualCard(imageAt: path)
        #expect(try signatureCounter(of: reopened.send(.getAssertion, getAssertionParameters(allow: id)).okBody()) == 65)
        #expect(reopened.authenticator.state.signatureCounter == 128, "the next reservation, written before the answer")
    }

    @Test("a second open while the first card is alive → locked; free again once it is gone")
    func locked() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        do {
            let first = try VirtualCard(imageAt: path)
            _ = Self.expectImageError(.locked, path: path) { _ = try VirtualCard(imageAt: path) }
            _ = Self.expectImageError(.locked, path: path) { _ = try CardImageFile(path: path) }
            withExtendedLifetime(first) {}
        }
        let second = try VirtualCard(imageAt: path)
        #expect(second.profile == .arculusFIDO21)
    }

    @Test("a damaged image (one byte flipped) is refused, named, and left untouched")
    func damaged() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        _ = try Self.populate(path)
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0x40
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        _ = Self.expectImageError(.damaged("the record at byte 8 fails its checksum"), path: path) { _ = try VirtualCard(imageAt: path) }
        #expect(try Array(Data(contentsOf: URL(fileURLWithPath: path))) == bytes, "the damaged file is not overwritten")
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
    }

    @Test("an append cut short (a kill mid-write) loses only that unacknowledged change")
    func tornLastRecord() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        let populated = try Self.populate(path)
        // The last change: a wrong PIN's retry decrement (a non-discoverable makeCredential
        // writes nothing while the counter is within its reservation).
        do {
            let card = try VirtualCard(imageAt: path)
            #expect(throws: TestFailure("expected CTAP2_OK, got CTAP2_ERR_PIN_INVALID")) { _ = try PlatformPINOne.token("000000", on: card) }
            #expect(card.authenticator.state.pinRetries == 7)
        }
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let before = populated.state
        #expect(before.pinRetries == 8)
        for cut in 1...8 {
            try bytes.prefix(bytes.count - cut).write(to: URL(fileURLWithPath: path))
            let reopened = try VirtualCard(imageAt: path)
            #expect(reopened.authenticator.state == before, "cut \(cut) bytes")
        }
        // The next write replaces the torn record instead of appending after it.
        let reopened = try VirtualCard(imageAt: path)
        #expect(reopened.send(.makeCredential, makeCredentialParameters(userId: [3], rk: false)).status == .ok)
        let state = reopened.authenticator.state
        _ = consume reopened
        #expect(try VirtualCard(imageAt: path).authenticator.state == state)
    }

    @Test("a truncated snapshot is damaged")
    func truncated() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        _ = try Self.populate(path)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for (cut, why) in [(bytes.prefix(20), "no complete snapshot record"), (bytes.prefix(8), "no complete snapshot record")] {
            try cut.write(to: URL(fileURLWithPath: path))
            _ = Self.expectImageError(.damaged(why), path: path) { _ = try VirtualCard(imageAt: path) }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == cut)
        }
    }

    @Test("CardImageFile.save replaces the image and leaves no .tmp behind")
    func saveLeavesNoTemporary() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        let storage = try CardImageFile(path: path)
        #expect(try storage.load() == nil, "a missing image is a blank card")
        var state = CardState(profile: .arculusFIDO21, masterSecret: SecureRandom.bytes(32))
        try storage.save(state)
        state.signatureCounter = 41
        try storage.save(state)
        #expect(try directory.contents() == ["card.img"])
        #expect(try storage.load() == state)
        #expect(try CardImageFormat.state(fromImage: Array(Data(contentsOf: URL(fileURLWithPath: path))), path: path) == state)
    }

    @Test("every saved change is in the file when the command answers")
    func durableOnAnswer() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        let card = try VirtualCard(imageAt: path)
        try PlatformPINOne.setPIN("271828", on: card)
        let onDisk = try CardImageFormat.state(fromImage: Array(Data(contentsOf: URL(fileURLWithPath: path))), path: path)
        #expect(onDisk == card.authenticator.state)
        #expect(onDisk.pinHash == pinHash("271828"))
    }
}
