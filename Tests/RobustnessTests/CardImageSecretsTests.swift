@testable import ArculusCard
import Foundation
import POSIXSupport
import Testing
@testable import CTAP2
import TestSupport

// A change that retires a secret is followed by a rewrite of the image as one snapshot, so the
// secret leaves the file. Finding (security review): after `image create --pin 123456
// --credential …` and a reset, the old credential's private scalar and LEFT(SHA-256("123456"),
// 16) were still in the image (a reset is a journal record; the image was compacted only past
// 64 KiB), and so was the old master secret, which unwraps non-discoverable credential IDs.

/// Whether any `window` bytes in a row of `secret` occur in `bytes`.
private func containsRun(of secret: [UInt8], window: Int = 8, in bytes: [UInt8]) -> Bool {
    guard secret.count >= window, bytes.count >= window else { return false }
    var runs = Set<[UInt8]>()
    for start in 0...(secret.count - window) { runs.insert(Array(secret[start..<start + window])) }
    for start in 0...(bytes.count - window) where runs.contains(Array(bytes[start..<start + window])) { return true }
    return false
}

private struct Secret {
    let name: String
    let bytes: [UInt8]
}

/// The card's secrets as they are now: PIN hash, master secret, every stored private key.
private func secrets(of card: VirtualCard) -> [Secret] {
    let state = card.authenticator.state
    return [Secret(name: "PIN hash", bytes: state.pinHash ?? []), Secret(name: "master secret", bytes: state.masterSecret)]
        + state.residentCredentials.map { Secret(name: "private key of \($0.userName ?? "?")", bytes: $0.privateKey) }
}

private func expectGone(_ secrets: [Secret], from path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let image = try readFile(path)
    for secret in secrets {
        #expect(secret.bytes.count >= 16, sourceLocation: sourceLocation)
        #expect(!containsRun(of: secret.bytes, in: image), "the image still holds 8 bytes in a row of the old \(secret.name)",
                sourceLocation: sourceLocation)
    }
}

private func expectPresent(_ secrets: [Secret], in path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let image = try readFile(path)
    for secret in secrets {
        #expect(containsRun(of: secret.bytes, in: image), "the image lacks the \(secret.name)", sourceLocation: sourceLocation)
    }
}

