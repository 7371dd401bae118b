import CBOR
import FIDOWire

extension ProbeBattery {
    /// getInfo, unknown commands and the malformed requests every command with parameters gets.
    static var commands: [ProbeEntry] {
        var entries = [
            ctap("getInfo", "getInfo", .getInfo, nil, kind: TimingKind.getInfo),
            message("getInfo.with-parameters", "getInfo with an (empty) parameter map", [CTAPCommand.getInfo.rawValue, 0xA0]),
            ctap("selection", "authenticatorSelection", .selection, nil),
            ctap("getNextAssertion.nothing-pending", "getNextAssertion with no getAssertion before it", .getNextAssertion, nil),
            ctap("bioEnrollment.get-modality", "authenticatorBioEnrollment getModality", .bioEnrollment, [.int(0x06): true]),
            ctap("bioEnrollment-preview.get-modality", "authenticatorBioEnrollment (preview, 0x40) getModality",
                 .bioEnrollmentPreview, [.int(0x06): true]),
        ]
        for byte: UInt8 in [0x03, 0x05, 0x0E, 0x3F, 0x42, 0xFF] {
            entries.append(message("unknown-command.0x\(Hex.byte(byte))", "an unknown CTAP command 0x\(Hex.byte(byte))", [byte]))
        }
        let withParameters: [(CTAPCommand, String)] = [
            (.makeCredential, "makeCredential"), (.getAssertion, "getAssertion"), (.clientPIN, "clientPIN"),
            (.credentialManagement, "credentialManagement"), (.credentialManagementPreview, "credentialManagement-preview"),
            (.largeBlobs, "largeBlobs"), (.config, "config"),
        ]
        for (command, name) in withParameters { entries += malformed(command, name) }
        return entries
    }

    /// makeCredential's missing, mistyped, unknown and refused members. Every request carries a
    /// pinUvAuthParam of zeros (so no card can make a credential), unless it tests that member.
    static var makeCredential: [ProbeEntry] {
        func entry(_ id: String, _ summary: String, without: Set<MakeCredentialKey> = [],
                   replacing: [MakeCredentialKey: CBORValue] = [:], junkAuth: Bool = true) -> ProbeEntry {
            ctap("makeCredential.\(id)", "makeCredential \(summary)", .makeCredential,
                 ProbeValues.makeCredential(without: without, replacing: replacing, junkAuth: junkAuth))
        }
        let longUser: CBORValue = .map(["id": .bytes([UInt8](repeating: 0x75, count: 65)), "name": "probe"])
        var unknownMember = ProbeValues.makeCredential()
        unknownMember[int: 0x7F] = .int(0)
        return [
            entry("junk-pinUvAuthParam", "with a pinUvAuthParam no token made"),
            entry("no-clientDataHash", "without clientDataHash", without: [.clientDataHash]),
            entry("no-rp", "without rp", without: [.rp]),
            entry("no-user", "without user", without: [.user]),
            entry("no-pubKeyCredParams", "without pubKeyCredParams", without: [.pubKeyCredParams]),
            entry("clientDataHash-text", "with clientDataHash as text", replacing: [.clientDataHash: "hash"]),
            entry("clientDataHash-16", "with a 16-byte clientDataHash", replacing: [.clientDataHash: .bytes([UInt8](repeating: 1, count: 16))]),
            entry("rp-text", "with rp as text", replacing: [.rp: "probe"]),
            entry("rp-without-id", "with an rp without id", replacing: [.rp: .map(["name": "Probe"])]),
            entry("user-without-id", "with a user without id", replacing: [.user: .map(["name": "probe"])]),
            entry("user-id-65", "with a 65-byte user id", replacing: [.user: longUser]),
            entry("pubKeyCredParams-map", "with pubKeyCredParams as a map", replacing: [.pubKeyCredParams: .map(["alg": -7])]),
            entry("unsupported-algorithm", "with only an algorithm no card has (-65535)",
                  replacing: [.pubKeyCredParams: .array([ProbeValues.unsupportedAlgorithm])]),
            entry("algorithm-without-type", "with a pubKeyCredParams entry without type",
                  replacing: [.pubKeyCredParams: .array([.map(["alg": -7])])]),
            entry("up-false", "with options up: false", replacing: [.options: .map(["up": false])]),
            entry("options-text", "with options as text", replacing: [.options: "rk"]),
            entry("unknown-option", "with an unknown option", replacing: [.options: .map(["probe": true])]),
            entry("extensions-text", "with extensions as text", replacing: [.extensions: "uvm"]),
            entry("excludeList-map", "with excludeList as a map", replacing: [.excludeList: .map([:])]),
            entry("enterprise-attestation", "asking for enterprise attestation (1)", replacing: [.enterpriseAttestation: 1]),
            entry("pin-protocol-3", "with pinUvAuthProtocol 3", replacing: [.pinUvAuthProtocol: 3]),
            entry("pinUvAuthParam-without-protocol", "with a pinUvAuthParam but no pinUvAuthProtocol", without: [.pinUvAuthProtocol]),
            entry("pin-probe", "with an empty pinUvAuthParam (the PIN probe before a PIN prompt)",
                  replacing: [.pinUvAuthParam: .bytes([])]),
            ctap("makeCredential.unknown-member", "makeCredential with an unknown member (0x7F)", .makeCredential, unknownMember),
        ]
    }

