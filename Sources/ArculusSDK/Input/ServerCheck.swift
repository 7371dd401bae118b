import CTAPClient
import Foundation
import JSONSupport

/// The checks of what a FIDO2 server or backend sent, by the rules of ``InputCheck``, before any
/// of it reaches the card. A value that fails is the server's fault, not the caller's: 601 Unknown
/// with a message that says which server value and why.
struct ServerCheck {
    let operation: ArculusFidoOperation
    /// Where the values come from: "the FIDO2 server's registration options".
    let source: String

    func fault(_ field: String, _ value: String, _ problem: String) -> ArculusFidoError {
        ArculusFidoError(.unknown, during: operation, "\(source): \(field) \(ArculusFidoInputError.quoted(value)) \(problem)")
    }

    func challenge(_ text: String) throws(ArculusFidoError) -> [UInt8] {
        let (bytes, problem) = Base64URL.strictDecode(text)
        guard let bytes else { throw fault("challenge", text, problem ?? "is not base64url") }
        guard bytes.count >= 16 else { throw fault("challenge", text, "is \(bytes.count) bytes; WebAuthn challenges are at least 16") }
        return bytes
    }

    func rpID(_ id: String, field: String) throws(ArculusFidoError) {
        if let problem = RelyingPartyID.problem(id) { throw fault(field, id, problem) }
    }

    func origin(_ text: String, field: String) throws(ArculusFidoError) -> WebOrigin {
        let (origin, problem) = WebOrigin.parse(text)
        guard let origin else { throw fault(field, text, problem ?? "is not an origin") }
        return origin
    }

    /// The RP ID the server expects fits the origin the card signs for, unless `allowMismatch`.
    func fit(_ id: String, origin: WebOrigin, originName: String, allowMismatch: Bool) throws(ArculusFidoError) {
        guard !allowMismatch, let misfit = RelyingPartyID.misfit(id, origin: origin) else { return }
        let quotedOrigin = ArculusFidoInputError.quoted(origin.serialised)
        let why: ArculusFidoMessage = misfit == .ipAddressOrigin
            ? "\(originName) \(quotedOrigin) \(RelyingPartyID.ipAddressReason(origin))"
            : "the RP ID \(ArculusFidoInputError.quoted(id)) " + RelyingPartyID.reason(misfit, origin: "\(originName) \(quotedOrigin)")
        throw ArculusFidoError(.unknown, during: operation, "\(source): " + why + RelyingPartyID.anyway(operation))
    }

    /// What the card signs for from a server's options: the challenge and the RP ID at `rpField`
    /// (`rp.id` of registration options, `rpId` of authentication options; `fallback` when
    /// absent), checked, and the RP ID's fit to `origin` unless `allowMismatch`.
    func signing(_ options: JSONValue, rpField: String, fallback: String, origin: WebOrigin, originName: String,
                 allowMismatch: Bool) throws(ArculusFidoError) -> (challenge: [UInt8], rpID: String) {
        guard let text = options["challenge"]?.stringValue else {
            throw ArculusFidoError(.unknown, during: operation, "\(source): no challenge to sign")
        }
        let bytes = try challenge(text)
        let path = rpField.split(separator: ".").map(String.init)
        let id = path.reduce(Optional(options)) { value, key in value?[key] }?.stringValue ?? fallback
        try rpID(id, field: rpField)
        try fit(id, origin: origin, originName: originName, allowMismatch: allowMismatch)
        return (bytes, id)
    }

    /// The credential IDs of a server's `allowCredentials` or `excludeCredentials`.
    func credentials(_ list: JSONValue?, field: String) throws(ArculusFidoError) -> [CredentialDescriptor] {
        var descriptors: [CredentialDescriptor] = []
        for entry in list?.arrayValue ?? [] {
            guard let text = entry["id"]?.stringValue else {
                throw ArculusFidoError(.unknown, during: operation, "\(source): \(field) has an entry without an id: \(entry.text)")
            }
            let (bytes, problem) = Base64URL.strictDecode(text)
            guard let bytes else { throw fault("a credential ID in \(field)", text, problem ?? "is not base64url") }
            guard (16...1023).contains(bytes.count) else {
                throw fault("a credential ID in \(field)", text, "is \(bytes.count) bytes; credential IDs are 16 to 1023 bytes (WebAuthn §4)")
            }
            descriptors.append(CredentialDescriptor(id: bytes))
        }
        return descriptors
    }

    /// The attestation conveyance a server's registration options ask for: `none` when absent
    /// (the conformance API's default) or unknown (WebAuthn §5.4.7: clients ignore unknown
    /// values), else the value.
    func attestationConveyance(_ value: JSONValue?) throws(ArculusFidoError) -> String {
        guard let value else { return "none" }
        guard let text = value.stringValue else {
            throw ArculusFidoError(.unknown, during: operation, "\(source): attestation is \(value.text), not a string")
        }
        return ["none", "indirect", "direct", "enterprise"].contains(text) ? text : "none"
    }

    /// Whether a server's refusal to start an authentication says it does not know the user:
    /// HTTP 404, or words servers use for it ("User does not exists!", the conformance API's
    /// example).
    static func isUnknownUser(_ refusal: String, status: Int?) -> Bool {
        let lowered = refusal.lowercased()
        return status == 404 || ["not found", "does not exist", "unknown user", "no such user", "not registered"]
            .contains { lowered.contains($0) }
    }

    /// A user handle: base64url of 1 to 64 bytes (WebAuthn §5.4.3 `user.id`).
    func userHandle(_ text: String) throws(ArculusFidoError) -> [UInt8] {
        let (bytes, problem) = Base64URL.strictDecode(text)
        guard let bytes else { throw fault("user.id", text, problem ?? "is not base64url") }
        guard (1...64).contains(bytes.count) else { throw fault("user.id", text, "is \(bytes.count) bytes; user handles are 1 to 64 bytes") }
        return bytes
    }
}

extension InputCheck {
    /// A server's base URL (a FIDO2 server's, a backend's): http or https with a host.
    func server(_ base: String, _ parameter: ArculusFidoParameter) throws(ArculusFidoError) {
        guard let components = URLComponents(string: base), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", components.host?.isEmpty == false else {
            throw refusal(.invalidServer, parameter, value: base, "is not a server address; give a host name (https) or http(s)://host:port")
        }
    }
}
