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

    static func == (lhs: AuthenticatorInfo, rhs: AuthenticatorInfo) -> Bool {
        lhs.encoded() == rhs.encoded()
    }
}

extension AuthenticatorInfo: CTAPSerializable {
    /// The response body (options in canonical order, whatever order the card lists them in).
    func write(to writer: inout CBORWriter) {
        typealias Key = GetInfoKey
        var map = writer.openMap()
        writer.member(Key.versions, array: versions, of: &map) { $0.text($1) }
        writer.member(Key.extensions, array: extensions, of: &map) { $0.text($1) }
        writer.member(Key.aaguid, bytes: aaguid, of: &map)
        writer.member(Key.options, value: .map(CBORMap(options.map { (.text($0.name), .bool($0.value)) })), of: &map)
        writer.member(Key.maxMsgSize, int: maxMsgSize, of: &map)
        writer.member(Key.pinUvAuthProtocols, array: pinUvAuthProtocols, of: &map) { $0.int($1) }
        writer.member(Key.maxCredentialCountInList, int: maxCredentialCountInList, of: &map)
        writer.member(Key.maxCredentialIdLength, int: maxCredentialIdLength, of: &map)
        writer.member(Key.transports, array: transports, of: &map) { $0.text($1) }
        writer.member(Key.algorithms, array: algorithms, of: &map) { CredentialParameters(type: "public-key", algorithm: $1).write(to: &$0) }
        writer.member(Key.maxSerializedLargeBlobArray, int: maxSerializedLargeBlobArray, of: &map)
        writer.member(Key.forcePINChange, bool: forcePINChange, of: &map)
        writer.member(Key.minPINLength, int: minPINLength, of: &map)
        writer.member(Key.firmwareVersion, int: firmwareVersion, of: &map)
        writer.member(Key.maxCredBlobLength, int: maxCredBlobLength, of: &map)
        writer.member(Key.maxRPIDsForSetMinPINLength, int: maxRPIDsForSetMinPINLength, of: &map)
        writer.member(Key.remainingDiscoverableCredentials, int: remainingDiscoverableCredentials, of: &map)
        writer.member(Key.encIdentifier, bytes: encIdentifier, of: &map)
        writer.member(Key.maxPINLength, int: maxPINLength, of: &map)
        writer.member(Key.encCredStoreState, bytes: encCredStoreState, of: &map)
        writer.close(map)
    }
}
