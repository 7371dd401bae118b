#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArculusCard
import COSE
import CardCrypto
import FIDOWire

/// One card the in-process rows run on: near-empty or holding 10,000 discoverable credentials,
/// its memory in the process (`InMemoryStorage`) or in a card image on disk (`CardImageFile`,
/// every change an fdatasync'ed journal append).
final class BenchCard {
    enum Size: String, CaseIterable {
        case nearEmpty = "near-empty"
        case full = "10k creds"
    }

    enum Storage: String, CaseIterable {
        case memory
        case file = "image file"
    }

    let size: Size
    let storage: Storage
    let card: VirtualCard
    /// A non-discoverable credential for the getAssertion rows.
    let credentialId: [UInt8]
    let credentialPublicKey: P256PublicKey
    /// A U2F registration's key handle.
    let u2fKeyHandle: [UInt8]
    /// Set once the PIN rows start (`setPIN`).
    var pinSession: PINProtocolTwoSession?

    var label: String { "\(size.rawValue), \(storage.rawValue)" }

    /// Number of discoverable credentials and RPs on the full card.
    static let fullCredentialCount = 10_000
    static let fullRPCount = 1_000

    /// The RP IDs the full card's credentials use, and the discoverable makeCredential rows cycle over.
    static func rpId(_ index: Int) -> String { "rp\(index % fullRPCount).example.com" }

    /// The profile of every benchmark card: the default FIDO 2.1 profile with room for
    /// 10,000 credentials plus those the discoverable makeCredential rows add (the built-in
    /// capacity is an assumption of 50; see README).
    static let profile: CardProfile = {
        var profile = CardProfile.default
        profile.residentKeyCapacity = 1_000_000
        return profile
    }()

    init(size: Size, storage: Storage, directory: String) throws {
        self.size = size
        self.storage = storage
        let cardStorage: CardStorage
        switch storage {
        case .memory:
            cardStorage = InMemoryStorage()
        case .file:
            let path = "\(directory)/\(size == .full ? "full" : "near-empty").img"
            unlink(path)
            cardStorage = try CardImageFile(path: path)
        }
        if size == .full {
            try cardStorage.save(Self.fullState())
        }
        card = try VirtualCard(profile: Self.profile, storage: cardStorage)
        guard size != .full || card.credentials.count == Self.fullCredentialCount else {
            throw BenchError("the full card holds \(card.credentials.count) credentials")
        }

        // A non-discoverable credential, checked once: its assertion verifies with its key.
        let made = try Platform.body(
            of: card.ctap2(Platform.makeCredential(clientDataHash: SecureRandom.bytes(32), userId: SecureRandom.bytes(16),
                                                   discoverable: false)),
            "makeCredential")
        guard let authData = made[int: 0x02]?.bytesValue, authData.count > 55 else {
            throw BenchError("makeCredential answered no authenticator data")
        }
        let idLength = Int(authData[53]) << 8 | Int(authData[54])
        credentialId = Array(authData[55..<(55 + idLength)])
        let cose = try CBORDecoder.decodePrefix(authData[(55 + idLength)...]).value
        guard let key = try? COSEPublicKey(cbor: cose) else {
            throw BenchError("makeCredential answered no credential public key")
        }
        credentialPublicKey = key.publicKey
        let clientDataHash = SecureRandom.bytes(32)
        let assertion = try Platform.body(
            of: card.ctap2(Platform.getAssertion(clientDataHash: clientDataHash, credentialId: credentialId)),
            "getAssertion")
        guard let signedData = assertion[int: 0x02]?.bytesValue, let signature = assertion[int: 0x03]?.bytesValue,
              credentialPublicKey.isValidSignature(signature, for: signedData + clientDataHash) else {
            throw BenchError("the card's assertion does not verify")
        }

        let application = SHA256.hash(Array(Platform.rpId.utf8))
        guard case .success(let registration) = card.u2fRegister(
            challenge: SecureRandom.bytes(32), application: application), registration.count > 67 else {
            throw BenchError("U2F register failed")
        }
        let handleLength = Int(registration[66])
        u2fKeyHandle = Array(registration[67..<(67 + handleLength)])
    }

    /// 10,000 discoverable credentials over 1,000 RPs, built directly (random keys and IDs of
    /// the real sizes), not by 10,000 makeCredentials.
    static func fullState() -> CardState {
        var state = CardState(profile: profile, masterSecret: SecureRandom.bytes(32))
        state.residentCredentials.reserveCapacity(fullCredentialCount)
        let random = SecureRandom.bytes(fullCredentialCount * (80 + 16 + 32))
        var offset = 0
        func take(_ count: Int) -> [UInt8] {
            defer { offset += count }
            return Array(random[offset..<(offset + count)])
        }
        for index in 0..<fullCredentialCount {
            state.residentCredentials.append(ResidentCredential(
                id: [0x01] + take(80), rpId: rpId(index), rpName: "RP \(index % fullRPCount)",
                userId: take(16), userName: "user\(index)@example.com", userDisplayName: "User \(index)",
                privateKey: take(32), credProtect: 1, hmacSecret: false, serial: UInt64(index + 1)))
        }
        state.nextCredentialSerial = UInt64(fullCredentialCount + 1)
        return state
    }

    // MARK: - PIN

    /// Sets the PIN (once, before the PIN rows) and keeps the platform session.
    func setPIN() throws {
        let session = try PINProtocolTwoSession(card: card)
        _ = try Platform.body(of: card.ctap2(try session.setPIN(Platform.pin)), "setPIN")
        pinSession = session
    }
}
