import ArculusSDK
import JSONSupport

/// One operation of `arculus-card sdk`: its name, the options it takes, its help and what it
/// runs. ``all`` is the one table the command's option parsing, help text and dispatch read, so
/// an operation cannot be listed without being runnable, or run without being listed.
struct SDKOperation: Sendable {
    /// `arculus-card sdk <name>`.
    let name: String
    /// The SDK operation it runs: the SDK's messages about it are printed in this command's terms.
    let operation: ArculusFidoOperation
    /// The note at the right of its help line: the SDK's name for it (`[setPin]`) or its flow.
    let label: String?
    /// The options beyond the card's, in the order the help shows them.
    let options: [Option]
    /// Help lines under the usage.
    let about: [String]
    /// Runs it; returns what it prints on stdout.
    let perform: @Sendable (SDKInvocation) async throws(ArculusFidoError) -> String

    /// An option of an operation.
    struct Option: Sendable {
        let name: String
        /// The value's placeholder in the help (`PIN`); nil for a flag.
        let value: String?
        let isRequired: Bool
        /// The SDK parameter it gives: how the command line spells the parameter in messages.
        let parameter: ArculusFidoParameter?

        static func required(_ name: String, _ value: String, _ parameter: ArculusFidoParameter? = nil) -> Option {
            Option(name: name, value: value, isRequired: true, parameter: parameter)
        }
        static func optional(_ name: String, _ value: String, _ parameter: ArculusFidoParameter? = nil) -> Option {
            Option(name: name, value: value, isRequired: false, parameter: parameter)
        }
        static func flag(_ name: String, _ parameter: ArculusFidoParameter? = nil) -> Option {
            Option(name: name, value: nil, isRequired: false, parameter: parameter)
        }

        /// `--pin PIN`, `[--display-name NAME]`, `[--reset-device]`.
        var usage: String {
            let text = value.map { "\(name) \($0)" } ?? name
            return isRequired ? text : "[\(text)]"
        }
    }

    var required: [String] { options.filter(\.isRequired).map(\.name) }

    static func named(_ name: String) -> SDKOperation? { all.first { $0.name == name } }

    /// The command that runs `operation`: every SDK operation has one.
    static func running(_ operation: ArculusFidoOperation) -> SDKOperation {
        guard let command = all.first(where: { $0.operation == operation }) else {
            preconditionFailure("no 'arculus-card sdk' command runs \(operation)")
        }
        return command
    }

    /// The option that gives `parameter`, e.g. `--old-pin` for `oldPin`.
    func option(giving parameter: ArculusFidoParameter) -> String? {
        options.first { $0.parameter == parameter }?.name
    }

    // MARK: - The table

    private static let endpoints: [Option] = [.optional("--begin-endpoint", "PATH"), .optional("--complete-endpoint", "PATH"),
                                              .optional("--timeout", "SECONDS", .fidoServerTimeout)]
    private static let pin = Option.required("--pin", "PIN", .pin)
    private static let username = Option.required("--username", "NAME", .username)
    private static let displayName = Option.optional("--display-name", "NAME", .displayName)
    private static let rpID = Option.required("--rp-id", "ID", .rpId)
    private static let challengeAndOrigin = [Option.required("--challenge", "B64URL", .challenge), .required("--origin", "URL", .origin)]
    private static let allowMismatch = Option.flag("--allow-rp-id-mismatch", .allowRPIDMismatch)
    private static let strictRP = Option.flag("--strict-rp", .strictRP)
    /// A flow's RP ID: the fallback for a server that names none (required with --strict-rp).
    private static func flowRPID(_ parameter: ArculusFidoParameter) -> Option { .optional("--rp-id", "ID", parameter) }

