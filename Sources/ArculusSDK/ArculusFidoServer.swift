import Foundation
import Synchronization

/// A FIDO2 server speaking the vendor's REST API (every path under `/fidoapi/`, in the shape of
/// the FIDO Alliance's conformance server API), as the sample apps configure it:
///
/// ```swift
/// let fidoServer = ArculusFidoServer(domain: "fido.example.com")
/// fidoServer.registrationBeginEndpoint = "fidoapi/certify/attestation/options"
/// fidoServer.registrationCompleteEndpoint = "fidoapi/certify/attestation/result"
/// ```
///
/// `domain` is a host name (HTTPS is implied) or a whole base URL such as
/// `http://127.0.0.1:8080` for a local test server. The origin put in clientDataJSON is the
/// server's own: scheme, host and port of that base.
///
/// The settings below (``Settings``) read and change as the server's own properties
/// (`fidoServer.timeout = 10`); a lock guards them, so a server may be shared.
@dynamicMemberLookup
public final class ArculusFidoServer: Sendable {
    /// What a server's properties hold, by name: `fidoServer.timeout` is ``timeout``.
    public struct Settings: Sendable {
        /// Registration phase 1 (default `fidoapi/certify/attestation/options`).
        public var registrationBeginEndpoint = "fidoapi/certify/attestation/options"
        /// Registration phase 3 (default `fidoapi/certify/attestation/result`).
        public var registrationCompleteEndpoint = "fidoapi/certify/attestation/result"
        /// Authentication phase 1 (default `fidoapi/certify/assertion/options`).
        public var authorizationBeginEndpoint = "fidoapi/certify/assertion/options"
        /// Authentication phase 3 (default `fidoapi/certify/assertion/result`).
        public var authorizationCompleteEndpoint = "fidoapi/certify/assertion/result"
        /// Seconds to wait for each HTTP answer (default 30).
        public var timeout: Double = 30
        /// The attestation the registration options request asks for (default `direct`: the card's
        /// packed attestation, for a server that verifies it). The server's answer decides: when
        /// its options say `none` (or say nothing, the conformance API's default), the SDK sends a
        /// `none` attestation, as a browser does (WebAuthn §5.1.3 step 20).
        public var attestation = "direct"
        /// The `userVerification` both options requests ask for (default `required`: the SDK always
        /// verifies the user with the card's PIN).
        public var userVerification = "required"
    }

    /// The domain or base URL given at creation.
    public let domain: String
    private let settings = Mutex(Settings())

    /// A server at `domain`.
    public init(domain: String) {
        self.domain = domain
    }

    /// One of the ``Settings``, read or changed under the lock.
    public subscript<Value: Sendable>(dynamicMember setting: WritableKeyPath<Settings, Value>) -> Value {
        get { settings.withLock { $0[keyPath: setting] } }
        set { settings.withLock { $0[keyPath: setting] = newValue } }
    }

    /// The conformance API's ServerPublicKeyCredentialCreationOptionsRequest: a discoverable
    /// credential on a cross-platform authenticator, with the user verified.
    func creationOptionsRequest(username: String, displayName: String) -> JSONValue {
        let (attestation, userVerification) = settings.withLock { ($0.attestation, $0.userVerification) }
        return .object([
            "username": .string(username),
            "displayName": .string(displayName),
            "authenticatorSelection": .object([
                "authenticatorAttachment": "cross-platform",
                "residentKey": "required",
                "requireResidentKey": true,
                "userVerification": .string(userVerification),
            ]),
            "attestation": .string(attestation),
        ])
    }

    /// The conformance API's ServerPublicKeyCredentialGetOptionsRequest.
    func getOptionsRequest(username: String) -> JSONValue {
        .object(["username": .string(username), "userVerification": .string(self.userVerification)])
    }

    /// The base URL: `domain` when it has a scheme, else `https://domain`.
    public var baseURL: String {
        let trimmed = domain.hasSuffix("/") ? String(domain.dropLast()) : domain
        return trimmed.contains("://") ? trimmed : "https://" + trimmed
    }

    /// scheme://host[:port] of the base URL: the origin in clientDataJSON.
    public var origin: String {
        guard let components = URLComponents(string: baseURL), let scheme = components.scheme, let host = components.host else {
            return baseURL
        }
        let defaultPort = scheme == "https" ? 443 : scheme == "http" ? 80 : nil
        let port = components.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        let bracketed = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(bracketed)\(port)"
    }

    /// The URL of `endpoint` (a path relative to the base, with or without a leading slash).
    func url(_ endpoint: String, during operation: ArculusFidoOperation) throws(ArculusFidoError) -> URL {
        let path = endpoint.hasPrefix("/") ? String(endpoint.dropFirst()) : endpoint
        guard let url = URL(string: baseURL + "/" + path), url.host != nil else {
            throw ArculusFidoError(.unknown, during: operation,
                                   "'\(baseURL)/\(path)' is not a URL; give the server as a host name or http(s)://host:port and the endpoint as a path")
        }
        return url
    }
}