    /// getAssertion for an RP with no credential, and its missing, mistyped and refused members.
    static var getAssertion: [ProbeEntry] {
        func entry(_ id: String, _ summary: String, without: Set<GetAssertionKey> = [],
                   replacing: [GetAssertionKey: CBORValue] = [:], kind: String? = nil) -> ProbeEntry {
            ctap("getAssertion.\(id)", "getAssertion \(summary)", .getAssertion,
                 ProbeValues.getAssertion(without: without, replacing: replacing), kind: kind)
        }
        let unknown = ProbeValues.descriptor(ProbeValues.unknownCredentialID)
        var unknownMember = ProbeValues.getAssertion()
        unknownMember[int: 0x7F] = .int(0)
        let junk: [GetAssertionKey: CBORValue] = [.pinUvAuthParam: .bytes(ProbeValues.junkPinUvAuthParam), .pinUvAuthProtocol: 1]
        let rpIDMember: [UInt8] = [0x01, 0x78, UInt8(ProbeValues.rpID.utf8.count)] + Array(ProbeValues.rpID.utf8)
        let clientDataHashMember: [UInt8] = [0x02, 0x58, 0x20] + ProbeValues.clientDataHash
        return [
            entry("no-credential", "for an RP with no credential", kind: TimingKind.assertionWithoutCredential),
            entry("unknown-credential", "with an allowList of a credential the card never made", replacing: [.allowList: .array([unknown])]),
            entry("no-rpId", "without rpId", without: [.rpId]),
            entry("no-clientDataHash", "without clientDataHash", without: [.clientDataHash]),
            entry("rpId-bytes", "with rpId as bytes", replacing: [.rpId: .bytes(Array(ProbeValues.rpID.utf8))]),
            entry("clientDataHash-text", "with clientDataHash as text", replacing: [.clientDataHash: "hash"]),
            entry("clientDataHash-16", "with a 16-byte clientDataHash", replacing: [.clientDataHash: .bytes([UInt8](repeating: 1, count: 16))]),
            entry("allowList-map", "with allowList as a map", replacing: [.allowList: .map([:])]),
            entry("allowList-without-type", "with an allowList entry without type",
                  replacing: [.allowList: .array([.map(["id": .bytes(ProbeValues.unknownCredentialID)])])]),
            entry("allowList-of-9", "with an allowList of 9 unknown credentials", replacing: [.allowList: .array(Array(repeating: unknown, count: 9))]),
            entry("empty-allowList", "with an empty allowList", replacing: [.allowList: .array([])]),
            entry("up-false", "with options up: false (a pre-flight)", replacing: [.options: .map(["up": false])]),
            entry("uv-true", "with options uv: true", replacing: [.options: .map(["uv": true])]),
            entry("rk-option", "with the rk option", replacing: [.options: .map(["rk": true])]),
            entry("options-text", "with options as text", replacing: [.options: "up"]),
            entry("unknown-option", "with an unknown option", replacing: [.options: .map(["probe": true])]),
            entry("extensions-text", "with extensions as text", replacing: [.extensions: "uvm"]),
            entry("unknown-extension", "with an extension no card has", replacing: [.extensions: .map(["probe-unknown": true])]),
            entry("junk-pinUvAuthParam", "with a pinUvAuthParam no token made", replacing: junk),
            entry("pin-protocol-3", "with pinUvAuthProtocol 3", replacing: junk.merging([.pinUvAuthProtocol: 3]) { $1 }),
            entry("pinUvAuthParam-without-protocol", "with a pinUvAuthParam but no pinUvAuthProtocol",
                  replacing: [.pinUvAuthParam: .bytes(ProbeValues.junkPinUvAuthParam)]),
            entry("pin-probe", "with an empty pinUvAuthParam (the PIN probe)", replacing: [.pinUvAuthParam: .bytes([]), .pinUvAuthProtocol: 1]),
            ctap("getAssertion.unknown-member", "getAssertion with an unknown member (0x7F)", .getAssertion, unknownMember),
            message("getAssertion.duplicate-key", "getAssertion whose CBOR map has rpId twice",
                    [CTAPCommand.getAssertion.rawValue, 0xA3] + rpIDMember + rpIDMember + clientDataHashMember),
            message("getAssertion.indefinite-map", "getAssertion as an indefinite-length CBOR map",
                    [CTAPCommand.getAssertion.rawValue, 0xBF] + rpIDMember + clientDataHashMember + [0xFF]),
            message("getAssertion.non-canonical-key", "getAssertion whose key 1 is written in two bytes (18 01)",
                    [CTAPCommand.getAssertion.rawValue, 0xA2, 0x18] + rpIDMember + clientDataHashMember),
            message("getAssertion.text-keys", "getAssertion with text keys (\"rpId\", \"clientDataHash\") instead of integers",
                    CTAPMessage.bytes(.getAssertion, [.text("rpId"): .text(ProbeValues.rpID), .text("clientDataHash"): .bytes(ProbeValues.clientDataHash)])),
            message("getAssertion.keys-out-of-order", "getAssertion whose CBOR map keys are out of canonical order",
                    [CTAPCommand.getAssertion.rawValue, 0xA2, 0x02, 0x58, 0x20] + ProbeValues.clientDataHash
                        + [0x01, 0x78, UInt8(ProbeValues.rpID.utf8.count)] + Array(ProbeValues.rpID.utf8)),
        ]
    }
}