    static let all: [SDKOperation] = [
        SDKOperation(name: "set-pin", operation: .setPin, label: "[setPin]", options: [pin], about: []) { run async throws(ArculusFidoError) in
            try await run.sdk.throwing.setPin(pin: run["--pin"])
            return run.success("PIN set")
        },
        SDKOperation(name: "change-pin", operation: .changePin, label: "[changePin]",
                     options: [.required("--old-pin", "PIN", .oldPin), .required("--new-pin", "PIN", .newPin)], about: []) { run async throws(ArculusFidoError) in
            try await run.sdk.throwing.changePin(oldPin: run["--old-pin"], newPin: run["--new-pin"])
            return run.success("PIN changed")
        },
        SDKOperation(name: "register-card-only", operation: .registerCardOnly, label: "[registerCardOnly]",
                     options: [pin, username, displayName, rpID] + challengeAndOrigin
                        + [.optional("--user-id", "B64URL", .userId), allowMismatch],
                     about: ["Prints the registration response JSON that a backend forwards",
                             "to its FIDO2 server (WebAuthn Level 3 toJSON(): id, rawId, type,",
                             "response.clientDataJSON, attestationObject, authenticatorData,",
                             "publicKey, publicKeyAlgorithm, transports). The user handle is",
                             "--user-id (the server's user.id) or else the UTF-8 user name."]) { run async throws(ArculusFidoError) in
            try await run.sdk.registerCardOnly(pin: run["--pin"], username: run["--username"], displayName: run.displayName,
                                               rpId: run["--rp-id"], challenge: run["--challenge"], origin: run["--origin"],
                                               userId: run.options.value("--user-id"), allowRPIDMismatch: run.allowsMismatch)
        },
        SDKOperation(name: "authenticate-card-only", operation: .authenticateCardOnly, label: "[authenticateCardOnly]",
                     options: [pin, username, rpID] + challengeAndOrigin
                        + [.optional("--allow-credentials", "ID,ID", .allowCredentials), allowMismatch],
                     about: ["Prints the authentication response JSON (..., response.",
                             "authenticatorData, response.signature, and response.userHandle",
                             "when the card returned one)."]) { run async throws(ArculusFidoError) in
            // Every comma separates an ID, so an empty entry is seen (and refused), not dropped.
            let allowed = run.options.value("--allow-credentials").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
            return try await run.sdk.authenticateCardOnly(pin: run["--pin"], username: run["--username"], rpId: run["--rp-id"],
                                                          challenge: run["--challenge"], origin: run["--origin"],
                                                          allowCredentials: allowed ?? [], allowRPIDMismatch: run.allowsMismatch)
        },
        SDKOperation(name: "delete-credential", operation: .deleteCredentialByCredentialId, label: "[deleteCredentialByCredentialId]",
                     options: [pin, .required("--credential-id", "ID", .credentialId)], about: []) { run async throws(ArculusFidoError) in
            try await run.sdk.deleteCredentialByCredentialId(pin: run["--pin"], credentialId: run["--credential-id"])
            return run.success("credential deleted", ["credentialId": .string(run["--credential-id"])])
        },
        SDKOperation(name: "reset-device", operation: .resetDevice, label: "[resetDevice]", options: [.required("--pin", "NEW-PIN", .pin)],
                     about: ["Erases the card (every credential, the PIN), then sets NEW-PIN."]) { run async throws(ArculusFidoError) in
            run.success(try await run.sdk.resetDevice(pin: run["--pin"]))
        },
        SDKOperation(name: "list-credentials", operation: .listCredentials, label: nil, options: [pin, .optional("--rp-id", "ID", .rpId)],
                     about: ["The discoverable credentials (credMgmt): all, or one RP's."]) { run async throws(ArculusFidoError) in
            let credentials = try await run.sdk.listCredentials(pin: run["--pin"], rpId: run.options.value("--rp-id"))
            return SDKOutput.credentials(credentials)
        },
        SDKOperation(name: "info", operation: .cardInfo, label: nil, options: [], about: ["getInfo and the card's answer to getPINRetries: pinRetries,",
                             "or null and pinRetriesStatus (e.g. CTAP2_ERR_PIN_NOT_SET",
                             "before a PIN is set)."]) { run async throws(ArculusFidoError) in
            return SDKOutput.info(try await run.sdk.cardInfo())
        },
        SDKOperation(name: "register-user", operation: .registerUser, label: "[registerUser]",
                     options: [.required("--server", "URL", .fidoServer), pin, username, displayName, flowRPID(.relyingParty),
                               .flag("--reset-device"), .optional("--registration-info", "TEXT"), allowMismatch, strictRP] + endpoints,
                     about: ["Client-direct: the FIDO2 server's registration options, the",
                             "card, the server's result endpoint (session cookies kept).",
                             "The card signs for the server's RP ID (--rp-id only when it",
                             "names none); --strict-rp refuses a server naming another."]) { run async throws(ArculusFidoError) in
            let result = try await run.sdk.throwing.registerUser(
                fidoServer: run.server(registering: true), pin: run["--pin"], username: run["--username"],
                displayName: run.displayName, relyingParty: run.options.value("--rp-id"), resetDevice: run.options.flag("--reset-device"),
                registrationInfo: run.options.value("--registration-info"), allowRPIDMismatch: run.allowsMismatch, strictRP: run.isStrict)
            return run.success("Registration successful", SDKOutput.server(result))
        },
        SDKOperation(name: "authenticate-user", operation: .authenticateUser, label: "[authenticateUser]",
                     options: [.required("--server", "URL", .fidoServer), pin, username, displayName, flowRPID(.relyingParty),
                               allowMismatch, strictRP] + endpoints,
                     about: []) { run async throws(ArculusFidoError) in
            let result = try await run.sdk.throwing.authenticateUser(
                fidoServer: run.server(registering: false), pin: run["--pin"], username: run["--username"],
                displayName: run.displayName, relyingParty: run.options.value("--rp-id"), allowRPIDMismatch: run.allowsMismatch,
                strictRP: run.isStrict)
            return run.success("Authentication successful", SDKOutput.server(result))
        },
        SDKOperation(name: "register-via-backend", operation: .registerViaBackend, label: "(backend-proxied)",
                     options: [.required("--backend", "URL", .backend), pin, username, displayName, flowRPID(.rpId),
                               .optional("--backend-path", "PATH"), .optional("--timeout", "SECONDS", .backendTimeout), allowMismatch, strictRP],
                     about: ["Phase 1 at the backend, phase 2 on the card, phase 3 at the",
                             "backend; a refused phase 3 deletes the credential again. The",
                             "card signs for the RP ID the backend names, as with register-user."]) { run async throws(ArculusFidoError) in
            let backend = ArculusBackendClient(baseUrl: run["--backend"],
                                               registerPath: run.options.value("--backend-path") ?? "/fido/register",
                                               timeout: run.timeout)
            let result = try await run.sdk.registerViaBackend(backend: backend, pin: run["--pin"], username: run["--username"],
                                                              displayName: run.displayName, rpId: run.options.value("--rp-id"),
                                                              allowRPIDMismatch: run.allowsMismatch, strictRP: run.isStrict)
            return run.success("Registration successful", SDKOutput.server(result))
        },
        SDKOperation(name: "authenticate-via-backend", operation: .authenticateViaBackend, label: "(backend-proxied)",
                     options: [.required("--backend", "URL", .backend), pin, username, flowRPID(.rpId), .optional("--backend-path", "PATH"),
                               .optional("--timeout", "SECONDS", .backendTimeout), allowMismatch, strictRP],
                     about: []) { run async throws(ArculusFidoError) in
            let backend = ArculusBackendClient(baseUrl: run["--backend"],
                                               authenticatePath: run.options.value("--backend-path") ?? "/fido/authenticate",
                                               timeout: run.timeout)
            let result = try await run.sdk.authenticateViaBackend(backend: backend, pin: run["--pin"], username: run["--username"],
                                                                  rpId: run.options.value("--rp-id"), allowRPIDMismatch: run.allowsMismatch,
                                                                  strictRP: run.isStrict)
            return run.success("Authentication successful", SDKOutput.server(result))
        },
    ]
}

