#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArculusCard
import ArculusSDK
import CTAPClient
import Dispatch
import PCSC
import Synchronization

/// `arculus-card sdk <operation>`: the SDK-shaped operations of the vendor's Arculus FIDO SDK
/// (setPin, registerCardOnly, ...) and its two flows, for teams in any language. Runs them with
/// the host-side CTAP2 client against an in-process card image or a card on a PC/SC reader, and
/// prints JSON on stdout.
enum SDKCommand: Subcommand {
    static let name = "sdk"
    static let summary = "Run an SDK operation (setPin, registerCardOnly, ...) against a card image or a PC/SC reader"

    static var help: String {
        """
        USAGE: arculus-card sdk <operation> (--card-image FILE [--profile NAME|FILE] | --reader NAME) [options]

        Runs one operation of the Arculus FIDO SDK, as its sample apps call it, through a host-side
        CTAP2 client (SELECT, NFCCTAP_MSG with chaining, PIN/UV auth protocol 2 or 1), and prints
        the result as JSON on stdout. The card is either an in-process emulated card whose memory
        is a card image file (the same file 'arculus-card serve --card FILE' uses), or whatever
        card sits on a PC/SC reader (e.g. 'Virtual PCD 00 01' with 'arculus-card serve --slot 1',
        or a real Arculus card on an NFC reader).

        OPERATIONS (SDK name in brackets):
          set-pin                   --pin PIN                                        [setPin]
          change-pin                --old-pin PIN --new-pin PIN                      [changePin]
          register-card-only        --pin PIN --username NAME [--display-name NAME]  [registerCardOnly]
                                    --rp-id ID --challenge B64URL --origin URL
                                    Prints the registration response JSON (id, rawId, type,
                                    response.clientDataJSON, response.attestationObject) that a
                                    backend forwards to its FIDO2 server.
          authenticate-card-only    --pin PIN --username NAME --rp-id ID             [authenticateCardOnly]
                                    --challenge B64URL --origin URL [--allow-credentials ID,ID]
                                    Prints the authentication response JSON (..., response.
                                    authenticatorData, response.signature, response.userHandle).
          delete-credential         --pin PIN --credential-id ID                     [deleteCredentialByCredentialId]
          reset-device              --pin NEW-PIN                                    [resetDevice]
                                    Erases the card (every credential, the PIN), then sets NEW-PIN.
          list-credentials          --pin PIN [--rp-id ID]   the discoverable credentials (credMgmt)
          info                      getInfo and the PIN retry counter
          register-user             --server URL --pin PIN --username NAME            [registerUser]
                                    [--display-name NAME] --rp-id ID [--reset-device]
                                    [--registration-info TEXT] [--begin-endpoint PATH]
                                    [--complete-endpoint PATH]
                                    Client-direct: the FIDO2 server's registration options, the
                                    card, the server's result endpoint (session cookies kept).
          authenticate-user         --server URL --pin PIN --username NAME            [authenticateUser]
                                    [--display-name NAME] --rp-id ID
                                    [--begin-endpoint PATH] [--complete-endpoint PATH]
          register-via-backend      --backend URL --pin PIN --username NAME          (backend-proxied)
                                    [--display-name NAME] --rp-id ID [--backend-path PATH]
                                    Phase 1 at the backend, phase 2 on the card, phase 3 at the
                                    backend; a refused phase 3 deletes the credential again.
          authenticate-via-backend  --backend URL --pin PIN --username NAME --rp-id ID
                                    [--backend-path PATH]

        THE CARD (one of):
          --card-image FILE         An in-process emulated card whose memory is FILE (created from
                                    --profile if missing; locked while in use, so not while
                                    'arculus-card serve' has it). Each operation is one tap.
          --profile NAME|FILE       The model for a new image (\(CardProfile.builtInNames.joined(separator: ", ")), or a
                                    profile JSON file). Default: \(CardProfile.default.name).
          --remove-card-after N     Fault injection for --card-image: the card leaves the field
                                    instead of answering APDU number N+1 (counted over the run).
          --reader NAME             The card on this PC/SC reader (pcscd), e.g. 'Virtual PCD 00 01'.
          --wait-for-card SECONDS   With --reader: wait up to SECONDS for a card. Default 0.

        OTHER OPTIONS:
          --server URL              The FIDO2 server: a host name (https) or http(s)://host:port.
          --begin-endpoint PATH     Default fidoapi/certify/attestation/options (register-user),
                                    fidoapi/certify/assertion/options (authenticate-user).
          --complete-endpoint PATH  Default fidoapi/certify/attestation/result,
                                    fidoapi/certify/assertion/result.
          --backend URL             The backend following the sample servlet's JSON contract.
          --backend-path PATH       Default /fido/register (register-via-backend),
                                    /fido/authenticate (authenticate-via-backend).
          --timeout SECONDS         HTTP timeout. Default 30.
          -h, --help                Show this help.

        OUTPUT AND EXIT STATUS:
          0   the result as JSON on stdout.
          1   an SDK error: {"error": {"code": 608, "name": "Get PIN Token Failed", "message": ...,
              "ctapStatus": "CTAP2_ERR_PIN_INVALID", "pinRetries": 7}} on stdout, the message on
              stderr. Codes are the vendor SDK's: 600 Tag Lost, 601 Unknown, 602 No Credentials,
              603 User Not Found, 604 Signature Failed, 605 Device Reset Failed, 606 Keystore
              Full, 607 Transmit Failed, 608 Get PIN Token Failed, 609 PIN Verification Failed.
          64  a bad command line.

        EXAMPLES:
          arculus-card sdk set-pin --card-image card.img --pin 123456
          arculus-card sdk register-card-only --card-image card.img --pin 123456 \\
              --username alice@example.com --display-name Alice --rp-id example.com \\
              --challenge q83vEjRWeJCrze8SNFZ4kA --origin https://example.com
          arculus-card sdk register-user --reader 'Virtual PCD 00 01' --server http://127.0.0.1:8080 \\
              --pin 123456 --username alice --rp-id example.com
        """
    }

