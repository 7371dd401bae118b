#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArculusCard
import CTAP2
import CardCrypto
import FIDOWire
import JSONSupport

extension ControlResponse {
    /// `details`: everything a person looking at the card may see (the card page shows it) and
    /// nothing secret — no PIN, key, token, hmac-secret or largeBlobKey, not even a private key
    /// the card holds (`credentials.list` gives those).
    public struct Details: Sendable {
        /// The `status` answer.
        public var status: Status
        /// getInfo's identity and options, the PIN policy and the live pinUvAuthToken.
        public var overview: AuthenticatorOverview
        /// The discoverable credentials, oldest first.
        public var credentials: [Credential]
        /// The faults held, and the log of each time one acted.
        public var faults: [InjectedFault]
        public var faultLog: [FaultLogEntry]
        /// The card image, nil for a card in memory.
        public var image: Image?
        /// Writes that failed (the last 100 are kept).
        public var writeFailures: Int

        /// A discoverable credential as a person sees it.
        public struct Credential: Sendable {
            public var id: [UInt8]
            public var rpId: String
            public var rpName: String?
            public var userId: [UInt8]
            public var userName: String?
            public var userDisplayName: String?
            public var algorithm: Int
            public var credProtect: UInt8
            public var hmacSecret: Bool
            /// Whether it has a largeBlobKey (the key itself is never shown).
            public var largeBlob: Bool
            public var credBlob: Bool
            /// Its place in the order the card made its credentials (the card keeps no dates).
            public var created: UInt64
        }

        /// The card image file.
        public struct Image: Sendable {
            public var path: String
            public var size: Int?
            /// When it was last written, in seconds since 1970; nil when it cannot be read.
            public var lastWritten: Double?
        }

        /// The details of `card`, on the reader behind `bridge` if any.
        public init(card: VirtualCard, bridge: VPCDBridge?) {
            status = Status(card: card, bridge: bridge)
            overview = card.authenticator.overview(at: card.clock())
            credentials = card.credentials.map { credential in
                Credential(id: credential.id, rpId: credential.rpId, rpName: credential.rpName, userId: credential.userId,
                           userName: credential.userName, userDisplayName: credential.userDisplayName,
                           algorithm: credential.algorithm, credProtect: credential.credProtect, hmacSecret: credential.hmacSecret,
                           largeBlob: credential.largeBlobKey != nil, credBlob: credential.credBlob != nil, created: credential.serial)
            }
            faults = card.control.faults
            faultLog = card.control.log
            writeFailures = card.writeFailures.count
            image = (card.storage as? CardImageFile).map { file in
                var raw = stat()
                guard stat(file.path, &raw) == 0 else { return Image(path: file.path, size: nil, lastWritten: nil) }
                #if canImport(Glibc)
                let modified = Double(raw.st_mtim.tv_sec) + Double(raw.st_mtim.tv_nsec) / 1e9
                #else
                let modified = Double(raw.st_mtimespec.tv_sec) + Double(raw.st_mtimespec.tv_nsec) / 1e9
                #endif
                return Image(path: file.path, size: Int(raw.st_size), lastWritten: modified)
            }
        }

        /// The answer's members: `status` (the `status` answer's members), `info` (`aaguid`,
        /// `versions`, `extensions`, `options`, `forcePINChange`, `minPINLength`,
        /// `remainingDiscoverableCredentials`), `token` (`permissions`, `rpId`, `userPresent`,
        /// `userVerified`, `used`, `expiresInSeconds`; null when none is in use), `credentials`,
        /// `faults`, `faultLog`, `image` (`path`, `size`, `lastWritten`; null in memory),
        /// `writeFailures`.
        var members: [String: JSONValue] {
            let info: JSONValue = [
                "aaguid": .string(overview.aaguid), "versions": .array(overview.versions.map(JSONValue.string)),
                "extensions": .array(overview.extensions.map(JSONValue.string)),
                "options": .array(overview.options.map { ["name": .string($0.name), "value": .bool($0.value)] }),
                "forcePINChange": .bool(overview.forcePINChange), "minPINLength": .int(overview.minPINLength),
                "remainingDiscoverableCredentials": .int(overview.remainingDiscoverableCredentials),
            ]
            let token: JSONValue = overview.token.map { token in
                ["permissions": .array(token.permissions.map(JSONValue.string)), "rpId": .optional(token.rpId),
                 "userPresent": .bool(token.userPresent), "userVerified": .bool(token.userVerified), "used": .bool(token.used),
                 "expiresInSeconds": .number(ControlRequest.seconds(token.expiresIn))]
            } ?? .null
            let faultMembers = ControlResponse.faults(faults, log: faultLog).members
            return [
                "status": .object(ControlResponse.status(status).members), "info": info, "token": token,
                "credentials": .array(credentials.map(\.json)), "faults": faultMembers["faults"] ?? .array([]),
                "faultLog": faultMembers["log"] ?? .array([]),
                "image": image.map { ["path": .string($0.path), "size": $0.size.map { .int($0) } ?? .null, "lastWritten": $0.lastWritten.map(JSONValue.number) ?? .null] } ?? .null,
                "writeFailures": .int(writeFailures),
            ]
        }
    }
}

extension ControlResponse.Details.Credential {
    /// `id` (base64url), `idHex`, `rpId`, `rpName`, `userId` (base64url), `userName`,
    /// `userDisplayName`, `algorithm`, `algorithmName`, `credProtect`, `hmacSecret`, `largeBlob`,
    /// `credBlob`, `created`.
    var json: JSONValue {
        ["id": .string(Base64URL.encode(id)), "idHex": .string(id.hexString), "rpId": .string(rpId), "rpName": .optional(rpName),
         "userId": .string(Base64URL.encode(userId)), "userName": .optional(userName), "userDisplayName": .optional(userDisplayName),
         "algorithm": .int(algorithm), "algorithmName": .string(SignatureAlgorithm(rawValue: algorithm)?.name ?? "COSE \(algorithm)"),
         "credProtect": .int(credProtect), "hmacSecret": .bool(hmacSecret), "largeBlob": .bool(largeBlob), "credBlob": .bool(credBlob),
         "created": .int(Int(created))]
    }
}
