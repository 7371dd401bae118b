import CTAP2
import CardCrypto
import CBOR
import Foundation
import FIDOWire

/// The card state as CBOR, the payload of a card image. Text keys so that a dump stays readable;
/// unknown keys are ignored so that later versions can add fields.
extension CardState {
    func encoded() -> [UInt8] {
        var map: CBORMap = [:]
        map["profile"] = .bytes(Array(profile.jsonData()))
        map["masterSecret"] = .bytes(masterSecret)
        map["pinHash"] = pinHash.map { .bytes($0) } ?? .null
        map["pinCodePoints"] = .int(pinCodePoints)
        map["pinRetries"] = .int(pinRetries)
        map["signatureCounter"] = .unsigned(UInt64(signatureCounter))
        map["nextCredentialSerial"] = .unsigned(nextCredentialSerial)
        map["residentCredentials"] = .array(residentCredentials.map { $0.encoded() })
        // CTAP 2.1 settings: written only when they differ from a new card's, so that an image
        // of a card that never used them reads the same as before they existed.
        if let minPINLength { map["minPINLength"] = .int(minPINLength) }
        if !minPinLengthRPIDs.isEmpty { map["minPinLengthRPIDs"] = .array(minPinLengthRPIDs.map { .text($0) }) }
        if forcePINChange { map["forcePINChange"] = .bool(true) }
        if alwaysUv != (profile.alwaysUv ?? false) { map["alwaysUv"] = .bool(alwaysUv) }
        if enterpriseAttestationEnabled { map["enterpriseAttestation"] = .bool(true) }
        if largeBlobArray != Self.emptyLargeBlobArray { map["largeBlobArray"] = .bytes(largeBlobArray) }
        if let persistentToken { map["persistentToken"] = .bytes(persistentToken) }
        if credentialStoreVersion != 0 { map["credentialStoreVersion"] = .unsigned(credentialStoreVersion) }
        return CBOREncoder.encode(.map(map))
    }

    init(decoding bytes: ArraySlice<UInt8>) throws(CardImageError.Reason) {
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(bytes)
        } catch {
            throw .malformed("payload is not CBOR: \(error)")
        }
        guard let map = value.mapValue else { throw .malformed("payload is not a map") }
        func field(_ name: String) throws(CardImageError.Reason) -> CBORValue {
            guard let value = map[text: name] else { throw .malformed("missing \(name)") }
            return value
        }
        guard let profileJSON = try field("profile").bytesValue,
              let profile = try? JSONDecoder().decode(CardProfile.self, from: Data(profileJSON)) else {
            throw .malformed("profile is not a card profile")
        }
        guard let masterSecret = try field("masterSecret").bytesValue, masterSecret.count == 32 else {
            throw .malformed("masterSecret is not 32 bytes")
        }
        self.init(profile: profile, masterSecret: masterSecret)
        switch try field("pinHash") {
        case .null: pinHash = nil
        case .bytes(let hash) where hash.count == 16: pinHash = hash
        default: throw .malformed("pinHash is not 16 bytes or null")
        }
        guard let codePoints = try field("pinCodePoints").intValue,
              let retries = try field("pinRetries").intValue, (0...Self.maximumPINRetries).contains(retries),
              let counter = try field("signatureCounter").uint64Value, counter <= UInt64(UInt32.max),
              let serial = try field("nextCredentialSerial").uint64Value,
              let credentials = try field("residentCredentials").arrayValue else {
            throw .malformed("PIN state, counter or credential list has the wrong type")
        }
        pinCodePoints = codePoints
        pinRetries = retries
        signatureCounter = UInt32(counter)
        nextCredentialSerial = serial
        residentCredentials = []
        residentCredentials.reserveCapacity(credentials.count)
        for credential in credentials {
            residentCredentials.append(try ResidentCredential(decoding: credential))
        }
        try decodeSettings(map)
    }

    /// The CTAP 2.1 settings, each absent on a card that never changed it.
    private mutating func decodeSettings(_ map: CBORMap) throws(CardImageError.Reason) {
        if let value = map[text: "minPINLength"] {
            guard let length = value.intValue, (4...63).contains(length) else { throw .malformed("minPINLength is not 4...63") }
            minPINLength = length
        }
        if let value = map[text: "minPinLengthRPIDs"] {
            guard let ids = value.arrayValue?.compactMap(\.textValue), ids.count == value.arrayValue?.count else {
                throw .malformed("minPinLengthRPIDs is not a list of text")
            }
            minPinLengthRPIDs = ids
        }
        func flag(_ name: String) throws(CardImageError.Reason) -> Bool? {
            guard let value = map[text: name] else { return nil }
            guard let flag = value.boolValue else { throw .malformed("\(name) is not a boolean") }
            return flag
        }
        forcePINChange = try flag("forcePINChange") ?? false
        alwaysUv = try flag("alwaysUv") ?? alwaysUv
        enterpriseAttestationEnabled = try flag("enterpriseAttestation") ?? false
        if let value = map[text: "largeBlobArray"] {
            guard let array = value.bytesValue, array.count >= 17 else { throw .malformed("largeBlobArray is not a serialized array") }
            largeBlobArray = array
        }
        if let value = map[text: "persistentToken"] {
            guard let token = value.bytesValue, token.count == 32 else { throw .malformed("persistentToken is not 32 bytes") }
            persistentToken = token
        }
        if let value = map[text: "credentialStoreVersion"] {
            guard let version = value.uint64Value else { throw .malformed("credentialStoreVersion is not a number") }
            credentialStoreVersion = version
        }
    }
}