/// One run of an operation: its options (required ones checked against the table before it
/// runs), the SDK over the chosen card, the HTTP timeout.
struct SDKInvocation: Sendable {
    let operation: String
    let options: CommandLineOptions
    let sdk: ArculusFido
    let timeout: Double

    /// The option's value; an absent optional one reads as empty.
    subscript(name: String) -> String { options.value(name) ?? "" }

    /// `--display-name`, else the user name.
    var displayName: String { options.value("--display-name") ?? self["--username"] }

    /// `--allow-rp-id-mismatch`.
    var allowsMismatch: Bool { options.flag("--allow-rp-id-mismatch") }

    /// `--strict-rp`.
    var isStrict: Bool { options.flag("--strict-rp") }

    /// The FIDO2 server of `--server`, with the endpoints the options name for this flow.
    func server(registering: Bool) -> ArculusFidoServer {
        let server = ArculusFidoServer(domain: self["--server"])
        server.timeout = timeout
        if let begin = options.value("--begin-endpoint") {
            if registering { server.registrationBeginEndpoint = begin } else { server.authorizationBeginEndpoint = begin }
        }
        if let complete = options.value("--complete-endpoint") {
            if registering { server.registrationCompleteEndpoint = complete } else { server.authorizationCompleteEndpoint = complete }
        }
        return server
    }

    /// `{"status": "success", "operation": …, "message": …}` plus `extra`.
    func success(_ message: String, _ extra: [String: JSONValue] = [:]) -> String {
        SDKOutput.success(operation: operation, message: message, extra)
    }
}
