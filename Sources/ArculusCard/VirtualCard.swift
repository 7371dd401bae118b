@_exported import CBOR
@_exported import CTAP2
@_exported import ISO7816
import FIDOWire

/// An emulated Arculus FIDO2 card: a profile, its non-volatile memory and the ISO 7816 front.
///
/// The in-process API tests start from:
/// ```swift
/// let card = try VirtualCard()                                   // blank FIDO 2.1 card in memory
/// let info = card.send(.getInfo)                                 // typed CTAP2
/// let raw = card.transmit([0x00, 0xA4, 0x04, 0x00, 0x08] + NFCBinding.fidoAID)  // APDUs
/// card.powerOff(); card.powerOn()                                // take it off the reader and tap again
/// ```
/// Not thread-safe; use one card from one thread at a time.
public final class VirtualCard {
    /// The card model.
    public var profile: CardProfile { authenticator.profile }
    /// The CTAP2 authenticator (state inspection, user-presence hook).
    public let authenticator: Authenticator
    /// The ISO 7816 / NFC front that APDUs go through.
    public let front: CardFront
    /// The ATR the card presents on a reader.
    public let atr: [UInt8]
    /// Test-double controls: injected faults, the fault log, timing, field presence.
    public let control = CardControl()
    private let applet: AuthenticatorApplet

    /// A card over any storage; `profile` is used when the storage is blank. `entropy: .seeded(…)`
    /// makes a deterministic card (reproducible responses, for tests and transcripts).
    public init(profile: CardProfile, storage: CardStorage, frontOptions: CardFront.Options = .init(),
                entropy: CardEntropy = .system) throws {
        let stored = try storage.load()
        if let stored, stored.profile.name != profile.name {
            throw CardImageError(path: (storage as? CardImageFile)?.path ?? "(in memory)",
                                 reason: .profileMismatch(image: stored.profile.name, requested: profile.name))
        }
        let effective = stored?.profile ?? profile
        authenticator = try Authenticator(profile: effective, storage: storage,
                                          attestation: try AttestationIdentity.emulator(for: effective),
                                          entropy: entropy)
        atr = try effective.atrBytes
        applet = AuthenticatorApplet(authenticator: authenticator)
        front = CardFront(applet: applet, options: frontOptions)
        control.attach(front: front, authenticator: authenticator)
        front.powerOn()
    }

    /// A blank card in memory.
    public convenience init(profile: CardProfile = .default, frontOptions: CardFront.Options = .init(),
                            entropy: CardEntropy = .system) throws {
        try self.init(profile: profile, storage: InMemoryStorage(), frontOptions: frontOptions, entropy: entropy)
    }

    /// The card whose image is at `path`, created from `profile` (default: the FIDO 2.1 card) if
    /// the file does not exist. Passing a profile for an existing image checks that it matches;
    /// passing nil takes the image's own profile. The image stays locked while the card exists.
    public convenience init(imageAt path: String, profile: CardProfile? = nil, frontOptions: CardFront.Options = .init(),
                            entropy: CardEntropy = .system) throws {
        let storage = try CardImageFile(path: path)
        let stored = try storage.load()
        try self.init(profile: profile ?? stored?.profile ?? .default, storage: storage, frontOptions: frontOptions,
                      entropy: entropy)
    }

    // MARK: - Power

    /// The card enters the field.
    public func powerOn() {
        control.powerChanged()
        front.powerOn()
        authenticator.powerOn()
    }

    /// The card leaves the field: everything volatile is lost.
    public func powerOff() {
        control.powerChanged()
        front.powerOff()
    }

    /// Off and on again, as when a card is taken away and tapped.
    public func powerCycle() {
        powerOff()
        powerOn()
    }

    // MARK: - Commands

    /// One command APDU in, the response APDU (data + SW1 SW2) out; empty when the card left the
    /// field instead of answering (see ``CardRemovedError``).
    public func transmit(_ apdu: [UInt8]) -> [UInt8] {
        control.transmit(apdu, through: front)
    }

    /// One raw CTAP2 request (command byte + CBOR) straight to the authenticator, bypassing the
    /// ISO 7816 front; returns status byte + CBOR.
    public func ctap2(_ request: [UInt8]) -> [UInt8] {
        authenticator.process(request)
    }

    /// A typed CTAP2 request.
    public func send(_ command: CTAPCommand, _ parameters: CBORMap? = nil) -> CTAPResponse {
        var request: [UInt8] = [command.rawValue]
        if let parameters { request += CBOREncoder.encode(.map(parameters)) }
        return CTAPResponse(bytes: authenticator.process(request))
    }

    // MARK: - Inspection

    /// The discoverable credentials on the card, oldest first.
    public var credentials: [ResidentCredential] { authenticator.state.residentCredentials }

    /// Whether a PIN is set, and how many attempts remain.
    public var pinState: PINState {
        PINState(isSet: authenticator.state.isPINSet, retries: authenticator.state.pinRetries,
                 signatureCounter: authenticator.state.signatureCounter)
    }
}

/// What a test can read of the card's PIN state.
public struct PINState: Equatable, Sendable {
    public var isSet: Bool
    public var retries: Int
    public var signatureCounter: UInt32
}

/// A CTAP2 response split into status and decoded body.
public struct CTAPResponse: Sendable {
    /// The raw response (status byte + CBOR).
    public let bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }

    /// The status, or nil for a status byte this build does not know.
    public var status: CTAPStatus? { bytes.first.flatMap(CTAPStatus.init(rawValue:)) }

    /// The CBOR body, nil when empty or not CBOR.
    public var body: CBORValue? {
        guard bytes.count > 1 else { return nil }
        return try? CBORDecoder.decode(Array(bytes.dropFirst()))
    }

    /// The body's map, or an empty map.
    public var map: CBORMap { body?.mapValue ?? CBORMap() }
}
