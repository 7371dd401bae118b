import Foundation
import JSONSupport
import Synchronization

/// The app's side of the backend-proxied flow: a backend that follows the JSON contract of the
/// sample servlet (`POST {operation, username, displayName, rpId}` for phase 1,
/// `{operation, username, cardResponseData, cookies, sessionId}` for phase 3), mirroring the
/// samples' `BackendApiClient`. The FIDO2 server's session cookies come back in phase 1's JSON
/// (`cookies`) and are sent with phase 3, in the body and as a `Cookie` header.
public final class ArculusBackendClient: Sendable {
    /// The backend's base URL, e.g. `https://your-backend.com`.
    public let baseUrl: String
    /// Path of the registration servlet (default `/fido/register`).
    public let registerPath: String
    /// Path of the authentication servlet (default `/fido/authenticate`).
    public let authenticatePath: String
    /// Seconds each call may take, answer included (checked by the flows: above 0, at most an hour).
    public let timeout: Double
    private let sessionCookies = Mutex<String?>(nil)
    private let http: HTTPExchange

    /// A client of the backend at `baseUrl` with the servlet paths of the samples.
    public init(baseUrl: String, registerPath: String = "/fido/register", authenticatePath: String = "/fido/authenticate",
                timeout: Double = 30) {
        self.baseUrl = baseUrl.hasSuffix("/") ? String(baseUrl.dropLast()) : baseUrl
        self.registerPath = registerPath
        self.authenticatePath = authenticatePath
        self.timeout = timeout
        http = HTTPExchange(timeout: timeout, address: baseUrl)
    }

    /// Forgets the FIDO2 server session cookies of the last phase 1.
    public func clearSessionCookies() {
        sessionCookies.withLock { $0 = nil }
    }

    /// The cookies phase 1 handed over, if any.
    public var cookies: String? { sessionCookies.withLock { $0 } }

    /// Phase 1 of a registration: the backend asks its FIDO2 server for options. Forgets the
    /// cookies of an earlier flow and keeps the ones this answer carries.
    public func registerBegin(username: String, displayName: String, rpId: String) async throws(ArculusFidoError) -> JSONValue {
        try await registerBegin(username: username, displayName: displayName, rpId: rpId, during: nil)
    }

    /// Without `rpId` the phase 1 request has none, and the backend chooses.
    func registerBegin(username: String, displayName: String, rpId: String?,
                       during operation: ArculusFidoOperation?) async throws(ArculusFidoError) -> JSONValue {
        clearSessionCookies()
        var body: [String: JSONValue] = [
            "operation": .string("register"), "username": .string(username), "displayName": .string(displayName),
        ]
        if let rpId { body["rpId"] = .string(rpId) }
        let answer = try await post(registerPath, body, during: operation, what: "registration begin at the backend")
        keepCookies(answer)
        return answer
    }

    /// Phase 3 of a registration: the backend forwards the card's response to its FIDO2 server.
    public func registerComplete(username: String, cardResponseData: JSONValue) async throws(ArculusFidoError) -> JSONValue {
        try await registerComplete(username: username, cardResponseData: cardResponseData, during: nil)
    }

    func registerComplete(username: String, cardResponseData: JSONValue,
                          during operation: ArculusFidoOperation?) async throws(ArculusFidoError) -> JSONValue {
        var body: [String: JSONValue] = [
            "operation": .string("register"), "username": .string(username), "cardResponseData": cardResponseData,
        ]
        if let cookies { body["cookies"] = .string(cookies) }
        return try await post(registerPath, body, during: operation, what: "registration complete at the backend")
    }

    /// Phase 1 of an authentication.
    public func authenticateBegin(username: String, rpId: String) async throws(ArculusFidoError) -> JSONValue {
        try await authenticateBegin(username: username, rpId: rpId, during: nil)
    }

    func authenticateBegin(username: String, rpId: String?, during operation: ArculusFidoOperation?) async throws(ArculusFidoError) -> JSONValue {
        clearSessionCookies()
        var body: [String: JSONValue] = ["operation": .string("authenticate"), "username": .string(username)]
        if let rpId { body["rpId"] = .string(rpId) }
        let answer = try await post(authenticatePath, body, during: operation, what: "authentication begin at the backend")
        keepCookies(answer)
        return answer
    }

    /// Phase 3 of an authentication.
    public func authenticateComplete(cardResponseData: JSONValue, sessionId: String?, username: String) async throws(ArculusFidoError) -> JSONValue {
        try await authenticateComplete(cardResponseData: cardResponseData, sessionId: sessionId, username: username, during: nil)
    }

    func authenticateComplete(cardResponseData: JSONValue, sessionId: String?, username: String,
                              during operation: ArculusFidoOperation?) async throws(ArculusFidoError) -> JSONValue {
        var body: [String: JSONValue] = [
            "operation": .string("authenticate"), "username": .string(username), "cardResponseData": cardResponseData,
        ]
        if let sessionId { body["sessionId"] = .string(sessionId) }
        if let cookies { body["cookies"] = .string(cookies) }
        return try await post(authenticatePath, body, during: operation, what: "authentication complete at the backend")
    }

    private func keepCookies(_ answer: JSONValue) {
        if let cookies = answer["cookies"]?.stringValue, !cookies.isEmpty {
            sessionCookies.withLock { $0 = cookies }
        }
    }

    /// POSTs to the backend; the answer's JSON whatever its HTTP status (the servlet reports
    /// failures as `{"status": "failed", "error": …}` with 4xx/5xx), with `httpStatus` added.
    private func post(_ path: String, _ body: [String: JSONValue], during operation: ArculusFidoOperation?,
                      what: String) async throws(ArculusFidoError) -> JSONValue {
        let address = baseUrl + (path.hasPrefix("/") ? path : "/" + path)
        guard let url = URL(string: address), url.host != nil else {
            throw ArculusFidoError(.unknown, during: operation, "\(what): '\(address)' is not a URL")
        }
        let answer = try await http.post(url, .object(body), during: operation, what: what, cookieHeader: cookies)
        guard case .object(var members) = answer.json else {
            let body = answer.text.allSatisfy(\.isWhitespace) ? "with an empty body" : "without JSON: \(answer.text.prefix(200))"
            throw ArculusFidoError(.unknown, during: operation, "\(what): the backend answered HTTP \(answer.status) \(body)",
                                   httpStatus: answer.status)
        }
        members["httpStatus"] = .int(answer.status)
        return .object(members)
    }
}
