import CBOR
import FIDOWire

/// The bytes of CTAP messages and the reading of their answers, apart from sending them: what the
/// synchronous ``CTAPClient`` and the asynchronous ``AsyncCTAPClient`` share, so that each writes
/// only the order of its exchanges.
extension CTAPClient {
    /// A CTAP message: the command byte and its CBOR parameters.
    static func message(_ command: CTAPCommand, _ parameters: CBORMap?) -> [UInt8] {
        var message = [command.rawValue]
        if let parameters { message += CBOREncoder.encode(.map(parameters)) }
        return message
    }

    /// The decoded map of a CTAP response (empty for a bare `CTAP2_OK`), or the card's refusal,
    /// naming `subcommand` when given.
    static func responseMap(_ response: [UInt8], command: CTAPCommand, subcommand: String?) throws(CTAPClientError) -> CBORMap {
        let status = CTAPStatus(rawValue: response[0])
        guard status == .ok else { throw .ctap(CTAPError(status: status, command: command, subcommand: subcommand)) }
        guard response.count > 1 else { return CBORMap() }
        return try decodeBody(response, command: command)
    }

    /// getInfo's answer read.
    static func info(from response: [UInt8]) throws(CTAPClientError) -> AuthenticatorInfo {
        let status = CTAPStatus(rawValue: response[0])
        guard status == .ok else { throw .ctap(CTAPError(status: status, command: .getInfo)) }
        return try AuthenticatorInfo(try decodeBody(response, command: .getInfo))
    }

    /// The PIN/UV auth protocol a client uses with a card of `info`: `forced`, else 2 if the
    /// card lists it, else 1.
    static func pinProtocol(_ info: AuthenticatorInfo, forced: Int?) throws(CTAPClientError) -> any PlatformPINUVAuthProtocol {
        guard let version = forced ?? info.preferredPINUVAuthProtocol, let chosen = platformPINUVAuthProtocol(version: version) else {
            throw .unsupported("the card lists no PIN/UV auth protocol this client implements (it lists \(info.pinUVAuthProtocols))")
        }
        return chosen
    }
}

extension MakeCredentialRequest {
    /// authenticatorMakeCredential's parameters (CTAP 2.1 §6.1); with a token, pinUvAuthParam =
    /// authenticate(token, clientDataHash).
    func parameters(token: PINUVAuthToken?) -> CBORMap {
        CBORMap([
            MakeCredentialKey.clientDataHash: .bytes(clientDataHash),
            .rp: relyingParty.cbor,
            .user: user.cbor,
            .pubKeyCredParams: .array(algorithms.map { .map(["alg": .int($0), "type": "public-key"]) }),
            .excludeList: excludeList.isEmpty ? nil : .array(excludeList.map(\.cbor)),
            .extensions: extensions.map { .map($0) },
            .options: residentKey ? .map(["rk": true]) : nil,
            .pinUvAuthParam: token.map { .bytes($0.authenticate(clientDataHash)) },
            .pinUvAuthProtocol: token.map { .int($0.pinProtocol.version) },
        ])
    }
}

extension GetAssertionRequest {
    /// authenticatorGetAssertion's parameters (CTAP 2.1 §6.2).
    func parameters(token: PINUVAuthToken?) -> CBORMap {
        CBORMap([
            GetAssertionKey.rpId: .text(rpID),
            .clientDataHash: .bytes(clientDataHash),
            .allowList: allowList.isEmpty ? nil : .array(allowList.map(\.cbor)),
            .options: userPresence ? nil : .map(["up": false]),
            .pinUvAuthParam: token.map { .bytes($0.authenticate(clientDataHash)) },
            .pinUvAuthProtocol: token.map { .int($0.pinProtocol.version) },
        ])
    }
}