extension ResidentCredential {
    func encoded() -> CBORValue {
        var map: CBORMap = [:]
        map["id"] = .bytes(id)
        map["rpId"] = .text(rpId)
        if let rpName { map["rpName"] = .text(rpName) }
        map["userId"] = .bytes(userId)
        if let userName { map["userName"] = .text(userName) }
        if let userDisplayName { map["userDisplayName"] = .text(userDisplayName) }
        map["privateKey"] = .bytes(privateKey)
        map["credProtect"] = .int(Int(credProtect))
        map["hmacSecret"] = .bool(hmacSecret)
        map["serial"] = .unsigned(serial)
        if algorithm != SignatureAlgorithm.es256.rawValue { map["algorithm"] = .int(algorithm) }
        if let credBlob { map["credBlob"] = .bytes(credBlob) }
        if let largeBlobKey { map["largeBlobKey"] = .bytes(largeBlobKey) }
        if thirdPartyPayment { map["thirdPartyPayment"] = .bool(true) }
        return .map(map)
    }

    init(decoding value: CBORValue) throws(CardImageError.Reason) {
        guard let map = value.mapValue,
              let id = map[text: "id"]?.bytesValue,
              let rpId = map[text: "rpId"]?.textValue,
              let userId = map[text: "userId"]?.bytesValue,
              let privateKey = map[text: "privateKey"]?.bytesValue,
              let credProtect = map[text: "credProtect"]?.intValue, (1...3).contains(credProtect),
              let hmacSecret = map[text: "hmacSecret"]?.boolValue,
              let serial = map[text: "serial"]?.uint64Value else {
            throw .malformed("a resident credential is incomplete")
        }
        let algorithmValue = map[text: "algorithm"]?.intValue ?? SignatureAlgorithm.es256.rawValue
        guard let algorithm = SignatureAlgorithm(rawValue: algorithmValue),
              (try? CredentialPrivateKey(algorithm: algorithm, privateKeyBytes: privateKey)) != nil else {
            throw .malformed("a resident credential's key is not a key of algorithm \(algorithmValue)")
        }
        let credBlob = map[text: "credBlob"]?.bytesValue
        let largeBlobKey = map[text: "largeBlobKey"]?.bytesValue
        guard largeBlobKey == nil || largeBlobKey?.count == 32 else { throw .malformed("a largeBlobKey is not 32 bytes") }
        self.init(id: id, rpId: rpId, rpName: map[text: "rpName"]?.textValue, userId: userId,
                  userName: map[text: "userName"]?.textValue,
                  userDisplayName: map[text: "userDisplayName"]?.textValue, algorithm: algorithmValue,
                  privateKey: privateKey, credProtect: UInt8(credProtect), hmacSecret: hmacSecret, serial: serial,
                  credBlob: credBlob, largeBlobKey: largeBlobKey,
                  thirdPartyPayment: map[text: "thirdPartyPayment"]?.boolValue ?? false)
    }
}

