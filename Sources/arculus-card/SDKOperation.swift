import ArculusSDK
import JSONSupport

/// One operation of `arculus-card sdk`: its name, the options it takes, its help and what it
/// runs. ``all`` is the one table the command's option parsing, help text and dispatch read, so
/// an operation cannot be listed without being runnable, or run without being listed.
struct SDKOperation: Sendable {
    /// `arculus-card sdk <name>`.
    let name: String
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

        static func required(_ name: String, _ value: String) -> Option { Option(name: name, value: value, isRequired: true) }
        static func optional(_ name: String, _ value: String) -> Option { Option(name: name, value: value, isRequired: false) }
        static func flag(_ name: String) -> Option { Option(name: name, value: nil, isRequired: false) }

        /// `--pin PIN`, `[--display-name NAME]`, `[--reset-device]`.
        var usage: String {
            let text = value.map { "\(name) \($0)" } ?? name
            return isRequired ? text : "[\(text)]"
        }
    }

    var valued: Set<String> { Set(options.filter { $0.value != nil }.map(\.name)) }
    var flags: Set<String> { Set(options.filter { $0.value == nil }.map(\.name)) }
    var required: [String] { options.filter(\.isRequired).map(\.name) }

    static func named(_ name: String) -> SDKOperation? { all.first { $0.name == name } }

    // MARK: - The table

    private static let endpoints: [Option] = [.optional("--begin-endpoint", "PATH"), .optional("--complete-endpoint", "PATH"),
                                              .optional("--timeout", "SECONDS")]

    static let all: [SDKOperation] = [
        SDKOperation(name: "set-pin", label: "[setPin]", options: [.required("--pin", "PIN")], about: []) { run async throws(ArculusFidoError) in
            run.success(try await run.sdk.setPin(pin: run["--pin"]))
        },
        SDKOperation(name: "change-pin", label: "[changePin]",
                     options: [.required("--old-pin", "PIN"), .required("--new-pin", "PIN")], about: []) { run async throws(ArculusFidoError) in
            run.success(try await run.sdk.changePin(oldPin: run["--old-pin"], newPin: run["--new-pin"]))
        },
        SDKOperation(name: "register-card-only", label: "[registerCardOnly]",
                     options: [.required("--pin", "PIN"), .required("--username", "NAME"), .optional("--display-name", "NAME"),
                               .required("--rp-id", "ID"), .required("--challenge", "B64URL"), .required("--origin", "URL")],
                     about: ["Prints the registration response JSON (id, rawId, type,",
                             "response.clientDataJSON, response.attestationObject) that a",
                             "backend forwards to its FIDO2 server."]) { run async throws(ArculusFidoError) in
            try await run.sdk.registerCardOnly(pin: run["--pin"], username: run["--username"], displayName: run.displayName,
                                               rpId: run["--rp-id"], challenge: run["--challenge"], origin: run["--origin"])
        },
        SDKOperation(name: "authenticate-card-only", label: "[authenticateCardOnly]",
                     options: [.required("--pin", "PIN"), .required("--username", "NAME"), .required("--rp-id", "ID"),
                               .required("--challenge", "B64URL"), .required("--origin", "URL"),
                               .optional("--allow-credentials", "ID,ID")],
                     about: ["Prints the authentication response JSON (..., response.",
                             "authenticatorData, response.signature, response.userHandle)."]) { run async throws(ArculusFidoError) in
            let allowed = (run.options.value("--allow-credentials") ?? "").split(separator: ",").map(String.init)
            return try await run.sdk.authenticateCardOnly(pin: run["--pin"], username: run["--username"], rpId: run["--rp-id"],
                                                          challenge: run["--challenge"], origin: run["--origin"],
                                                          allowCredentials: allowed)
        },
        SDKOperation(name: "delete-credential", label: "[deleteCredentialByCredentialId]",
                     options: [.required("--pin", "PIN"), .required("--credential-id", "ID")], about: []) { run async throws(ArculusFidoError) in
            try await run.sdk.deleteCredentialByCredentialId(pin: run["--pin"], credentialId: run["--credential-id"])
            return run.success("credential deleted", ["credentialId": .string(run["--credential-id"])])
        },
        SDKOperation(name: "reset-device", label: "[resetDevice]", options: [.required("--pin", "NEW-PIN")],
                     about: ["Erases the card (every credential, the PIN), then sets NEW-PIN."]) { run async throws(ArculusFidoError) in
            run.success(try await run.sdk.resetDevice(pin: run["--pin"]))
        },
        SDKOperation(name: "list-credentials", label: nil, options: [.required("--pin", "PIN"), .optional("--rp-id", "ID")],
                     about: ["The discoverable credentials (credMgmt): all, or one RP's."]) { run async throws(ArculusFidoError) in
            let credentials = try await run.sdk.listCredentials(pin: run["--pin"], rpId: run.options.value("--rp-id"))
            return SDKOutput.credentials(credentials)
        },
        SDKOperation(name: "info", label: nil, options: [], about: ["getInfo and the PIN retry counter."]) { run async throws(ArculusFidoError) in
            let (info, retries) = try await run.sdk.cardInfo()
            return SDKOutput.info(info, pinRetries: retries)
        },
        SDKOperation(name: "register-user", label: "[registerUser]",
                     options: [.required("--server", "URL"), .required("--pin", "PIN"), .required("--username", "NAME"),
                               .optional("--display-name", "NAME"), .required("--rp-id", "ID"), .flag("--reset-device"),
                               .optional("--registration-info", "TEXT")] + endpoints,
                     about: ["Client-direct: the FIDO2 server's registration options, the",
                             "card, the server's result endpoint (session cookies kept)."]) { run async throws(ArculusFidoError) in
            try await run.sdk.registerUser(fidoServer: run.server(registering: true), pin: run["--pin"], username: run["--username"],
                                           displayName: run.displayName, relyingParty: run["--rp-id"],
                                           resetDevice: run.options.flag("--reset-device"),
                                           registrationInfo: run.options.value("--registration-info"))
        },
        SDKOperation(name: "authenticate-user", label: "[authenticateUser]",
                     options: [.required("--server", "URL"), .required("--pin", "PIN"), .required("--username", "NAME"),
                               .optional("--display-name", "NAME"), .required("--rp-id", "ID")] + endpoints,
                     about: []) { run async throws(ArculusFidoError) in
            try await run.sdk.authenticateUser(fidoServer: run.server(registering: false), pin: run["--pin"],
                                               username: run["--username"], displayName: run.displayName,
                                               relyingParty: run["--rp-id"])
        },
        SDKOperation(name: "register-via-backend", label: "(backend-proxied)",
                     options: [.required("--backend", "URL"), .required("--pin", "PIN"), .required("--username", "NAME"),
                               .optional("--display-name", "NAME"), .required("--rp-id", "ID"),
                               .optional("--backend-path", "PATH"), .optional("--timeout", "SECONDS")],
                     about: ["Phase 1 at the backend, phase 2 on the card, phase 3 at the",
                             "backend; a refused phase 3 deletes the credential again."]) { run async throws(ArculusFidoError) in
            let backend = ArculusBackendClient(baseUrl: run["--backend"],
                                               registerPath: run.options.value("--backend-path") ?? "/fido/register",
                                               timeout: run.timeout)
            return try await run.sdk.registerViaBackend(backend: backend, pin: run["--pin"], username: run["--username"],
                                                        displayName: run.displayName, rpId: run["--rp-id"]).text
        },
        SDKOperation(name: "authenticate-via-backend", label: "(backend-proxied)",
                     options: [.required("--backend", "URL"), .required("--pin", "PIN"), .required("--username", "NAME"),
                               .required("--rp-id", "ID"), .optional("--backend-path", "PATH"), .optional("--timeout", "SECONDS")],
                     about: []) { run async throws(ArculusFidoError) in
            let backend = ArculusBackendClient(baseUrl: run["--backend"],
                                               authenticatePath: run.options.value("--backend-path") ?? "/fido/authenticate",
                                               timeout: run.timeout)
            return try await run.sdk.authenticateViaBackend(backend: backend, pin: run["--pin"], username: run["--username"],
                                                            rpId: run["--rp-id"]).text
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