    /// Each operation's options beyond the card options, and which of them are required.
    private static let operations: [String: (valued: Set<String>, flags: Set<String>, required: [String])] = [
        "set-pin": (["--pin"], [], ["--pin"]),
        "change-pin": (["--old-pin", "--new-pin"], [], ["--old-pin", "--new-pin"]),
        "register-card-only": (["--pin", "--username", "--display-name", "--rp-id", "--challenge", "--origin"], [],
                               ["--pin", "--username", "--rp-id", "--challenge", "--origin"]),
        "authenticate-card-only": (["--pin", "--username", "--rp-id", "--challenge", "--origin", "--allow-credentials"], [],
                                   ["--pin", "--username", "--rp-id", "--challenge", "--origin"]),
        "delete-credential": (["--pin", "--credential-id"], [], ["--pin", "--credential-id"]),
        "reset-device": (["--pin"], [], ["--pin"]),
        "list-credentials": (["--pin", "--rp-id"], [], ["--pin"]),
        "info": ([], [], []),
        "register-user": (["--server", "--pin", "--username", "--display-name", "--rp-id", "--registration-info",
                           "--begin-endpoint", "--complete-endpoint", "--timeout"], ["--reset-device"],
                          ["--server", "--pin", "--username", "--rp-id"]),
        "authenticate-user": (["--server", "--pin", "--username", "--display-name", "--rp-id", "--begin-endpoint",
                               "--complete-endpoint", "--timeout"], [], ["--server", "--pin", "--username", "--rp-id"]),
        "register-via-backend": (["--backend", "--backend-path", "--pin", "--username", "--display-name", "--rp-id", "--timeout"], [],
                                 ["--backend", "--pin", "--username", "--rp-id"]),
        "authenticate-via-backend": (["--backend", "--backend-path", "--pin", "--username", "--rp-id", "--timeout"], [],
                                     ["--backend", "--pin", "--username", "--rp-id"]),
    ]

    private static let cardOptions: Set<String> = ["--card-image", "--profile", "--reader", "--wait-for-card", "--remove-card-after"]

