import Foundation
import FIDOWire
import POSIXSupport

/// A kind of card (a product such as the Arculus FIDO 2.1 Key Card): what the card reports
/// (getInfo, SELECT answer, ATR), its limits and the features it has. Not ``CardModel``, the
/// state machine that runs one card.
///
/// Profiles are JSON files (see `Fixtures/profiles/`) that a user can copy and edit to mimic a
/// card they own without recompiling. Field names follow the CTAP 2.1 getInfo member names where
/// one exists. Which values are published facts and which are assumptions is listed in the README.
public struct CardProfile: Codable, Sendable, Equatable {
    /// Short identifier used on the command line, e.g. `arculus-fido21`.
    public var name: String
    /// Human-readable model name, e.g. "Arculus FIDO 2.1 Key Card".
    public var description: String
    /// The AAGUID in its canonical textual form (8-4-4-4-12 hex digits).
    public var aaguid: String
    /// getInfo `versions`: of `U2F_V2`, `FIDO_2_0`, `FIDO_2_1_PRE`, `FIDO_2_1`. Without `FIDO_2_1`
    /// the card behaves as a CTAP 2.0 authenticator.
    public var versions: [String]
    /// getInfo `extensions` (see ``implementedExtensions``), as a profile file or a card's getInfo
    /// names them: text, since either may name an extension this build does not have (which
    /// ``validate()`` turns away, naming it, and a capture drops). What the card does with them
    /// asks ``offers(_:)`` by ``ExtensionIdentifier``.
    public var extensions: [String]
    /// PIN/UV auth protocols in order of preference (getInfo `pinUvAuthProtocols`).
    public var pinUvAuthProtocols: [Int]
    /// Whether authenticatorCredentialManagement (0x0A) exists (getInfo option `credMgmt`).
    public var credentialManagement: Bool
    /// Whether getPinUvAuthTokenUsingPinWithPermissions exists (getInfo option `pinUvAuthToken`).
    public var pinUvAuthToken: Bool
    /// getInfo option `makeCredUvNotRqd`: non-discoverable credentials need no PIN even when one is set.
    public var makeCredUvNotRqd: Bool
    public var maxMsgSize: Int
    public var maxCredentialCountInList: Int
    public var maxCredentialIdLength: Int
    /// getInfo `transports`: `nfc` (the only transport this card has).
    public var transports: [String]
    /// COSE algorithm identifiers, in the card's order of preference (see ``implementedAlgorithms``).
    public var algorithms: [Int]
    public var firmwareVersion: Int
    /// Minimum PIN length in Unicode code points (authenticatorConfig may raise it).
    public var minPINLength: Int
    /// How many discoverable credentials fit on the card.
    public var residentKeyCapacity: Int
    /// Seconds after power-up during which authenticatorReset is allowed (CTAP 2.1 §6.6); `null` for always.
    public var resetWindowSeconds: Double?
    /// The SELECT answer (ASCII), `FIDO_2_0` or `U2F_V2`.
    public var selectResponse: String
    /// The ATR in hex, as a PC/SC reader reports it.
    public var atr: String
    /// `packed` (x5c batch certificate), `self` or `none`.
    public var attestation: AttestationFormat

    // MARK: Features a card may have (all off unless a profile turns them on)

    /// authenticatorConfig (0x0D) with the `acfg` permission (getInfo option `authnrCfg`).
    public var authenticatorConfig: Bool = false
    /// The alwaysUv feature and its state on a new card: nil for no such feature, else the
    /// initial value of getInfo option `alwaysUv` (toggleAlwaysUv flips it).
    public var alwaysUv: Bool? = nil
    /// authenticatorConfig's setMinPINLength (getInfo option `setMinPINLength`).
    public var setMinPINLength: Bool = false
    /// How many RP IDs setMinPINLength's minPinLengthRPIDs may name (getInfo 0x10).
    public var maxRPIDsForSetMinPINLength: Int = 0
    /// RP IDs the minPinLength extension always answers (a vendor's pre-configured list).
    public var minPinLengthRPIDs: [String] = []
    /// The longest PIN in code points (getInfo 0x1D, CTAP 2.2); at most 63.
    public var maxPINLength: Int = 63
    /// Enterprise attestation (getInfo option `ep`, initially false; enableEnterpriseAttestation).
    public var enterpriseAttestation: Bool = false
    /// RP IDs that get vendor-facilitated enterprise attestation (enterpriseAttestation = 1).
    public var enterpriseAttestationRPIDs: [String] = []
    /// authenticatorLargeBlobs (0x0C) and the `lbw` permission (getInfo option `largeBlobs`).
    public var largeBlobs: Bool = false
    /// The size of the serialized large-blob array the card keeps (getInfo 0x0B), ≥ 1024.
    public var maxSerializedLargeBlobArray: Int = 0
    /// The longest credBlob (getInfo 0x0F), ≥ 32 with the credBlob extension.
    public var maxCredBlobLength: Int = 0
    /// authenticatorCredentialManagement as FIDO_2_1_PRE numbers it (0x41, option `credentialMgmtPreview`).
    public var credentialManagementPreview: Bool = false
    /// The persistent pinUvAuthToken for read-only credential management (CTAP 2.2 `pcmr`,
    /// getInfo option `perCredMgmtRO`, encIdentifier and encCredStoreState).
    public var persistentCredentialManagement: Bool = false
    /// How far ahead the signature counter is made durable: after a crash the counter jumps
    /// by at most this much, and an assertion touches the card image once per this many.
    public var signatureCounterReservation: Int = 1