@Suite("Card image: a retired secret leaves the file")
struct CardImageSecretsTests {
    @Test("a card with PIN 123456 and credentials, reset: nothing of the old PIN hash, keys or master secret is in the image")
    func reset() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        let minted: CredentialRecord
        do {
            let card = try VirtualCard(imageAt: path)
            try card.setPIN("123456")
            _ = try card.addCredential(rpId: "example.com", user: CredentialUser(id: [1], name: "alice"))
            _ = try card.addCredential(rpId: "example.com", user: CredentialUser(id: [2], name: "carol"))
            minted = try card.addCredential(rpId: "example.com", user: CredentialUser(id: [3], name: "bob"), discoverable: false)
            let old = secrets(of: card)
            #expect(old.first?.bytes == pinHash("123456"))
            try expectPresent(old, in: path)

            let platform = PlatformClient(send: card.ctap2)
            // Inside the reset window however long the set-up took.
            card.clock = { .seconds(100) }
            card.powerCycle()
            #expect(platform.call(CTAPByte.reset).isOK)
            try expectGone(old, from: path)
            #expect(try readFile(path) == CardImageFormat.encode(card.authenticator.state), "the image is one snapshot")
            try expectPresent([Secret(name: "new master secret", bytes: card.authenticator.state.masterSecret)], in: path)
        }
        let reopened = try VirtualCard(imageAt: path)
        #expect(!reopened.pinState.isSet && reopened.credentials.isEmpty)
        let reply = PlatformClient(send: reopened.ctap2).call(CTAPByte.getAssertion, PlatformClient.getAssertionRequest(allow: [minted.id]))
        #expect(reply.status == CTAPStatus.noCredentials.rawValue, "the old master secret still unwraps the minted ID: \(reply)")
    }

    @Test("deleting a credential (credentialManagement, or the state control image credentials remove uses) takes its key out of the file; the others stay")
    func deleteCredential() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        let card = try VirtualCard(imageAt: path)
        let platform = PlatformClient(send: card.ctap2)
        #expect(try platform.setPIN("123456").isOK)
        for number: UInt8 in 1...3 {
            _ = try card.addCredential(rpId: "example.com", user: CredentialUser(id: [number], name: "user\(number)"))
        }
        let keys = card.credentials.map { Secret(name: "private key of \($0.userName ?? "?")", bytes: $0.privateKey) }
        try expectPresent(keys, in: path)

        let token = try platform.token("123456", permissions: PermissionBit.credentialManagement).get()
        let first = card.credentials[0].id
        let reply = platform.call(CTAPByte.credentialManagement, PlatformClient.credentialManagementRequest(
            6, [.int(2): .map(["id": .bytes(first), "type": "public-key"])], token: token))
        #expect(reply.isOK, "\(reply)")
        try expectGone([keys[0]], from: path)
        try expectPresent(Array(keys[1...]), in: path)

        try card.removeCredential(id: card.credentials[0].id)
        try expectGone(Array(keys[..<2]), from: path)
        try expectPresent([keys[2]], in: path)
    }

    @Test("a new PIN takes the old PIN's hash out of the file")
    func changePIN() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        let card = try VirtualCard(imageAt: path)
        let platform = PlatformClient(send: card.ctap2)
        #expect(try platform.setPIN("123456").isOK)
        #expect(try platform.changePIN(from: "123456", to: "987654").isOK)
        try expectGone([Secret(name: "PIN hash", bytes: pinHash("123456"))], from: path)
        try expectPresent([Secret(name: "PIN hash", bytes: pinHash("987654"))], in: path)
        try card.setPIN("24681357")
        try expectGone([Secret(name: "PIN hash", bytes: pinHash("987654"))], from: path)
    }

    @Test("a rewrite that fails is reported, and the next write makes it")
    func failedRewriteIsRetried() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        let fileSystem = RecordingFileSystem()
        let card = try VirtualCard(profile: .arculusFIDO21, storage: try CardImageFile(path: path, fileSystem: fileSystem))
        var reported: [CardWriteFailure] = []
        card.onWriteFailure = { reported.append($0) }
        let alice = try card.addCredential(rpId: "example.com", user: CredentialUser(id: [1], name: "alice"))
        let key = Secret(name: "private key", bytes: card.credentials[0].privateKey)
        fileSystem.fault = .init(call: "fsync", file: "card.img.tmp", code: EIO, persistent: true)
        try card.removeCredential(id: alice.id)
        #expect(reported.map(\.description) == [
            "credential deletion was stored, but compacting the image after it failed: card image \(path): cannot write the new image: fsync: Input/output error",
        ])
        try expectPresent([key], in: path)
        #expect(try directory.contents() == ["card.img"], "the failed temporary file is removed")
        fileSystem.fault = nil
        try card.setSignatureCounter(5)
        try expectGone([key], from: path)
        #expect(reported.count == 1)
    }

    @Test("an image whose journal still holds a retired secret (written before the rewrite existed) loses it at the first write")
    func oldJournalIsRewritten() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("card.img")
        var state = CardState(profile: .arculusFIDO21, masterSecret: [UInt8](repeating: 9, count: 32))
        let key = (1...32).map { UInt8($0) }
        let credential = ResidentCredential(id: [UInt8](repeating: 0xC1, count: 16), rpId: "example.com", rpName: nil, userId: [1],
                                            userName: "alice", userDisplayName: nil, privateKey: key, credProtect: 1,
                                            hmacSecret: false, serial: 1)
        state.apply(.addCredential(credential))
        try writeFile(path, CardImageFormat.encode(state) + CardImageFormat.journalRecord([.removeCredential(id: credential.id)]))
        let card = try VirtualCard(imageAt: path)
        #expect(card.credentials.isEmpty)
        try expectPresent([Secret(name: "private key", bytes: key)], in: path)
        try card.setSignatureCounter(1)
        try expectGone([Secret(name: "private key", bytes: key)], from: path)
    }
}