    static func run(_ arguments: [String]) throws -> Int32 {
        guard let operation = arguments.first, !operation.hasPrefix("-") else {
            throw UsageError("name an operation: \(operations.keys.sorted().joined(separator: ", "))")
        }
        guard let spec = operations[operation] else {
            throw UsageError("unknown operation '\(operation)'. Known: \(operations.keys.sorted().joined(separator: ", "))")
        }
        let options = try CommandLineOptions(Array(arguments.dropFirst()), valued: spec.valued.union(cardOptions), flags: spec.flags)
        guard options.positionals.isEmpty else { throw UsageError("unexpected argument '\(options.positionals[0])'") }
        for name in spec.required where options.value(name) == nil {
            throw UsageError("\(operation) needs \(name)")
        }
        let connector: any CardConnector
        do {
            connector = try makeConnector(options)
        } catch let unavailable as CardUnavailable {
            let error = ArculusFidoError(.unknown, unavailable.description)
            Console.output(error.json.text)
            Console.error("arculus-card sdk \(operation): \(error)")
            return ExitStatus.failure
        }
        let sdk = ArculusFido(card: connector)
        let timeout = try seconds(options, "--timeout", default: 30)
        let result = runBlocking { () async throws(ArculusFidoError) -> String in
            try await perform(operation, options, sdk: sdk, timeout: timeout)
        }
        switch result {
        case .success(let output):
            Console.output(output)
            return ExitStatus.success
        case .failure(let error):
            Console.output(error.json.text)
            Console.error("arculus-card sdk \(operation): \(error)")
            return ExitStatus.failure
        }
    }

    // MARK: - Operations

    private static func perform(_ operation: String, _ options: CommandLineOptions, sdk: ArculusFido,
                                timeout: Double) async throws(ArculusFidoError) -> String {
        func value(_ name: String) -> String { options.value(name) ?? "" }
        func success(_ message: String, _ extra: [String: JSONValue] = [:]) -> String {
            var members: [String: JSONValue] = ["status": .string("success"), "operation": .string(operation),
                                                "message": .string(message)]
            members.merge(extra) { _, new in new }
            return JSONValue.object(members).text
        }
        switch operation {
        case "set-pin":
            return success(try await sdk.setPin(pin: value("--pin")))
        case "change-pin":
            return success(try await sdk.changePin(oldPin: value("--old-pin"), newPin: value("--new-pin")))
        case "register-card-only":
            return try await sdk.registerCardOnly(pin: value("--pin"), username: value("--username"),
                                                  displayName: options.value("--display-name") ?? value("--username"),
                                                  rpId: value("--rp-id"), challenge: value("--challenge"), origin: value("--origin"))
        case "authenticate-card-only":
            let allowed = (options.value("--allow-credentials") ?? "").split(separator: ",").map(String.init)
            return try await sdk.authenticateCardOnly(pin: value("--pin"), username: value("--username"), rpId: value("--rp-id"),
                                                      challenge: value("--challenge"), origin: value("--origin"),
                                                      allowCredentials: allowed)
        case "delete-credential":
            try await sdk.deleteCredentialByCredentialId(pin: value("--pin"), credentialId: value("--credential-id"))
            return success("credential deleted", ["credentialId": .string(value("--credential-id"))])
        case "reset-device":
            return success(try await sdk.resetDevice(pin: value("--pin")))
        case "list-credentials":
            let credentials = try await sdk.listCredentials(pin: value("--pin"), rpId: options.value("--rp-id"))
            return JSONValue.object(["credentials": .array(credentials.map(\.json))]).text
        case "info":
            let (info, retries) = try await sdk.cardInfo()
            return infoJSON(info, pinRetries: retries).text
        case "register-user", "authenticate-user":
            let server = ArculusFidoServer(domain: value("--server"))
            server.timeout = timeout
            let registering = operation == "register-user"
            if let begin = options.value("--begin-endpoint") {
                if registering { server.registrationBeginEndpoint = begin } else { server.authorizationBeginEndpoint = begin }
            }
            if let complete = options.value("--complete-endpoint") {
                if registering { server.registrationCompleteEndpoint = complete } else { server.authorizationCompleteEndpoint = complete }
            }
            let displayName = options.value("--display-name") ?? value("--username")
            if registering {
                return try await sdk.registerUser(fidoServer: server, pin: value("--pin"), username: value("--username"),
                                                  displayName: displayName, relyingParty: value("--rp-id"),
                                                  resetDevice: options.flag("--reset-device"),
                                                  registrationInfo: options.value("--registration-info"))
            }
            return try await sdk.authenticateUser(fidoServer: server, pin: value("--pin"), username: value("--username"),
                                                  displayName: displayName, relyingParty: value("--rp-id"))
        case "register-via-backend":
            let backend = ArculusBackendClient(baseUrl: value("--backend"),
                                               registerPath: options.value("--backend-path") ?? "/fido/register", timeout: timeout)
            return try await sdk.registerViaBackend(backend: backend, pin: value("--pin"), username: value("--username"),
                                                    displayName: options.value("--display-name") ?? value("--username"),
                                                    rpId: value("--rp-id")).text
        case "authenticate-via-backend":
            let backend = ArculusBackendClient(baseUrl: value("--backend"),
                                               authenticatePath: options.value("--backend-path") ?? "/fido/authenticate",
                                               timeout: timeout)
            return try await sdk.authenticateViaBackend(backend: backend, pin: value("--pin"), username: value("--username"),
                                                        rpId: value("--rp-id")).text
        default:
            preconditionFailure("operation \(operation) is in the table but not here")
        }
    }