    // MARK: Behaviour where the text leaves room, and departures from it (see ``switches``)

    /// The choices this card makes where CTAP and ISO 7816 leave room (JSON object `behaviour`).
    public var behaviour = CardBehaviour()
    /// Where this card breaks a rule of the text (JSON object `departures`; all off in the built-ins).
    public var departures = CardDepartures()

    /// Attestation statement formats the card can produce (WebAuthn §8).
    public enum AttestationFormat: String, Codable, Sendable {
        case packed
        case `self`
        case none
    }

    /// A profile with every required field; the optional features are off.
    public init(name: String, description: String, aaguid: String, versions: [String], extensions: [ExtensionIdentifier],
                pinUvAuthProtocols: [Int], credentialManagement: Bool, pinUvAuthToken: Bool, makeCredUvNotRqd: Bool,
                maxMsgSize: Int, maxCredentialCountInList: Int, maxCredentialIdLength: Int, transports: [String],
                algorithms: [Int], firmwareVersion: Int, minPINLength: Int, residentKeyCapacity: Int,
                resetWindowSeconds: Double?, selectResponse: String, atr: String, attestation: AttestationFormat) {
        self.name = name
        self.description = description
        self.aaguid = aaguid
        self.versions = versions
        self.extensions = extensions.map(\.rawValue)
        self.pinUvAuthProtocols = pinUvAuthProtocols
        self.credentialManagement = credentialManagement
        self.pinUvAuthToken = pinUvAuthToken
        self.makeCredUvNotRqd = makeCredUvNotRqd
        self.maxMsgSize = maxMsgSize
        self.maxCredentialCountInList = maxCredentialCountInList
        self.maxCredentialIdLength = maxCredentialIdLength
        self.transports = transports
        self.algorithms = algorithms
        self.firmwareVersion = firmwareVersion
        self.minPINLength = minPINLength
        self.residentKeyCapacity = residentKeyCapacity
        self.resetWindowSeconds = resetWindowSeconds
        self.selectResponse = selectResponse
        self.atr = atr
        self.attestation = attestation
    }

    /// The 16 AAGUID bytes.
    public var aaguidBytes: [UInt8] {
        get throws(ProfileError) {
            // Pure Swift: this runs for every getInfo and makeCredential, and Foundation's
            // replacingOccurrences bridges through NSString (several µs).
            let hex = aaguid.filter { $0 != "-" }
            guard let bytes = [UInt8](hex: hex), bytes.count == 16 else {
                throw ProfileError.invalid(name, "aaguid \(aaguid) is not 16 hex bytes")
            }
            return bytes
        }
    }

    /// The ATR bytes.
    public var atrBytes: [UInt8] {
        get throws(ProfileError) {
            guard let bytes = [UInt8](hex: atr.filter { $0 != " " }), !bytes.isEmpty,
                  bytes.count <= 33 else {
                throw ProfileError.invalid(name, "atr \(atr) is not 1 to 33 hex bytes")
            }
            return bytes
        }
    }

    public var supportsCTAP21: Bool { versions.contains("FIDO_2_1") }
    public var supportsCTAP2: Bool { versions.contains("FIDO_2_0") || supportsCTAP21 }
    public var supportsU2F: Bool { versions.contains("U2F_V2") }
    public var supportsHMACSecret: Bool { offers(.hmacSecret) }
    public var supportsCredProtect: Bool { offers(.credProtect) }
    /// Whether the card offers `extension`.
    public func offers(_ extension: ExtensionIdentifier) -> Bool { offers(`extension`.rawValue) }
    /// Whether the card offers the extension named `name` (a request's or a file's text).
    public func offers(_ name: String) -> Bool { extensions.contains(name) }
}

