import CBOR
import FIDOWire

extension Authenticator {
    /// authenticatorGetInfo (CTAP 2.1 §6.4). Members 0x09 and up exist only on FIDO_2_1 cards.
    func getInfo() -> AuthenticatorInfo {
        var options: [(name: String, value: Bool)] = [("plat", false), ("rk", true), ("up", true),
                                                      ("clientPin", state.isPINSet)]
        if profile.credentialManagement { options.append(("credMgmt", true)) }
        if profile.pinUvAuthToken { options.append(("pinUvAuthToken", true)) }
        if profile.supportsCTAP21 && profile.makeCredUvNotRqd { options.append(("makeCredUvNotRqd", true)) }
        var info = AuthenticatorInfo(
            versions: profile.versions, extensions: profile.extensions.isEmpty ? nil : profile.extensions,
            aaguid: aaguid, options: options, maxMsgSize: profile.maxMsgSize,
            pinUvAuthProtocols: profile.pinUvAuthProtocols, maxCredentialCountInList: profile.maxCredentialCountInList,
            maxCredentialIdLength: profile.maxCredentialIdLength)
        if profile.supportsCTAP21 {
            info.transports = profile.transports
            info.algorithms = profile.algorithms
            info.forcePINChange = false
            info.minPINLength = profile.minPINLength
            info.firmwareVersion = profile.firmwareVersion
            info.remainingDiscoverableCredentials = remainingDiscoverableCredentials
        }
        return info
    }

    /// The profile's AAGUID (validated when the authenticator was created).
    var aaguid: [UInt8] {
        (try? profile.aaguidBytes) ?? [UInt8](repeating: 0, count: 16)
    }

    var remainingDiscoverableCredentials: Int {
        memory.remainingDiscoverableCredentials(capacity: profile.residentKeyCapacity)
    }
}