    private static func infoJSON(_ info: AuthenticatorInfo, pinRetries: Int?) -> JSONValue {
        let hex = info.aaguid.map { byte in
            let digits = String(byte, radix: 16)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        var aaguid = hex
        for index in [20, 16, 12, 8] where aaguid.count > index {
            aaguid.insert("-", at: aaguid.index(aaguid.startIndex, offsetBy: index))
        }
        var members: [String: JSONValue] = [
            "versions": .array(info.versions.map { .string($0) }),
            "extensions": .array(info.extensions.map { .string($0) }),
            "aaguid": .string(aaguid),
            "options": .object(info.options.mapValues { .bool($0) }),
            "pinUvAuthProtocols": .array(info.pinUVAuthProtocols.map { .number(Double($0)) }),
            "minPINLength": .number(Double(info.minPINLength)),
        ]
        if let pinRetries { members["pinRetries"] = .number(Double(pinRetries)) }
        if let remaining = info.remainingDiscoverableCredentials {
            members["remainingDiscoverableCredentials"] = .number(Double(remaining))
        }
        if let size = info.maxMessageSize { members["maxMsgSize"] = .number(Double(size)) }
        return .object(members)
    }

    // MARK: - The card

    private static func makeConnector(_ options: CommandLineOptions) throws -> any CardConnector {
        let image = options.value("--card-image")
        let reader = options.value("--reader")
        switch (image, reader) {
        case (nil, nil):
            throw UsageError("say where the card is: --card-image FILE or --reader NAME")
        case (.some, .some):
            throw UsageError("--card-image and --reader exclude each other")
        case (let path?, nil):
            guard options.value("--wait-for-card") == nil else { throw UsageError("--wait-for-card goes with --reader") }
            var profile: CardProfile?
            if let name = options.value("--profile") {
                do {
                    profile = try CardProfile.named(name)
                } catch {
                    throw UsageError("--profile: \(error). Built-in profiles: \(CardProfile.builtInNames.joined(separator: ", ")).")
                }
            }
            var removeAfter: Int?
            if let text = options.value("--remove-card-after") {
                guard let count = Int(text), count >= 0 else {
                    throw UsageError("--remove-card-after wants a number of APDUs, not '\(text)'")
                }
                removeAfter = count
            }
            let card: VirtualCard
            do {
                card = try VirtualCard(imageAt: path, profile: profile)
            } catch {
                throw CardUnavailable("cannot open the card image: \(error)")
            }
            return ImageCardConnector(card: card, removeAfter: removeAfter)
        case (nil, let name?):
            guard options.value("--profile") == nil else { throw UsageError("--profile goes with --card-image") }
            guard options.value("--remove-card-after") == nil else { throw UsageError("--remove-card-after goes with --card-image") }
            return ReaderConnector(reader: name, wait: try seconds(options, "--wait-for-card", default: 0))
        }
    }

    private static func seconds(_ options: CommandLineOptions, _ name: String, default value: Double) throws -> Double {
        guard let text = options.value(name) else { return value }
        guard let seconds = Double(text), seconds >= 0, seconds <= 3600 else {
            throw UsageError("\(name) wants seconds between 0 and 3600, not '\(text)'")
        }
        return seconds
    }

    /// Runs async SDK work to completion from the synchronous command line.
    private static func runBlocking<T: Sendable>(
        _ body: @escaping @Sendable () async throws(ArculusFidoError) -> T
    ) -> Result<T, ArculusFidoError> {
        let outcome = Mutex<Result<T, ArculusFidoError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, ArculusFidoError>
            do throws(ArculusFidoError) {
                result = .success(try await body())
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else { preconditionFailure("the task signalled without a result") }
        return result
    }
}

/// A card image that cannot be opened: reported like a failed operation.
private struct CardUnavailable: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The in-process card of a card image. Each `connect` is a tap: the card enters the field
/// (powered afresh after the first tap).
///
/// `@unchecked Sendable`: the SDK calls `connect` and uses the transports it returns only on its
/// serial card queue, so the card is never touched from two threads.
private final class ImageCardConnector: CardConnector, @unchecked Sendable {
    private let card: VirtualCard
    private let removeAfter: Int?
    private var exchanged = 0
    private var taps = 0
    private var removed = false

    init(card: VirtualCard, removeAfter: Int?) {
        self.card = card
        self.removeAfter = removeAfter
    }

    func connect() throws(CardTransportError) -> any CardTransport {
        guard !removed else { throw .cardRemoved("the card was taken away (--remove-card-after) and not tapped again") }
        if taps > 0 { card.powerCycle() }
        taps += 1
        return Transport(connector: self)
    }

    fileprivate func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
        guard !removed else { throw .cardRemoved("the card left the field") }
        if let removeAfter, exchanged >= removeAfter {
            removed = true
            card.powerOff()
            throw .cardRemoved("the card left the field after \(removeAfter) APDUs (--remove-card-after)")
        }
        exchanged += 1
        return card.transmit(apdu)
    }

    fileprivate func powerCycle() {
        card.powerCycle()
    }

    private struct Transport: CardTransport {
        let connector: ImageCardConnector

        func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
            try connector.transmit(apdu)
        }

        func powerCycle() throws(CardTransportError) {
            connector.powerCycle()
        }
    }
}

