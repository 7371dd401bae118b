import CBOR
import CTAP2
import FIDOWire

/// How long the emulated card takes, roughly as a physical contactless smart card does, so that
/// clients' timeouts, keepalive handling and progress UI run as they would with a real card.
///
/// Off by default: the emulator then answers as fast as it can. With ``realistic``, each APDU
/// costs a few milliseconds and each operation what a secure element typically needs for it
/// (published figures for P-256 on smart-card chips: an ECDSA signature 80–150 ms, key
/// generation 100–300 ms; PIN operations, an ECDH plus AES and a memory write, about 50 ms).
/// The figures are assumptions, not measurements of an Arculus card.
///
/// A CTAP2 message sent with P1 `80` (the client polls NFCCTAP_GETRESPONSE) is answered `9100`
/// — keepalive PROCESSING — until its duration has passed, and runs when a poll finds it done;
/// a cancel before then leaves the card untouched. A message with P1 `00`, and U2F commands,
/// simply take that long to answer.
public struct TimingProfile: Hashable, Sendable, CustomStringConvertible {
    /// The profile's name (`off`, `realistic`).
    public var name: String
    /// Every APDU, whatever it is (transmission and the card's dispatch).
    public var apdu: Duration
    /// One ECDSA P-256 signature.
    public var signature: Duration
    /// Generating one P-256 key pair.
    public var keyGeneration: Duration
    /// A PIN operation: ECDH with the platform key, AES, the PIN check and its retry-counter write.
    public var pinOperation: Duration
    /// A credential-management or other storage-bound operation.
    public var storageAccess: Duration
    /// authenticatorReset: erasing the credential store and drawing a new master secret.
    public var erase: Duration

    /// A profile with every duration given.
    public init(name: String, apdu: Duration, signature: Duration, keyGeneration: Duration,
                pinOperation: Duration, storageAccess: Duration, erase: Duration) {
        self.name = name
        self.apdu = apdu
        self.signature = signature
        self.keyGeneration = keyGeneration
        self.pinOperation = pinOperation
        self.storageAccess = storageAccess
        self.erase = erase
    }

    /// No simulated time: the default.
    public static let off = TimingProfile(name: "off", apdu: .zero, signature: .zero, keyGeneration: .zero,
                                          pinOperation: .zero, storageAccess: .zero, erase: .zero)

    /// Roughly a physical card: 4 ms per APDU, 110 ms per signature, 200 ms per key generation,
    /// 55 ms per PIN operation, 20 ms per storage operation, 250 ms for a reset. So getAssertion
    /// takes about 110 ms, makeCredential about 310 ms (key generation and attestation signature).
    public static let realistic = TimingProfile(
        name: "realistic", apdu: .milliseconds(4), signature: .milliseconds(110), keyGeneration: .milliseconds(200),
        pinOperation: .milliseconds(55), storageAccess: .milliseconds(20), erase: .milliseconds(250))

    /// The built-in profiles.
    public static let builtIn: [TimingProfile] = [off, realistic]

    /// The built-in profile called `name`, or nil.
    public static func named(_ name: String) -> TimingProfile? {
        builtIn.first { $0.name == name.lowercased() }
    }

    /// Whether this profile adds no time at all.
    public var isOff: Bool {
        // Read for every APDU: the durations one by one, with no array built for them.
        let none = { (duration: Duration) in duration == .zero }
        return none(apdu) && none(signature) && none(keyGeneration) && none(pinOperation) && none(storageAccess)
            && none(erase)
    }

    /// How long `command` takes to run, beyond the per-APDU time. `request` is the CTAP request
    /// (command byte + CBOR) for a CTAP2 command.
    public func duration(of command: CardCommand, request: ArraySlice<UInt8>) -> Duration {
        switch command {
        case .select, .apdu: return .zero
        case .u2fRegister: return keyGeneration + signature
        case .u2fAuthenticate: return signature
        case .ctap(let byte):
            switch CTAPCommand(rawValue: byte) {
            case .makeCredential: return keyGeneration + signature
            case .getAssertion, .getNextAssertion: return signature
            case .clientPIN: return clientPINDuration(request)
            case .reset: return erase
            case .credentialManagement, .credentialManagementPreview: return storageAccess
            default: return .zero
            }
        }
    }

    /// getPINRetries reads a counter; every other subcommand does ECDH and crypto.
    private func clientPINDuration(_ request: ArraySlice<UInt8>) -> Duration {
        let parameters = (try? CBORDecoder.decode(Array(request.dropFirst())))?.mapValue
        return parameters?[int: 2]?.intValue == 1 ? .zero : pinOperation
    }

    public var description: String {
        isOff ? "\(name) (no simulated time)"
            : "\(name) (APDU \(apdu), signature \(signature), key generation \(keyGeneration), PIN \(pinOperation))"
    }
}
