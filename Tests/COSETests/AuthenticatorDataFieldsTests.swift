import CBOR
import COSE
import CardCrypto
import Testing

/// The one reading of authenticator data (WebAuthn §6.1): each part where the flags say, every
/// length checked, every proper prefix refused for the part it cuts, nothing after the last part.
@Suite("Authenticator data, taken apart")
struct AuthenticatorDataFieldsTests {
    static let rpIDHash = SHA256.hash(Array("example.com".utf8))
    static let aaguid = [UInt8](repeating: 0xAA, count: 16)
    static let credentialID = [UInt8](repeating: 0xC1, count: 81)
    static let key: CBORValue = .map([.int(1): .int(2), .int(3): .int(-7), .int(-1): .int(1),
                                      .int(-2): .bytes([UInt8](repeating: 1, count: 32)), .int(-3): .bytes([UInt8](repeating: 2, count: 32))])
    static let extensions: CBORValue = .map(["credProtect": .int(2)])

    /// Flags UP|AT|ED, counter 7, the credential, the extension outputs.
    static var registration: [UInt8] {
        rpIDHash + [0xC1, 0, 0, 0, 7] + aaguid + [0x00, UInt8(credentialID.count)] + credentialID
            + CBOREncoder.encode(key) + CBOREncoder.encode(extensions)
    }

    @Test("a registration's parts, as the flags say; an assertion's header alone")
    func parts() throws {
        let fields = try AuthenticatorDataFields(parsing: Self.registration)
        #expect(fields.rpIDHash == Self.rpIDHash && fields.flags == 0xC1 && fields.signCount == 7)
        #expect(fields.attestedCredential == .init(aaguid: Self.aaguid, credentialID: Self.credentialID, publicKey: Self.key))
        #expect(fields.extensions == Self.extensions)
        let assertion = try AuthenticatorDataFields(parsing: Self.rpIDHash + [0x05, 0x01, 0x02, 0x03, 0x04])
        #expect(assertion.flags == 0x05 && assertion.signCount == 0x0102_0304)
        #expect(assertion.attestedCredential == nil && assertion.extensions == nil)
    }

    @Test("every proper prefix is refused, naming the part it cuts")
    func prefixes() throws {
        let bytes = Self.registration
        let keyStart = 37 + 18 + Self.credentialID.count
        let extensionsStart = keyStart + CBOREncoder.encode(Self.key).count
        for length in 0..<bytes.count {
            let error = #expect(throws: AuthenticatorDataFields.ParseError.self) { try AuthenticatorDataFields(parsing: Array(bytes.prefix(length))) }
            switch error {
            case .tooShort(let count)?: #expect(length < 37 && count == length)
            case .attestedCredentialCutShort?: #expect((37..<55).contains(length))
            case .credentialIDBeyondData(let declared, _)?: #expect((55..<keyStart).contains(length) && declared == 81)
            case .publicKeyNotCBOR?: #expect((keyStart..<extensionsStart).contains(length))
            case .extensionsNotCBOR(_, let before)?:
                #expect(length >= extensionsStart)
                #expect(before.attestedCredential?.publicKey == Self.key, "what was read before")
            default: Issue.record("a prefix of \(length) bytes: \(String(describing: error))")
            }
        }
    }

    @Test("a byte after the last part is refused as a trailing byte, with the parts read (the extension outputs too); without ED the extension outputs are trailing bytes")
    func trailing() throws {
        let extra = #expect(throws: AuthenticatorDataFields.ParseError.self) { try AuthenticatorDataFields(parsing: Self.registration + [0]) }
        guard case .trailingBytes(1, let read)? = extra else { Issue.record("\(String(describing: extra))"); return }
        #expect(read.extensions == Self.extensions)
        var withoutED = Self.registration
        withoutED[32] = 0x41
        let error = #expect(throws: AuthenticatorDataFields.ParseError.self) { try AuthenticatorDataFields(parsing: withoutED) }
        guard case .trailingBytes(let count, let before)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(count == CBOREncoder.encode(Self.extensions).count)
        #expect(before.attestedCredential?.credentialID == Self.credentialID && before.extensions == nil)
    }
}