/// The card on a PC/SC reader. Each `connect` opens a PC/SC context and a shared connection
/// inside a transaction (so no other application's APDUs land between the pieces of a chained
/// command), ended when the operation drops the transport. PC/SC codes that mean "no card any
/// more" become ``CardTransportError/cardRemoved(_:)``.
private struct ReaderConnector: CardConnector {
    let reader: String
    let wait: Double

    func connect() throws(CardTransportError) -> any CardTransport {
        do {
            let context = try PCSCContext()
            if wait > 0 {
                guard try context.waitForCardPresent(reader: reader, timeout: .milliseconds(Int64(wait * 1000))) else {
                    throw CardTransportError.cardRemoved("no card on '\(reader)' after \(wait) s")
                }
            }
            // Another application's exclusive connection or transaction: wait for it a little,
            // as PC/SC clients do, before calling the card unavailable.
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: .milliseconds(Int64(max(wait, 2) * 1000)))
            func attempt() throws(PCSCError) -> PCSCCard? {
                do {
                    return try context.connect(reader: reader)
                } catch where error.code == .sharingViolation {
                    return nil
                }
            }
            var connected = try attempt()
            while connected == nil && clock.now < deadline {
                usleep(50_000)
                connected = try attempt()
            }
            guard let card = connected else { throw PCSCError(function: "SCardConnect", code: .sharingViolation) }
            try card.beginTransaction()
            return ReaderTransport(card: card)
        } catch let error as PCSCError {
            throw Self.transportError(error, reader: reader)
        } catch let error as CardTransportError {
            throw error
        } catch {
            throw .failed("\(error)")
        }
    }

    static func transportError(_ error: PCSCError, reader: String) -> CardTransportError {
        switch error.code {
        case .removedCard, .noSmartcard, .resetCard, .unpoweredCard, .unresponsiveCard:
            return .cardRemoved("\(error.code.name) on '\(reader)'")
        case .unknownReader:
            let known = (try? PCSCContext().readers())?.joined(separator: "', '") ?? ""
            return .failed("pcscd has no reader '\(reader)'" + (known.isEmpty ? "" : "; it has '\(known)'"))
        case .noService, .serviceStopped:
            return .failed("pcscd is not running (\(error.code.name)); start it (e.g. 'pcscd') and retry")
        case .sharingViolation:
            return .failed("another application holds the card on '\(reader)' exclusively (\(error.code.name)); close it and retry")
        default:
            return .failed("\(error)")
        }
    }

    private final class ReaderTransport: CardTransport {
        let card: PCSCCard

        init(card: PCSCCard) {
            self.card = card
        }

        deinit {
            try? card.endTransaction()
        }

        func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
            do {
                return try card.transmit(apdu)
            } catch {
                throw ReaderConnector.transportError(error, reader: card.reader)
            }
        }

        func powerCycle() throws(CardTransportError) {
            do {
                try card.reconnect(disposition: .unpower)
            } catch {
                throw ReaderConnector.transportError(error, reader: card.reader)
            }
        }
    }
}
