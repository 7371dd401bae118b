import ArculusCard
import CBOR
import CardCrypto
import Testing
import FIDOWire
import TestSupport

extension PlatformPINOne {
    /// getPinUvAuthTokenUsingPinWithPermissions (0x09) with protocol one: the decrypted token.
    static func token(_ pin: String, permissions: UInt64, rpId: String? = nil, on card: VirtualCard) throws -> [UInt8] {
        let session = try PlatformPINOne(card: card)
        let pinHashEnc = try session.encrypt(pinHash(pin))
        var request: CBORMap = [.int(1): 1, .int(2): 9, .int(3): session.platformKey, .int(6): .bytes(pinHashEnc),
                                .int(9): .unsigned(permissions)]
        if let rpId { request[int: 0x0A] = .text(rpId) }
        guard let encrypted = try card.send(.clientPIN, request).okBody()[int: 2]?.bytesValue else { throw TestFailure("no token") }
        return try session.session.decrypt(encrypted)
    }
}

/// authenticatorConfig (CTAP 2.1 §6.11) parameters, authenticated with a protocol-one `token`
/// over 32×0xff ‖ 0x0d ‖ subCommand ‖ subCommandParams when one is given.
func configParameters(_ subCommand: UInt8, _ parameters: CBORMap? = nil, token: [UInt8]? = nil) -> CBORMap {
    var request: CBORMap = [.int(1): .unsigned(UInt64(subCommand))]
    if let parameters { request[int: 2] = .map(parameters) }
    if let token {
        var message = [UInt8](repeating: 0xFF, count: 32) + [0x0D, subCommand]
        if let parameters { message += CBOREncoder.encode(.map(parameters)) }
        request[int: 3] = 1
        request[int: 4] = .bytes(PlatformPIN.one.authenticate(key: token, message))
    }
    return request
}

/// A serialized large-blob array: CBOR(items) ‖ LEFT(SHA-256(CBOR(items)), 16) (CTAP 2.1 §6.10.1).
func serializedLargeBlobArray(_ items: [CBORValue]) -> [UInt8] {
    let array = CBOREncoder.encode(.array(items))
    return array + SHA256.hash(array).prefix(16)
}

/// U2F REGISTER (FIDO U2F Raw Message Formats §4.1) as a short APDU.
func u2fRegisterAPDU(application: [UInt8]) -> [UInt8] {
    [0x00, 0x01, 0x00, 0x00, 0x40] + [UInt8](repeating: 0x11, count: 32) + application + [0x00]
}
