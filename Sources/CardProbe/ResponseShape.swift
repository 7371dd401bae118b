import CBOR
import COSE
import CardCrypto
import FIDOWire
import JSONSupport

/// The shape of a CTAP response body (CTAP 2.1 §6): ``CBORShape`` with the command's member names,
/// and the members that carry structure inside bytes opened up — authenticator data, attestation
/// statements with their certificates, signatures — and getInfo's AAGUID kept.
struct ResponseShape {
    let context: ShapeContext

    func of(_ body: CBORValue, command: CTAPCommand?) -> JSONValue {
        guard let command, let map = body.mapValue else { return CBORShape.of(body) }
        return .object(CBORShape.members(map, names: { command.responseMemberName($0) }) { key, value in
            member(key.intValue, value, of: command)
        })
    }

    private func member(_ key: Int?, _ value: CBORValue, of command: CTAPCommand) -> JSONValue {
        switch (command, key) {
        case (.getInfo, GetInfoKey.aaguid.rawValue):
            return value.bytesValue.map { .string(CBORShape.hex($0)) } ?? CBORShape.of(value)
        case (.makeCredential, MakeCredentialResponseKey.authData.rawValue),
             (.getAssertion, GetAssertionResponseKey.authData.rawValue),
             (.getNextAssertion, GetAssertionResponseKey.authData.rawValue):
            return value.bytesValue.map(authenticatorData) ?? CBORShape.of(value)
        case (.makeCredential, MakeCredentialResponseKey.attStmt.rawValue):
            return attestationStatement(value)
        case (.getAssertion, GetAssertionResponseKey.signature.rawValue),
             (.getNextAssertion, GetAssertionResponseKey.signature.rawValue):
            return CBORShape.signature(value)
        default:
            return CBORShape.of(value)
        }
    }

    /// Authenticator data (WebAuthn §6.1): RP ID hash, flags by name, the counter's step, the
    /// attested credential (AAGUID kept, credential ID by length, key by shape), extension outputs,
    /// bytes after them by count. Read by `COSE`'s ``AuthenticatorDataFields``, the one reading.
    func authenticatorData(_ bytes: [UInt8]) -> JSONValue {
        let fields: AuthenticatorDataFields
        var trailing = 0
        do throws(AuthenticatorDataFields.ParseError) {
            fields = try AuthenticatorDataFields(parsing: bytes)
        } catch {
            switch error {
            case .tooShort(let count):
                return .string("authenticator data cut short (\(count) bytes)")
            case .trailingBytes(let count, let before):
                fields = before
                trailing = count
            case .attestedCredentialCutShort(let before), .credentialIDBeyondData(_, let before), .publicKeyNotCBOR(_, let before),
                 .extensionsNotCBOR(_, let before):
                // The counter was there: the next one's step is from it.
                _ = context.counterStep(before.signCount)
                switch error {
                case .attestedCredentialCutShort: return .string("attested credential data cut short")
                case .extensionsNotCBOR: return .string("extension outputs that do not parse")
                default: return .string("attested credential data that does not parse")
                }
            }
        }
        var object: [String: JSONValue] = [
            "rpIdHash": .string(context.rpIDHash(fields.rpIDHash)),
            "flags": .string(Self.flagNames(fields.flags)),
            "signCount": .string(context.counterStep(fields.signCount)),
        ]
        if let credential = fields.attestedCredential {
            object["attestedCredential"] = [
                "aaguid": .string(CBORShape.hex(credential.aaguid)), "credentialId": .string(CBORShape.bytes(credential.credentialID.count)),
                "publicKey": CBORShape.of(credential.publicKey),
            ]
        }
        if let extensions = fields.extensions { object["extensions"] = CBORShape.of(extensions) }
        if trailing > 0 { object["trailing"] = .string(CBORShape.bytes(trailing)) }
        return .object(object)
    }

    /// `UP|UV|AT|ED` (WebAuthn §6.1 bit names), other bits in hex.
    static func flagNames(_ flags: UInt8) -> String {
        let named: [(UInt8, String)] = [(0x01, "UP"), (0x04, "UV"), (0x08, "BE"), (0x10, "BS"), (0x40, "AT"), (0x80, "ED")]
        var parts = named.filter { flags & $0.0 != 0 }.map(\.1)
        let other = flags & ~named.reduce(0) { $0 | $1.0 }
        if other != 0 { parts.append("0x" + Hex.byte(other)) }
        return parts.isEmpty ? "none" : parts.joined(separator: "|")
    }

    /// An attestation statement (WebAuthn §8): `alg`, the signature's kind, each certificate of
    /// `x5c` by its names and kind, not its key.
    private func attestationStatement(_ value: CBORValue) -> JSONValue {
        guard let map = value.mapValue else { return CBORShape.of(value) }
        return .object(CBORShape.members(map) { key, member in
            switch key.textValue {
            case "sig": CBORShape.signature(member)
            case "x5c": .array((member.arrayValue ?? []).map(Self.certificate))
            default: CBORShape.of(member)
            }
        })
    }

    /// An X.509 certificate's subject, issuer, version, whether it is a CA, and whether it has the
    /// FIDO AAGUID extension (1.3.6.1.4.1.45724.1.1.4); not its key or serial.
    static func certificate(_ value: CBORValue) -> JSONValue {
        guard let der = value.bytesValue else { return CBORShape.of(value) }
        guard let certificate = try? X509Certificate(der: der) else { return .string("\(CBORShape.bytes(der.count)), not a certificate") }
        return [
            "subject": .string(certificate.subjectDescription), "issuer": .string(certificate.issuerDescription),
            "version": .integer(certificate.version), "ca": .bool(certificate.isCA),
            "aaguidExtension": .bool(certificate.extensionValue(oid: "1.3.6.1.4.1.45724.1.1.4") != nil),
        ]
    }
}
