import CBOR
import FIDOWire

/// authenticatorGetInfo's answer (CTAP 2.1 §6.4): what the card is and can do. Members a card
/// does not report are nil (and absent from the encoding).
struct AuthenticatorInfo: Sendable, Equatable {
    var versions: [String]
    var extensions: [String]?
    var aaguid: [UInt8]
    /// Options in the order the card lists them.
    var options: [(name: String, value: Bool)] = []
    var maxMsgSize: Int?
    var pinUvAuthProtocols: [Int]?
    var maxCredentialCountInList: Int?
    var maxCredentialIdLength: Int?
    var transports: [String]?
    /// COSE algorithm identifiers of `public-key` credentials.
    var algorithms: [Int]?
    var maxSerializedLargeBlobArray: Int? = nil
    var forcePINChange: Bool?
    var minPINLength: Int?
    var firmwareVersion: Int?
    var maxCredBlobLength: Int? = nil
    var maxRPIDsForSetMinPINLength: Int? = nil
    var remainingDiscoverableCredentials: Int?
    /// The device identifier encrypted under the persistent pinUvAuthToken (CTAP 2.2).
    var encIdentifier: [UInt8]? = nil
    var maxPINLength: Int? = nil
    /// The credential store's state encrypted under the persistent pinUvAuthToken (CTAP 2.2).
    var encCredStoreState: [UInt8]? = nil

    /// The value of option `name`, if the card lists it.
    func option(_ name: String) -> Bool? { options.first { $0.name == name }?.value }
}

extension AuthenticatorInfo {
    /// Reads a response body (the CBOR after the status byte).
    init(decoding body: ArraySlice<UInt8>) throws(CTAPStatus) {
        let info = try RequestMap<GetInfoKey>(decoding: body)
        func texts(_ key: GetInfoKey) throws(CTAPStatus) -> [String]? {
            guard let list = try info.array(key) else { return nil }
            var result: [String] = []
            for item in list {
                guard case .text(let text) = item else { throw .cborUnexpectedType }
                result.append(text)
            }
            return result
        }
        func number(_ key: GetInfoKey) throws(CTAPStatus) -> Int? { try info.unsigned(key).map { Int(clamping: $0) } }
        guard let versions = try texts(.versions) else { throw .missingParameter }
        self.versions = versions
        extensions = try texts(.extensions)
        aaguid = try info.requiredBytes(.aaguid)
        var options: [(name: String, value: Bool)] = []
        for (name, value) in try info.map(.options)?.entries ?? [] {
            guard case .text(let name) = name, case .bool(let flag) = value else { throw .cborUnexpectedType }
            options.append((name, flag))
        }
        self.options = options
        maxMsgSize = try number(.maxMsgSize)
        pinUvAuthProtocols = try info.array(.pinUvAuthProtocols).map { list throws(CTAPStatus) in
            var result: [Int] = []
            for item in list {
                guard let number = item.intValue else { throw .cborUnexpectedType }
                result.append(number)
            }
            return result
        }
        maxCredentialCountInList = try number(.maxCredentialCountInList)
        maxCredentialIdLength = try number(.maxCredentialIdLength)
        transports = try texts(.transports)
        algorithms = try info.array(.algorithms).map { list throws(CTAPStatus) in
            var result: [Int] = []
            for item in list {
                guard let algorithm = item.mapValue?[text: "alg"]?.intValue else { throw .cborUnexpectedType }
                result.append(algorithm)
            }
            return result
        }
        if let force = info[.forcePINChange] {
            guard case .bool(let flag) = force else { throw .cborUnexpectedType }
            forcePINChange = flag
        }
        maxSerializedLargeBlobArray = try number(.maxSerializedLargeBlobArray)
        minPINLength = try number(.minPINLength)
        firmwareVersion = try number(.firmwareVersion)
        maxCredBlobLength = try number(.maxCredBlobLength)
        maxRPIDsForSetMinPINLength = try number(.maxRPIDsForSetMinPINLength)
        remainingDiscoverableCredentials = try number(.remainingDiscoverableCredentials)
        encIdentifier = try info.bytes(.encIdentifier)
        maxPINLength = try number(.maxPINLength)
        encCredStoreState = try info.bytes(.encCredStoreState)
    }

    /// The response body.
    func encoded() -> CBORValue {
        var map = CBORMap()
        map.set(GetInfoKey.versions, .array(versions.map { .text($0) }))
        map.set(GetInfoKey.extensions, extensions.map { .array($0.map { .text($0) }) })
        map.set(GetInfoKey.aaguid, .bytes(aaguid))
        map.set(GetInfoKey.options, .map(CBORMap(options.map { (.text($0.name), .bool($0.value)) })))
        map.set(GetInfoKey.maxMsgSize, maxMsgSize.map { .int($0) })
        map.set(GetInfoKey.pinUvAuthProtocols, pinUvAuthProtocols.map { .array($0.map { .int($0) }) })
        map.set(GetInfoKey.maxCredentialCountInList, maxCredentialCountInList.map { .int($0) })
        map.set(GetInfoKey.maxCredentialIdLength, maxCredentialIdLength.map { .int($0) })
        map.set(GetInfoKey.transports, transports.map { .array($0.map { .text($0) }) })
        map.set(GetInfoKey.algorithms, algorithms.map { .array($0.map { .map(["alg": .int($0), "type": "public-key"]) }) })
        map.set(GetInfoKey.maxSerializedLargeBlobArray, maxSerializedLargeBlobArray.map { .int($0) })
        map.set(GetInfoKey.forcePINChange, forcePINChange.map { .bool($0) })
        map.set(GetInfoKey.minPINLength, minPINLength.map { .int($0) })
        map.set(GetInfoKey.firmwareVersion, firmwareVersion.map { .int($0) })
        map.set(GetInfoKey.maxCredBlobLength, maxCredBlobLength.map { .int($0) })
        map.set(GetInfoKey.maxRPIDsForSetMinPINLength, maxRPIDsForSetMinPINLength.map { .int($0) })
        map.set(GetInfoKey.remainingDiscoverableCredentials, remainingDiscoverableCredentials.map { .int($0) })
        map.set(GetInfoKey.encIdentifier, encIdentifier.map { .bytes($0) })
        map.set(GetInfoKey.maxPINLength, maxPINLength.map { .int($0) })
        map.set(GetInfoKey.encCredStoreState, encCredStoreState.map { .bytes($0) })
        return .map(map)
    }

    static func == (lhs: AuthenticatorInfo, rhs: AuthenticatorInfo) -> Bool {
        lhs.encoded() == rhs.encoded()
    }
}
