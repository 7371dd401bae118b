import CBOR
import CardCrypto
import FIDOWire

/// What getInfo's answer depends on besides the profile (which an authenticator never changes).
struct InfoInputs: Equatable {
    let isPINSet: Bool
    let alwaysUv: Bool
    let enterpriseAttestationEnabled: Bool
    let forcePINChange: Bool
    let minPINLength: Int
    let remainingDiscoverableCredentials: Int
}

extension Authenticator {
    /// getInfo's answer, encoded. Clients ask for it at every connection (python-fido2 three
    /// times) and it changes only with the few values of the card's memory it reports
    /// (``InfoInputs``), so the last answer is kept and given again while they are the same; a
    /// card whose answer carries encIdentifier (under a fresh IV each time) builds it anew. Debug
    /// builds check every kept answer against a new one, so a member that comes to depend on
    /// something else shows up in the tests.
    mutating func encodedInfo() -> [UInt8] {
        if profile.persistentCredentialManagement && state.persistentToken != nil {
            return getInfo().encoded()
        }
        let inputs = InfoInputs(
            isPINSet: state.isPINSet, alwaysUv: state.alwaysUv,
            enterpriseAttestationEnabled: state.enterpriseAttestationEnabled, forcePINChange: state.forcePINChange,
            minPINLength: state.effectiveMinPINLength, remainingDiscoverableCredentials: remainingDiscoverableCredentials)
        if let kept = infoCache, kept.inputs == inputs {
            assert(kept.body == getInfo().encoded(), "getInfo changed with a value InfoInputs does not hold")
            return kept.body
        }
        let body = getInfo().encoded()
        infoCache = (inputs, body)
        return body
    }

    /// authenticatorGetInfo (CTAP 2.1 §6.4). A CTAP 2.0 card answers CTAP 2.0's members 0x01–0x08
    /// (§5.4); everything a CTAP 2.1 card reports follows its profile and its current state.
    mutating func getInfo() -> AuthenticatorInfo {
        let ctap21 = profile.supportsCTAP21
        var options: [(AuthenticatorOption, Bool)] = [(.plat, false), (.rk, true), (.up, profile.behaviour.upOption),
                                                      (.clientPin, state.isPINSet)]
        if profile.credentialManagement { options.append((.credMgmt, true)) }
        if profile.pinUvAuthToken { options.append((.pinUvAuthToken, true)) }
        if ctap21 {
            if profile.makeCredUvNotRqd { options.append((.makeCredUvNotRqd, !alwaysUvEnabled)) }
            if profile.authenticatorConfig { options.append((.authnrCfg, true)) }
            if profile.alwaysUv != nil { options.append((.alwaysUv, state.alwaysUv)) }
            if profile.setMinPINLength { options.append((.setMinPINLength, true)) }
            if profile.enterpriseAttestation { options.append((.ep, state.enterpriseAttestationEnabled)) }
            if profile.largeBlobs { options.append((.largeBlobs, true)) }
            if profile.credentialManagementPreview { options.append((.credentialMgmtPreview, true)) }
            if profile.persistentCredentialManagement { options.append((.perCredMgmtRO, true)) }
            if let uvAcfg = profile.behaviour.uvAcfgOption { options.append((.uvAcfg, uvAcfg)) }
        }
        var info = AuthenticatorInfo(
            versions: advertisedVersions, extensions: profile.extensions.isEmpty ? nil : profile.extensions,
            aaguid: aaguid, options: options.map { (name: $0.rawValue, value: $1) }, maxMsgSize: profile.maxMsgSize,
            pinUvAuthProtocols: profile.pinUvAuthProtocols)
        info.maxCredentialCountInList = profile.maxCredentialCountInList
        info.maxCredentialIdLength = profile.maxCredentialIdLength
        guard ctap21 else {
            info.omit(profile.behaviour.getInfoAbsent)
            return info
        }
        info.transports = profile.transports
        info.algorithms = profile.algorithms
        if profile.largeBlobs { info.maxSerializedLargeBlobArray = profile.maxSerializedLargeBlobArray }
        info.forcePINChange = state.forcePINChange
        info.minPINLength = state.effectiveMinPINLength
        info.firmwareVersion = profile.firmwareVersion
        if profile.offers(.credBlob) { info.maxCredBlobLength = profile.maxCredBlobLength }
        if profile.setMinPINLength { info.maxRPIDsForSetMinPINLength = profile.maxRPIDsForSetMinPINLength }
        info.remainingDiscoverableCredentials = profile.behaviour.remainingCredentials == .capacity
            ? profile.residentKeyCapacity : remainingDiscoverableCredentials
        if profile.persistentCredentialManagement, let token = state.persistentToken {
            info.encIdentifier = encryptUnderPersistentToken(deviceIdentifier, token: token, info: "encIdentifier")
            info.encCredStoreState = encryptUnderPersistentToken(credentialStoreState, token: token, info: "encCredStoreState")
        }
        if profile.setMinPINLength || profile.maxPINLength != 63 { info.maxPINLength = profile.maxPINLength }
        info.uvModality = profile.behaviour.uvModality
        info.omit(profile.behaviour.getInfoAbsent)
        return info
    }

    /// The versions getInfo lists: with alwaysUv on, CTAP1/U2F is off (it cannot verify the
    /// user), so U2F_V2 goes.
    var advertisedVersions: [String] {
        u2fEnabled ? profile.versions : profile.versions.filter { $0 != "U2F_V2" }
    }

    /// Whether the card answers U2F: its profile has it and alwaysUv is not on (CTAP 2.1 §7.2.3).
    public var u2fEnabled: Bool { profile.supportsU2F && !alwaysUvEnabled }

    /// The profile's AAGUID (validated when the authenticator was created).
    var aaguid: [UInt8] {
        (try? profile.aaguidBytes) ?? [UInt8](repeating: 0, count: 16)
    }

    var remainingDiscoverableCredentials: Int {
        memory.remainingDiscoverableCredentials(capacity: profile.residentKeyCapacity)
    }

    /// A 16-byte identifier of this card, new after a reset (CTAP 2.2 encIdentifier).
    private var deviceIdentifier: [UInt8] {
        Array(HKDFSHA256.deriveKey(inputKeyMaterial: state.masterSecret, salt: [],
                                   info: Array("arculus-emulator device identifier".utf8), outputByteCount: 16))
    }

    /// 16 bytes that change with every change to the discoverable credentials (encCredStoreState).
    private var credentialStoreState: [UInt8] {
        var version: [UInt8] = []
        for shift in stride(from: 56, through: 0, by: -8) { version.append(UInt8(truncatingIfNeeded: state.credentialStoreVersion >> UInt64(shift))) }
        return Array(HMACSHA256.authenticate(key: state.masterSecret, data: Array("credential store".utf8) + version).prefix(16))
    }

    /// IV ‖ AES-128-CBC(HKDF-SHA-256(token, salt 32×0, info, 16), plaintext) (CTAP 2.2 §6.4).
    private mutating func encryptUnderPersistentToken(_ plaintext: [UInt8], token: [UInt8], info: String) -> [UInt8]? {
        let key = HKDFSHA256.deriveKey(inputKeyMaterial: token, salt: [UInt8](repeating: 0, count: 32),
                                       info: Array(info.utf8), outputByteCount: 16)
        let iv = random.bytes(16)
        guard let ciphertext = try? AES128CBC.encrypt(key: key, iv: iv, plaintext: plaintext) else { return nil }
        return iv + ciphertext
    }
}
