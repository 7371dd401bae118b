import ArculusCard
import CBOR
import CTAPClient
import FIDOWire

/// authenticatorGetInfo (CTAP 2.1 §6.4) onto a ``CardProfile``: what the card reports replaces
/// the base profile's value; what it does not report is kept and listed in ``fromBase``.
struct ProfileCapture {
    var profile: CardProfile
    /// The profile members the card did not report, in getInfo's order.
    private(set) var fromBase: [String] = []

    init(base: CardProfile) {
        profile = base
    }

    /// Takes `info`; `reported` is the same getInfo as the card sent it, for what
    /// ``AuthenticatorInfo`` does not keep (absent members, `algorithms`).
    mutating func apply(_ info: AuthenticatorInfo, reported: CBORMap) throws {
        func has(_ key: Int, _ name: String) -> Bool { isReported(key, name, in: reported) }
        profile.versions = info.versions
        // An absent extensions member means none, absent options are false (CTAP 2.1 §6.4).
        profile.extensions = try Self.all(info.extensions, reported, 0x02, "extensions")
        profile.aaguid = info.aaguid.aaguidText
        profile.credentialManagement = info.options[.credMgmt] ?? false
        profile.pinUvAuthToken = info.options[.pinUvAuthToken] ?? false
        profile.makeCredUvNotRqd = info.options[.makeCredUvNotRqd] ?? false
        if has(0x05, "maxMsgSize") { profile.maxMsgSize = try Self.integer(reported, 0x05, "maxMsgSize") }
        if has(0x06, "pinUvAuthProtocols") {
            profile.pinUvAuthProtocols = try Self.all(info.pinUVAuthProtocols, reported, 0x06, "pinUvAuthProtocols")
        }
        if has(0x07, "maxCredentialCountInList") {
            profile.maxCredentialCountInList = try Self.integer(reported, 0x07, "maxCredentialCountInList")
        }
        if has(0x08, "maxCredentialIdLength") {
            profile.maxCredentialIdLength = try Self.integer(reported, 0x08, "maxCredentialIdLength")
        }
        if has(0x09, "transports") { profile.transports = try Self.all(info.transports, reported, 0x09, "transports") }
        if has(0x0A, "algorithms") { profile.algorithms = try Self.algorithms(reported[int: 0x0A]) }
        if has(0x0D, "minPINLength") { profile.minPINLength = try Self.integer(reported, 0x0D, "minPINLength") }
        if has(0x0E, "firmwareVersion") { profile.firmwareVersion = try Self.integer(reported, 0x0E, "firmwareVersion") }
        if reported[int: 0x14] != nil {
            profile.residentKeyCapacity = try Self.integer(reported, 0x14, "remainingDiscoverableCredentials")
        } else {
            fromBase.append("residentKeyCapacity")
        }
        try applyOptionalFeatures(info, reported: reported)
    }

    /// Whether getInfo has member `key`; if not, `name` is noted as taken from the base.
    private mutating func isReported(_ key: Int, _ name: String, in reported: CBORMap) -> Bool {
        guard reported[int: key] != nil else {
            fromBase.append(name)
            return false
        }
        return true
    }

    /// The CTAP 2.1/2.2 features: each on exactly when the card's getInfo says so (an absent
    /// option is a feature the card lacks), with the limits it reports.
    private mutating func applyOptionalFeatures(_ info: AuthenticatorInfo, reported: CBORMap) throws {
        let options = info.options
        profile.authenticatorConfig = options[.authnrCfg] ?? false
        profile.alwaysUv = options[.alwaysUv]
        profile.setMinPINLength = options[.setMinPINLength] ?? false
        profile.credentialManagementPreview = options[.credentialMgmtPreview] ?? false
        profile.persistentCredentialManagement = options[.perCredMgmtRO] ?? false
        profile.enterpriseAttestation = options[.ep] != nil
        if profile.enterpriseAttestation {
            fromBase.append("enterpriseAttestationRPIDs")
        } else {
            profile.enterpriseAttestationRPIDs = []
        }
        profile.largeBlobs = options[.largeBlobs] ?? false
        // A feature the card has, with a limit it does not report: the base profile's limit.
        func limit(_ key: Int, _ name: String, when present: Bool, base: Int) throws -> Int {
            guard present else { return 0 }
            guard isReported(key, name, in: reported) else { return base }
            return try Self.integer(reported, key, name)
        }
        profile.maxSerializedLargeBlobArray = try limit(0x0B, "maxSerializedLargeBlobArray", when: profile.largeBlobs,
                                                        base: profile.maxSerializedLargeBlobArray)
        profile.maxCredBlobLength = try limit(0x0F, "maxCredBlobLength", when: profile.offers(.credBlob),
                                              base: profile.maxCredBlobLength)
        profile.maxRPIDsForSetMinPINLength = try limit(0x10, "maxRPIDsForSetMinPINLength", when: profile.setMinPINLength,
                                                       base: profile.maxRPIDsForSetMinPINLength)
        if reported[int: 0x1D] != nil {
            profile.maxPINLength = try limit(0x1D, "maxPINLength", when: true, base: profile.maxPINLength)
        }
    }

    /// An integer member the card reported, as an `Int`: one beyond `Int`'s range is taken as its
    /// bound (the profile's range clamps it anyway, saying so: ``CardProfile/clampToLimits()``).
    private static func integer(_ reported: CBORMap, _ key: Int, _ name: String) throws -> Int {
        switch reported[int: key] {
        case .unsigned(let number)?: return Int(clamping: number)
        case .negative(let number)?: return number < UInt64(Int.max) ? -1 - Int(number) : Int.min
        default: throw PCSCCommandError("getInfo \(name) (0x\(String(key, radix: 16))) is not an integer")
        }
    }

    /// A list member, refused when ``AuthenticatorInfo`` had to drop entries of the wrong type.
    private static func all<Element>(_ values: [Element], _ reported: CBORMap, _ key: Int, _ name: String) throws -> [Element] {
        guard values.count == reported[int: key]?.arrayValue?.count ?? 0 else {
            throw PCSCCommandError("getInfo \(name) (0x\(String(key, radix: 16))) has entries of the wrong type")
        }
        return values
    }

    /// `algorithms` (0x0A): the `alg` of each entry.
    private static func algorithms(_ value: CBORValue?) throws -> [Int] {
        guard let list = value?.arrayValue else { throw PCSCCommandError("getInfo algorithms (0x0A) is not an array") }
        return try list.map { entry in
            guard let alg = entry.mapValue?[text: "alg"]?.intValue else {
                throw PCSCCommandError("getInfo algorithms (0x0A) has an entry without an integer alg")
            }
            return alg
        }
    }
}
