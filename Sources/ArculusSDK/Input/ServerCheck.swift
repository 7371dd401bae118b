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
    /// (`rp.id` of registration options, `rpId` of authentication options), checked, and the RP
    /// ID's fit to `origin` unless `allowMismatch`.
    ///
    /// The server decides the RP, as in the vendor's sample apps: the caller's `fallback` is used
    /// only when the options name none (and one of the two must be there). With `strict`, a server
    /// that names another RP ID than the caller's is refused (702) before the card is used.
    func signing(_ options: JSONValue, rpField: String, fallback: String?, strict: Bool, origin: WebOrigin, originName: String,
                 allowMismatch: Bool) throws(ArculusFidoError) -> (challenge: [UInt8], rpID: String) {
        guard let text = options["challenge"]?.stringValue else {
            throw ArculusFidoError(.unknown, during: operation, "\(source): no challenge to sign")
        }
        let bytes = try challenge(text)
        let path = rpField.split(separator: ".").map(String.init)
        let member = path.reduce(Optional(options)) { value, key in value?[key] }
        if let member, member.stringValue == nil, member != .null {
            throw ArculusFidoError(.unknown, during: operation, "\(source): \(rpField) is \(member.text), not a string")
        }
        let named = member?.stringValue
        let parameter = operation.relyingPartyParameter
        if strict, let named, let fallback, named != fallback {
            throw ArculusFidoError(.relyingPartyMismatch, during: operation,
                                   "\(source): \(rpField) is \(ArculusFidoInputError.quoted(named)), not \(parameter, of: operation) \(ArculusFidoInputError.quoted(fallback)); with \(ArculusFidoParameter.strictRP, of: operation) the card signs for \(parameter, of: operation) only, so it was not used")
        }
        guard let id = named ?? fallback else {
            throw ArculusFidoError(ArculusFidoInputError(.invalidRPID, parameter, of: operation, value: nil,
                                                         "is needed: there is no \(rpField) in \(source); give the relying party's domain, e.g. example.com"))
        }
        if named != nil { try rpID(id, field: rpField) }
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
    /// A timeout in seconds that the SDK can wait (``HTTPExchange/timeouts``: above 0, at most an
    /// hour), so that no value a caller gives makes a wait that overflows or never ends.
    func timeout(_ seconds: Double, _ parameter: ArculusFidoParameter) throws(ArculusFidoError) {
        guard HTTPExchange.timeouts.contains(seconds) else {
            throw refusal(.invalidTimeout, parameter, value: "\(seconds)",
                          "is not a number of seconds from \(HTTPExchange.timeouts.lowerBound) to \(Int(HTTPExchange.timeouts.upperBound))")
        }
    }

    /// A server's base URL (a FIDO2 server's, a backend's): http or https with a host.
    func server(_ base: String, _ parameter: ArculusFidoParameter) throws(ArculusFidoError) {
        guard let components = URLComponents(string: base), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", components.host?.isEmpty == false else {
            throw refusal(.invalidServer, parameter, value: base, "is not a server address; give a host name (https) or http(s)://host:port")
        }
    }
}
