import CBOR
import FIDOWire

/// What authenticatorGetInfo reports (CTAP 2.1 §6.4), as far as a platform acts on it.
public struct AuthenticatorInfo: Equatable, Sendable {
    /// `versions` (0x01), e.g. `["U2F_V2", "FIDO_2_0", "FIDO_2_1"]`.
    public var versions: [String]
    /// `extensions` (0x02).
    public var extensions: [String]
    /// `aaguid` (0x03), 16 bytes.
    public var aaguid: [UInt8]
    /// `options` (0x04): option ID → value. Absent options are not in the map.
    public var options: [String: Bool]
    /// `maxMsgSize` (0x05).
    public var maxMessageSize: Int?
    /// `pinUvAuthProtocols` (0x06), in the card's order of preference.
    public var pinUVAuthProtocols: [Int]
    /// `maxCredentialCountInList` (0x07).
    public var maxCredentialCountInList: Int?
    /// `maxCredentialIdLength` (0x08).
    public var maxCredentialIDLength: Int?
    /// `transports` (0x09).
    public var transports: [String]
    /// `minPINLength` (0x0D); CTAP's default of 4 when absent.
    public var minPINLength: Int
    /// `firmwareVersion` (0x0E).
    public var firmwareVersion: Int?
    /// `remainingDiscoverableCredentials` (0x14).
    public var remainingDiscoverableCredentials: Int?

    /// Reads a getInfo response map.
    public init(_ map: CBORMap) throws(CTAPClientError) {
        guard let versions = map[GetInfoKey.versions]?.arrayValue?.compactMap(\.textValue), !versions.isEmpty else {
            throw .malformedResponse("getInfo without versions")
        }
        guard let aaguid = map[GetInfoKey.aaguid]?.bytesValue, aaguid.count == 16 else {
            throw .malformedResponse("getInfo without a 16-byte aaguid")
        }
        self.versions = versions
        self.aaguid = aaguid
        extensions = map[GetInfoKey.extensions]?.arrayValue?.compactMap(\.textValue) ?? []
        var options: [String: Bool] = [:]
        for (key, value) in map[GetInfoKey.options]?.mapValue ?? CBORMap() {
            if let name = key.textValue, let flag = value.boolValue { options[name] = flag }
        }
        self.options = options
        maxMessageSize = map[GetInfoKey.maxMsgSize]?.intValue
        pinUVAuthProtocols = map[GetInfoKey.pinUvAuthProtocols]?.arrayValue?.compactMap(\.intValue) ?? []
        maxCredentialCountInList = map[GetInfoKey.maxCredentialCountInList]?.intValue
        maxCredentialIDLength = map[GetInfoKey.maxCredentialIdLength]?.intValue
        transports = map[GetInfoKey.transports]?.arrayValue?.compactMap(\.textValue) ?? []
        minPINLength = map[GetInfoKey.minPINLength]?.intValue ?? 4
        firmwareVersion = map[GetInfoKey.firmwareVersion]?.intValue
        remainingDiscoverableCredentials = map[GetInfoKey.remainingDiscoverableCredentials]?.intValue
    }

    /// Whether the card has a PIN (option `clientPin` true); false when the option is present
    /// but false; nil when the card has no PIN support at all.
    public var isPINSet: Bool? { options[.clientPin] }

    /// Whether getPinUvAuthTokenUsingPinWithPermissions exists (option `pinUvAuthToken`).
    public var supportsPermissionTokens: Bool { options[.pinUvAuthToken] == true }

    /// The credential management command this card takes: `0x0A` (option `credMgmt`), the
    /// FIDO_2_1_PRE `0x41` (option `credentialMgmtPreview`), or nil.
    public var credentialManagementCommand: CTAPCommand? {
        if options[.credMgmt] == true { return .credentialManagement }
        if options[.credentialMgmtPreview] == true { return .credentialManagementPreview }
        return nil
    }

    /// The PIN/UV auth protocol a platform uses: 2 when the card lists it, else 1 when listed;
    /// protocol 1 also for a CTAP 2.0 card that lists none (CTAP 2.0 had only protocol 1).
    public var preferredPINUVAuthProtocol: Int? {
        if pinUVAuthProtocols.contains(2) { return 2 }
        if pinUVAuthProtocols.contains(1) || pinUVAuthProtocols.isEmpty { return 1 }
        return nil
    }
}
