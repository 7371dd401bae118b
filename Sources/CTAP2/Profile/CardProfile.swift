import Foundation
import FIDOWire

/// A card model: what the card reports (getInfo, SELECT answer, ATR) and its limits.
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
    /// getInfo `versions`, e.g. `["U2F_V2", "FIDO_2_0", "FIDO_2_1"]`.
    public var versions: [String]
    /// getInfo `extensions` the card implements (of `credProtect`, `hmac-secret`).
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
    public var transports: [String]
    /// COSE algorithm identifiers; only -7 (ES256) is implemented.
    public var algorithms: [Int]
    public var firmwareVersion: Int
    /// Minimum PIN length in Unicode code points.
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

    /// Attestation statement formats the card can produce (WebAuthn §8).
    public enum AttestationFormat: String, Codable, Sendable {
        case packed
        case `self`
        case none
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
    public var supportsHMACSecret: Bool { extensions.contains("hmac-secret") }
    public var supportsCredProtect: Bool { extensions.contains("credProtect") }

    /// Checks the values the authenticator relies on, naming the first bad one.
    public func validate() throws(ProfileError) {
        _ = try aaguidBytes
        _ = try atrBytes
        guard supportsCTAP2 || supportsU2F else { throw .invalid(name, "versions lists no supported protocol") }
        guard !pinUvAuthProtocols.isEmpty, pinUvAuthProtocols.allSatisfy({ $0 == 1 || $0 == 2 }) else {
            throw .invalid(name, "pinUvAuthProtocols must list 1 and/or 2")
        }
        guard algorithms.contains(-7) else { throw .invalid(name, "algorithms must contain -7 (ES256)") }
        guard maxMsgSize >= 1024 else { throw .invalid(name, "maxMsgSize must be at least 1024") }
        guard minPINLength >= 4, minPINLength <= 63 else { throw .invalid(name, "minPINLength must be 4...63") }
        guard residentKeyCapacity >= 0 else { throw .invalid(name, "residentKeyCapacity must not be negative") }
        guard selectResponse == "FIDO_2_0" || selectResponse == "U2F_V2" else {
            throw .invalid(name, "selectResponse must be FIDO_2_0 or U2F_V2")
        }
    }
}

/// A profile that cannot be used, with what is wrong.
public enum ProfileError: Error, CustomStringConvertible, Equatable {
    case unknown(String)
    case unreadable(path: String, reason: String)
    case invalid(String, String)

    public var description: String {
        switch self {
        case .unknown(let name):
            "unknown profile '\(name)': use one of \(CardProfile.builtIn.map(\.name).joined(separator: ", ")) or a path to a profile JSON file"
        case .unreadable(let path, let reason):
            "cannot read profile \(path): \(reason)"
        case .invalid(let name, let reason):
            "profile \(name) is invalid: \(reason)"
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

    /// Loads and validates a profile JSON file.
    public static func load(path: String) throws(ProfileError) -> CardProfile {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable(path: path, reason: "\(error.localizedDescription)")
        }
        let profile: CardProfile
        do {
            profile = try JSONDecoder().decode(CardProfile.self, from: data)
        } catch {
            throw .unreadable(path: path, reason: "not a card profile: \(error)")
        }
        try profile.validate()
        return profile
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
