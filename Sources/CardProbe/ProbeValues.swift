import CBOR
import CardCrypto
import FIDOWire

/// The fixed values the battery sends: the same on every run, so that two probes of one card
/// send the same bytes wherever nothing must be random.
enum ProbeValues {
    /// The relying party every entry uses: no real credential has it (`.example` is reserved).
    static let rpID = "arculus-card-probe.example"
    /// A second RP, for the token's RP binding.
    static let otherRPID = "other.arculus-card-probe.example"
    /// A fixed clientDataHash.
    static let clientDataHash = SHA256.hash(Array("arculus-card probe client data".utf8))
    /// The user of the credentials the writing part makes.
    static let userID = Array("arculus-probe-u1".utf8)
    /// A credential ID no card issued.
    static let unknownCredentialID = [UInt8](repeating: 0xA5, count: 64)
    /// A pinUvAuthParam no token made: with it no card can make a credential or use a token.
    static let junkPinUvAuthParam = [UInt8](repeating: 0, count: 16)

    static func descriptor(_ id: [UInt8]) -> CBORValue {
        .map(["id": .bytes(id), "type": "public-key"])
    }

    static let es256: CBORValue = .map(["alg": .int(-7), "type": "public-key"])
    /// An algorithm no card has (COSE reserves -65535 for RS1; FIDO cards do not offer it).
    static let unsupportedAlgorithm: CBORValue = .map(["alg": .int(-65535), "type": "public-key"])

    static var rp: CBORValue { .map(["id": .text(rpID), "name": "Probe"]) }
    static var user: CBORValue { .map(["id": .bytes(userID), "name": "probe", "displayName": "Probe"]) }

    /// makeCredential for the probe RP; `without` drops members, `replacing` sets them.
    static func makeCredential(without missing: Set<MakeCredentialKey> = [], replacing: [MakeCredentialKey: CBORValue] = [:],
                               junkAuth: Bool = true) -> CBORMap {
        var members: [(MakeCredentialKey, CBORValue)] = [
            (.clientDataHash, .bytes(clientDataHash)), (.rp, rp), (.user, user), (.pubKeyCredParams, .array([es256])),
        ]
        if junkAuth { members += [(.pinUvAuthParam, .bytes(junkPinUvAuthParam)), (.pinUvAuthProtocol, .int(1))] }
        return map(members, without: missing, replacing: replacing)
    }

    /// getAssertion for the probe RP; `without` drops members, `replacing` sets them.
    static func getAssertion(without missing: Set<GetAssertionKey> = [], replacing: [GetAssertionKey: CBORValue] = [:]) -> CBORMap {
        map([(.rpId, .text(rpID)), (.clientDataHash, .bytes(clientDataHash))], without: missing, replacing: replacing)
    }

    private static func map<Key: RawRepresentable & Hashable>(_ members: [(Key, CBORValue)], without missing: Set<Key>,
                                                                replacing: [Key: CBORValue]) -> CBORMap where Key.RawValue == Int {
        var map = CBORMap()
        for (key, value) in members where !missing.contains(key) { map[int: key.rawValue] = value }
        for (key, value) in replacing.sorted(by: { $0.key.rawValue < $1.key.rawValue }) { map[int: key.rawValue] = value }
        return map
    }
}

extension ProbeValues {
    /// An authenticatorClientPIN request: the subcommand and, when given, the protocol.
    static func clientPIN(_ subcommand: ClientPINSubcommand, protocol version: Int?,
                          _ more: [ClientPINKey: CBORValue] = [:]) -> CBORMap {
        var map = CBORMap()
        if let version { map[int: ClientPINKey.pinUvAuthProtocol.rawValue] = .int(version) }
        map[int: ClientPINKey.subCommand.rawValue] = .int(subcommand.rawValue)
        for (key, value) in more { map[int: key.rawValue] = value }
        return map
    }

    /// A fixed platform key-agreement key: the P-256 base point (a valid key; the card can
    /// never use it for anything a request would need, since these requests lack what follows).
    static let fixedPlatformKey: CBORValue = .map([
        .int(1): .int(2), .int(3): .int(-25), .int(-1): .int(1),
        .int(-2): .bytes([UInt8](hex: "6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296") ?? []),
        .int(-3): .bytes([UInt8](hex: "4FE342E2FE1A7F9B8EE7EB4A7C0F9E162BCE33576B315ECECBB6406837BF51F5") ?? []),
    ])
}
