import CBOR

extension Authenticator {
    /// authenticatorGetInfo (CTAP 2.1 §6.4). Members 0x09 and up exist only on FIDO_2_1 cards.
    func getInfo() -> CBORValue {
        var info = CBORMap()
        info[.int(0x01)] = .array(profile.versions.map { .text($0) })
        if !profile.extensions.isEmpty {
            info[.int(0x02)] = .array(profile.extensions.map { .text($0) })
        }
        info[.int(0x03)] = .bytes(aaguid)
        var options = CBORMap()
        options["plat"] = false
        options["rk"] = true
        options["up"] = true
        options["clientPin"] = .bool(state.isPINSet)
        if profile.credentialManagement { options["credMgmt"] = true }
        if profile.pinUvAuthToken { options["pinUvAuthToken"] = true }
        if profile.supportsCTAP21 && profile.makeCredUvNotRqd { options["makeCredUvNotRqd"] = true }
        info[.int(0x04)] = .map(options)
        info[.int(0x05)] = .int(profile.maxMsgSize)
        info[.int(0x06)] = .array(profile.pinUvAuthProtocols.map { .int($0) })
        info[.int(0x07)] = .int(profile.maxCredentialCountInList)
        info[.int(0x08)] = .int(profile.maxCredentialIdLength)
        if profile.supportsCTAP21 {
            info[.int(0x09)] = .array(profile.transports.map { .text($0) })
            info[.int(0x0A)] = .array(profile.algorithms.map { .map(["alg": .int($0), "type": "public-key"]) })
            info[.int(0x0C)] = false
            info[.int(0x0D)] = .int(profile.minPINLength)
            info[.int(0x0E)] = .int(profile.firmwareVersion)
            info[.int(0x14)] = .int(remainingDiscoverableCredentials)
        }
        return .map(info)
    }

    /// The profile's AAGUID (validated when the authenticator was created).
    var aaguid: [UInt8] {
        (try? profile.aaguidBytes) ?? [UInt8](repeating: 0, count: 16)
    }

    var remainingDiscoverableCredentials: Int {
        max(0, profile.residentKeyCapacity - state.residentCredentials.count)
    }
}
