import ArculusSDK
import CTAPClient
import Foundation
import JSONSupport
import Synchronization

/// A stand-in server: `Settings` a test changes between calls, and the answer to each request
/// from them (with a fresh 32-byte challenge for it).
class StandInServer<Settings: Sendable>: @unchecked Sendable {
    let http: TestHTTPServer
    private let state: Locked<Settings>

    init(_ settings: Settings, _ answer: @escaping @Sendable (TestHTTPServer.Request, String, inout Settings) -> TestHTTPServer.Reply) throws {
        let state = Locked(settings)
        self.state = state
        http = try TestHTTPServer { request in
            let challenge = Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255) })
            return state.value.withLock { answer(request, challenge, &$0) }
        }
    }

    /// Changes what it answers from now on.
    func settings(_ change: (inout Settings) -> Void) { state.value.withLock { change(&$0) } }

    var url: String { http.url }
}

/// A FIDO2 server of the conformance API's shape, as far as the SDK's side of the wire needs:
/// options naming `rpID` (or no RP at all), a fresh challenge each time, the credential the last
/// registration result sent as the one allowed credential, and `ok` for every result unless told
/// otherwise. It verifies nothing (Tests/Flows runs the flows against a server that does).
final class StandInFIDO2Server: StandInServer<StandInFIDO2Server.Settings>, @unchecked Sendable {
    struct Settings {
        /// The RP ID its options name; nil for options without one.
        var rpID: String? = "localhost"
        var attestation: String? = "none"
        /// The registration result's answer.
        var registrationResult: TestHTTPServer.Reply = .json(200, ["status": "ok", "errorMessage": ""])
        var credentialID: String?
    }

    init(_ settings: Settings = Settings()) throws {
        try super.init(settings) { request, challenge, settings in
            switch request.path {
            case "/fidoapi/certify/attestation/options":
                var options: [String: JSONValue] = [
                    "status": "ok", "errorMessage": "", "challenge": .string(challenge),
                    "user": ["id": .string(Base64URL.encode(Array("id-\(request.body["username"]?.stringValue ?? "")".utf8))), "name": request.body["username"] ?? "", "displayName": "Alice"],
                    "pubKeyCredParams": [["type": "public-key", "alg": -7]],
                ]
                options["rp"] = settings.rpID.map { ["id": .string($0), "name": "Stand-in RP"] }
                options["attestation"] = settings.attestation.map(JSONValue.string)
                return .json(200, .object(options), headers: ["Set-Cookie": "SESSION=\(challenge.prefix(8)); Path=/"])
            case "/fidoapi/certify/attestation/result":
                settings.credentialID = request.body["id"]?.stringValue
                return settings.registrationResult
            case "/fidoapi/certify/assertion/options":
                var options: [String: JSONValue] = ["status": "ok", "errorMessage": "", "challenge": .string(challenge)]
                options["rpId"] = settings.rpID.map(JSONValue.string)
                if let id = settings.credentialID { options["allowCredentials"] = [["type": "public-key", "id": .string(id)]] }
                return .json(200, .object(options))
            case "/fidoapi/certify/assertion/result":
                return .json(200, ["status": "ok", "errorMessage": ""])
            default:
                return .json(404, ["status": "failed", "errorMessage": "no such endpoint"])
            }
        }
    }

    var paths: [String] { http.requests.map(\.path) }

    /// The seed's server configuration, with `timeout`.
    func configuration(timeout: Double = 5) -> ArculusFidoServer {
        let server = ArculusFidoServer(domain: url)
        server.timeout = timeout
        return server
    }
}

/// A backend of the seed servlet's contract: phase 1 answers with the FIDO2 server's options
/// (naming `rpID`), `fido2ServerOrigin`, cookies and a session ID; phase 3 with success.
final class StandInBackend: StandInServer<StandInBackend.Settings>, @unchecked Sendable {
    struct Settings {
        var rpID: String? = "localhost"
        var origin = "http://localhost:8080"
        var phaseThree: TestHTTPServer.Reply = .json(200, ["status": "success", "message": "done"])
        var credentialID: String?
    }

    init(_ settings: Settings = Settings()) throws {
        try super.init(settings) { request, challenge, settings in
            let registering = request.path == "/fido/register"
            if let card = request.body["cardResponseData"] {
                settings.credentialID = card["id"]?.stringValue
                return settings.phaseThree
            }
            var server: [String: JSONValue] = ["challenge": .string(challenge)]
            if registering {
                server["rp"] = settings.rpID.map { ["id": .string($0), "name": "Stand-in RP"] }
                server["user"] = ["id": .string(Base64URL.encode(Array("backend-user".utf8))), "name": request.body["username"] ?? ""]
            } else {
                server["rpId"] = settings.rpID.map(JSONValue.string)
                if let id = settings.credentialID { server["allowCredentials"] = [["type": "public-key", "id": .string(id)]] }
            }
            return .json(200, ["status": "success", "fidoServerResponse": .object(server),
                               "fido2ServerOrigin": .string(settings.origin), "cookies": "FIDOSESSION=abc",
                               "sessionId": "session-1"])
        }
    }

    func client(timeout: Double = 5) -> ArculusBackendClient {
        ArculusBackendClient(baseUrl: url, timeout: timeout)
    }
}

/// A `Mutex` a closure can share.
final class Locked<Value>: Sendable {
    let value: Mutex<Value>
    init(_ value: sending Value) { self.value = Mutex(value) }
}
