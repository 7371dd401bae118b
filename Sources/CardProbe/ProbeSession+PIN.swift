import CBOR
import CTAPClient
import CardCrypto
import FIDOWire
import JSONSupport

/// A pinUvAuthToken the writing part holds, with the protocol it was made under.
struct ProbeToken {
    let value: [UInt8]
    let pinProtocol: any PlatformPINUVAuthProtocol

    /// The pinUvAuthParam over `message`.
    func authenticate(_ message: [UInt8]) -> [UInt8] { pinProtocol.authenticate(key: value, message: message) }
}

/// A shared secret agreed with the card's key-agreement key (CTAP 2.1 §6.5.6).
struct PINSession {
    let pinProtocol: any PlatformPINUVAuthProtocol
    let platformKey: CBORValue
    let secret: [UInt8]

    func encrypt(_ plaintext: [UInt8]) -> [UInt8]? { try? pinProtocol.encrypt(key: secret, plaintext: plaintext) }
    func authenticate(_ message: [UInt8]) -> [UInt8] { pinProtocol.authenticate(key: secret, message: message) }
}

/// A step of a sequence that could not be taken, and why (the entry records it instead).
struct Unmet: Error {
    let reason: String
}

extension ProbeSession {
    /// getKeyAgreement for protocol `version`, then the platform's half of the key agreement.
    func pinSession(_ version: Int) throws(ProbeInterruption) -> Result<PINSession, Unmet> {
        guard let pinProtocol = platformPINUVAuthProtocol(version: version) else {
            return .failure(Unmet(reason: "no PIN/UV auth protocol \(version)"))
        }
        let reply = try exchange(.clientPIN, ProbeValues.clientPIN(.getKeyAgreement, protocol: version))
        guard reply.isOK, let key = reply.body?[int: ClientPINResponseKey.keyAgreement.rawValue] else {
            return .failure(Unmet(reason: "getKeyAgreement (protocol \(version)) answered \(reply.failure)"))
        }
        do {
            let (platformKey, secret) = try pinProtocol.encapsulate(peer: try COSEPublicKey(cbor: key))
            return .success(PINSession(pinProtocol: pinProtocol, platformKey: platformKey.cbor, secret: secret))
        } catch {
            return .failure(Unmet(reason: "the card's key-agreement key is not usable: \(error)"))
        }
    }

    /// A PIN token request: getPinToken when `permissions` is nil, else
    /// getPinUvAuthTokenUsingPinWithPermissions with them (and `rpID`). The record keeps the
    /// request's shape; the token comes back decrypted when the card gave one.
    func token(pin: String, version: Int, permissions: Int? = nil,
               rpID: String? = nil) throws(ProbeInterruption) -> (record: ProbeRecord, token: ProbeToken?) {
        let session: PINSession
        switch try pinSession(version) {
        case .success(let agreed): session = agreed
        case .failure(let unmet): return (Self.skipped(unmet.reason), nil)
        }
        guard let pinHashEnc = session.encrypt(Array(SHA256.hash(Array(pin.utf8)).prefix(16))) else {
            return (Self.skipped("could not encrypt the PIN hash"), nil)
        }
        let subcommand: ClientPINSubcommand = permissions == nil ? .getPinToken : .getPinUvAuthTokenUsingPinWithPermissions
        var more: [ClientPINKey: CBORValue] = [.keyAgreement: session.platformKey, .pinHashEnc: .bytes(pinHashEnc)]
        if let permissions { more[.permissions] = .int(permissions) }
        if let rpID { more[.rpId] = .text(rpID) }
        let parameters = ProbeValues.clientPIN(subcommand, protocol: version, more)
        let reply = try exchange(.clientPIN, parameters)
        let record = ProbeRecord(request: CTAPMessage.shape(.clientPIN, parameters),
                                 answer: AnswerShape.message(reply.exchange, command: .clientPIN, shape: shape))
        guard reply.isOK, let encrypted = reply.body?[int: ClientPINResponseKey.pinUvAuthToken.rawValue]?.bytesValue,
              let value = try? session.pinProtocol.decrypt(key: session.secret, ciphertext: encrypted) else {
            return (record, nil)
        }
        return (record, ProbeToken(value: value, pinProtocol: session.pinProtocol))
    }

    /// setPIN (`current` nil) or changePIN from `current` to `new`, under protocol `version`.
    func setPIN(_ new: String, current: String? = nil, version: Int = 1) throws(ProbeInterruption) -> ProbeRecord {
        let session: PINSession
        switch try pinSession(version) {
        case .success(let agreed): session = agreed
        case .failure(let unmet): return Self.skipped(unmet.reason)
        }
        let block = Array(new.utf8) + [UInt8](repeating: 0, count: max(0, 64 - new.utf8.count))
        guard let newPinEnc = session.encrypt(block) else { return Self.skipped("could not encrypt the new PIN") }
        var more: [ClientPINKey: CBORValue] = [.keyAgreement: session.platformKey, .newPinEnc: .bytes(newPinEnc)]
        var signed = newPinEnc
        if let current {
            guard let pinHashEnc = session.encrypt(Array(SHA256.hash(Array(current.utf8)).prefix(16))) else {
                return Self.skipped("could not encrypt the PIN hash")
            }
            more[.pinHashEnc] = .bytes(pinHashEnc)
            signed += pinHashEnc
        }
        more[.pinUvAuthParam] = .bytes(session.authenticate(signed))
        return try ctap(.clientPIN, ProbeValues.clientPIN(current == nil ? .setPIN : .changePIN, protocol: version, more), random: true)
    }

    /// An entry that could not run its request, and why.
    static func skipped(_ reason: String) -> ProbeRecord {
        ProbeRecord(request: "not sent", answer: ["skipped": .string(reason)])
    }
}
