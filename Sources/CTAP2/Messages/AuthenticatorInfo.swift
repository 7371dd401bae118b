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
    var uvModality: Int? = nil
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
    static func == (lhs: AuthenticatorInfo, rhs: AuthenticatorInfo) -> Bool {
        lhs.encoded() == rhs.encoded()
    }
}

extension AuthenticatorInfo: CTAPMessage {
    /// Reads a response body (the CBOR after the status byte): the inverse of ``write(to:)``.
    static func read(from reader: inout CBORReader) throws(CBORError) -> Result<Self, CTAPStatus> {
        guard var members = try MemberMap(&reader) else { return .failure(.cborUnexpectedType) }
        var texts: [GetInfoKey: Member<[String]>] = [:]
        var numbers: [GetInfoKey: Member<UInt64>] = [:]
        var bytes: [GetInfoKey: Member<[UInt8]>] = [:]
        var options = Member<[(name: String, value: Bool)]>.absent
        var pinUvAuthProtocols = Member<[Int]>.absent
        var algorithms = Member<[CredentialParameters]>.absent
        var forcePINChange = Member<Bool>.absent
        while let key: GetInfoKey = try members.next(&reader) {
            switch key {
            case .versions, .extensions, .transports: texts[key] = try reader.array { reader throws(CBORError) in try reader.text() }
            case .aaguid, .encIdentifier, .encCredStoreState: bytes[key] = try reader.byteString()
            case .options: options = try reader.options(into: []) { $0.append(($1, $2)) }
            case .pinUvAuthProtocols: pinUvAuthProtocols = try reader.array { reader throws(CBORError) in try reader.integer() }
            case .algorithms: algorithms = try reader.array(of: CredentialParameters.self)
            case .forcePINChange: forcePINChange = try reader.bool()
            case .maxMsgSize, .maxCredentialCountInList, .maxCredentialIdLength, .maxSerializedLargeBlobArray, .minPINLength,
                 .firmwareVersion, .maxCredBlobLength, .maxRPIDsForSetMinPINLength, .remainingDiscoverableCredentials, .maxPINLength:
                numbers[key] = try reader.unsigned()
            default: _ = try reader.skipItem()
            }
        }
        func number(_ key: GetInfoKey) throws(CTAPStatus) -> Int? { try numbers[key]?.optional().map { Int(clamping: $0) } }
        return Result { () throws(CTAPStatus) in
            let versions = try (texts[.versions] ?? .absent).required()
            var info = AuthenticatorInfo(versions: versions, extensions: try texts[.extensions]?.optional(),
                                         aaguid: try (bytes[.aaguid] ?? .absent).required())
            info.options = try options.optional() ?? []
            info.maxMsgSize = try number(.maxMsgSize)
            info.pinUvAuthProtocols = try pinUvAuthProtocols.optional()
            info.maxCredentialCountInList = try number(.maxCredentialCountInList)
            info.maxCredentialIdLength = try number(.maxCredentialIdLength)
            info.transports = try texts[.transports]?.optional()
            info.algorithms = try algorithms.optional()?.map(\.algorithm)
            info.maxSerializedLargeBlobArray = try number(.maxSerializedLargeBlobArray)
            info.forcePINChange = try forcePINChange.optional()
            info.minPINLength = try number(.minPINLength)
            info.firmwareVersion = try number(.firmwareVersion)
            info.maxCredBlobLength = try number(.maxCredBlobLength)
            info.maxRPIDsForSetMinPINLength = try number(.maxRPIDsForSetMinPINLength)
            info.remainingDiscoverableCredentials = try number(.remainingDiscoverableCredentials)
            info.encIdentifier = try bytes[.encIdentifier]?.optional()
            info.maxPINLength = try number(.maxPINLength)
            info.encCredStoreState = try bytes[.encCredStoreState]?.optional()
            return info
        }
    }

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
        writer.member(Key.uvModality, int: uvModality, of: &map)
        writer.member(Key.remainingDiscoverableCredentials, int: remainingDiscoverableCredentials, of: &map)
        writer.member(Key.encIdentifier, bytes: encIdentifier, of: &map)
        writer.member(Key.maxPINLength, int: maxPINLength, of: &map)
        writer.member(Key.encCredStoreState, bytes: encCredStoreState, of: &map)
        writer.close(map)
    }
}