extension CardMutation {
    /// CBOR form for journal records: `[kind, fields…]`.
    func encoded() -> CBORValue {
        switch self {
        case .setPIN(let hash, let codePoints):
            return ["pin", .bytes(hash), .int(codePoints)]
        case .clearPIN:
            return ["clearPIN"]
        case .setPINRetries(let retries):
            return ["retries", .int(retries)]
        case .setSignatureCounter(let counter):
            return ["counter", .unsigned(UInt64(counter))]
        case .addCredential(let credential):
            return ["add", credential.encoded()]
        case .removeCredential(let id):
            return ["remove", .bytes(id)]
        case .updateUser(let id, let name, let displayName):
            return ["user", .bytes(id), name.map { .text($0) } ?? .null, displayName.map { .text($0) } ?? .null]
        case .reset(let masterSecret):
            return ["reset", .bytes(masterSecret)]
        case .setPINPolicy(let minimumLength, let rpIDs, let forcePINChange):
            return ["pinPolicy", .int(minimumLength), .array(rpIDs.map { .text($0) }), .bool(forcePINChange)]
        case .setAlwaysUv(let value):
            return ["alwaysUv", .bool(value)]
        case .enableEnterpriseAttestation:
            return ["enterpriseAttestation"]
        case .setLargeBlobArray(let array):
            return ["largeBlobs", .bytes(array)]
        case .setPersistentToken(let token):
            return ["persistentToken", token.map { .bytes($0) } ?? .null]
        }
    }

    init(decoding value: CBORValue) throws(CardImageError.Reason) {
        guard let fields = value.arrayValue, let kind = fields.first?.textValue else {
            throw .malformed("a journal record is not [kind, …]")
        }
        func optionalText(_ value: CBORValue) -> String? { value.textValue }
        switch (kind, fields.count) {
        case ("pin", 3):
            guard let hash = fields[1].bytesValue, hash.count == 16, let codePoints = fields[2].intValue else { break }
            self = .setPIN(hash: hash, codePoints: codePoints)
            return
        case ("clearPIN", 1):
            self = .clearPIN
            return
        case ("retries", 2):
            guard let retries = fields[1].intValue, (0...CardState.maximumPINRetries).contains(retries) else { break }
            self = .setPINRetries(retries)
            return
        case ("counter", 2):
            guard let counter = fields[1].uint64Value, counter <= UInt64(UInt32.max) else { break }
            self = .setSignatureCounter(UInt32(counter))
            return
        case ("add", 2):
            self = .addCredential(try ResidentCredential(decoding: fields[1]))
            return
        case ("remove", 2):
            guard let id = fields[1].bytesValue else { break }
            self = .removeCredential(id: id)
            return
        case ("user", 4):
            guard let id = fields[1].bytesValue else { break }
            self = .updateUser(id: id, name: optionalText(fields[2]), displayName: optionalText(fields[3]))
            return
        case ("reset", 2):
            guard let secret = fields[1].bytesValue, secret.count == 32 else { break }
            self = .reset(masterSecret: secret)
            return
        case ("pinPolicy", 4):
            guard let length = fields[1].intValue, (4...63).contains(length), let list = fields[2].arrayValue,
                  let force = fields[3].boolValue else { break }
            let ids = list.compactMap(\.textValue)
            guard ids.count == list.count else { break }
            self = .setPINPolicy(minimumLength: length, rpIDs: ids, forcePINChange: force)
            return
        case ("alwaysUv", 2):
            guard let value = fields[1].boolValue else { break }
            self = .setAlwaysUv(value)
            return
        case ("enterpriseAttestation", 1):
            self = .enableEnterpriseAttestation
            return
        case ("largeBlobs", 2):
            guard let array = fields[1].bytesValue, array.count >= 17 else { break }
            self = .setLargeBlobArray(array)
            return
        case ("persistentToken", 2):
            switch fields[1] {
            case .null: self = .setPersistentToken(nil)
            case .bytes(let token) where token.count == 32: self = .setPersistentToken(token)
            default: throw .malformed("journal record 'persistentToken' has the wrong fields")
            }
            return
        default:
            break
        }
        throw .malformed("journal record '\(kind)' has the wrong fields")
    }
}