/// A profile that cannot be used, with what is wrong.
public enum ProfileError: Error, CustomStringConvertible, Equatable {
    case unknown(String)
    case unreadable(path: String, reason: String)
    case invalid(String, String)

    /// The name, the reason and what they quote of the file are escaped (``DisplayText``): a
    /// profile file's strings are whoever wrote it's.
    public var description: String {
        switch self {
        case .unknown(let name):
            "unknown profile '\(DisplayText.escaped(name))': use one of \(CardProfile.builtIn.map(\.name).joined(separator: ", ")) or a path to a profile JSON file"
        case .unreadable(let path, let reason):
            "cannot read profile \(DisplayText.escaped(path)): \(DisplayText.escaped(reason))"
        case .invalid(let name, let reason):
            "profile \(DisplayText.escaped(name)) is invalid: \(DisplayText.escaped(reason))"
        }
    }
}

extension CardProfile {
    /// A built-in profile by name, or a profile JSON file by path.
    public static func named(_ nameOrPath: String) throws(ProfileError) -> CardProfile {
        if let profile = builtIn.first(where: { $0.name == nameOrPath }) { return profile }
        guard nameOrPath.contains("/") || nameOrPath.hasSuffix(".json") else { throw .unknown(nameOrPath) }
        return try load(path: nameOrPath)
    }

    /// Loads and validates a profile JSON file. Its errors name the file (an edited copy of a
    /// built-in profile keeps the built-in's `name`, which would point at the wrong file) and say
    /// what is wrong in the file's terms: the member, never a decoder's internals.
    public static func load(path: String) throws(ProfileError) -> CardProfile {
        let bytes: [UInt8]
        do {
            bytes = try InputFile.read(path, limit: 16 << 20)
        } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        let profile: CardProfile
        do {
            profile = try JSONDecoder().decode(CardProfile.self, from: Data(bytes))
        } catch let error as ProfileSwitchError {
            throw .unreadable(path: path, reason: error.description)
        } catch let error as DecodingError {
            throw .unreadable(path: path, reason: "not a card profile: \(Self.describe(error))")
        } catch {
            throw .unreadable(path: path, reason: "not a card profile: \(error)")
        }
        do {
            try profile.validate()
        } catch {
            guard case .invalid(let name, let reason) = error else { throw error }
            throw .invalid(name == path ? path : "\(path) (named '\(name)')", reason)
        }
        return profile
    }

    /// A JSON decoding error in the words of the profile's members: `the member
    /// "attestation" is missing`, `"maxMsgSize" is not a whole number`, `it is not JSON`.
    static func describe(_ error: DecodingError) -> String {
        func member(_ path: [any CodingKey]) -> String {
            path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().drop { $0 == "." }.description
        }
        switch error {
        case .keyNotFound(let key, let context):
            let whole = context.codingPath + [key]
            return "the member \"\(member(whole))\" is missing"
        case .valueNotFound(let type, let context):
            return "\"\(member(context.codingPath))\" is null, where \(Self.kind(type)) belongs"
        case .typeMismatch(let type, let context):
            guard !context.codingPath.isEmpty else { return "it is JSON, but not an object of profile members" }
            return "\"\(member(context.codingPath))\" is not \(Self.kind(type))"
        case .dataCorrupted(let context):
            guard !context.codingPath.isEmpty else { return "it is not JSON (an empty or cut-short file, or another kind of file?)" }
            return "\"\(member(context.codingPath))\" has a value it may not have"
        @unknown default:
            return "it is not a profile JSON object"
        }
    }

    /// `a whole number`, `text`, … for a decoded type.
    private static func kind(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "text"
        case is Int.Type: "a whole number"
        case is Double.Type: "a number"
        case is Bool.Type: "true or false"
        case is [String].Type: "a list of text"
        case is [Int].Type: "a list of whole numbers"
        default: type is any Collection.Type ? "a list" : "an object"
        }
    }

    /// The profile as pretty-printed JSON with sorted keys (the format of `Fixtures/profiles/`).
    public func jsonData() -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding a value made only of strings, numbers and arrays cannot fail.
        guard let data = try? encoder.encode(self) else { preconditionFailure("profile did not encode") }
        return data + Data("\n".utf8)
    }
}
