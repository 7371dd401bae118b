#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArculusCard
import Foundation
import VirtualReader
import FIDOWire

/// `arculus-card image`: makes and changes card images directly — a card with a PIN, counters
/// and credentials already on it — without going through CTAP. Each change is written like one a
/// command makes (a journal record), so the image opens as that card in `serve` or in-process.
enum ImageCommand: Subcommand {
    static let name = "image"
    static let summary = "Create a card image with a PIN and credentials already set; list, add, remove"

    static var help: String {
        """
        USAGE: arculus-card image create --card FILE [--profile NAME|FILE] [--pin PIN] [--retries N]
                                         [--counter N] [--credential SPEC]... [--seed HEX]
               arculus-card image credentials list --card FILE
               arculus-card image credentials add --card FILE --credential SPEC...
               arculus-card image credentials remove --card FILE --id ID
               arculus-card image pin --card FILE [--set PIN] [--retries N]
               arculus-card image counter --card FILE [--set N]

        Sets a card's state without CTAP: a test starts from a card that already has a PIN, a
        signature counter and credentials. Works on an image file that no process is serving
        (the image is locked while served; change a served card with 'arculus-card ctl').

        COMMANDS:
          create               Make a new image (FILE must not exist) from the profile, then set
                               what the options say. If anything fails, no image is left behind.
          credentials list     The discoverable credentials on the card, with their public keys.
          credentials add      Put credentials on the card (see SPEC).
          credentials remove   Delete the discoverable credential with this ID.
          pin                  Show the PIN state; --set sets the PIN (retries back to 8),
                               --retries sets the retry counter (0 blocks the PIN).
          counter              Show the signature counter; --set sets it.

        OPTIONS:
          --card FILE          The card image.
          --profile NAME|FILE  create: the card model (\(CardProfile.builtInNames.joined(separator: ", ")) or a
                               profile JSON file). Default: \(CardProfile.default.name).
          --pin PIN            create: set this PIN (the profile's PIN policy applies: at least
                               minPINLength code points, at most 63 bytes).
          --retries N          PIN retries left, 0 to 8.
          --counter N          create: the signature counter (the next assertion reports N+1).
          --credential SPEC    A credential to put on the card; repeat for more. SPEC is
                               comma-separated key=value pairs:
                                 rp=RPID              relying party ID (required)
                                 user=HANDLE          user handle, as UTF-8 text
                                 user-hex=HEX         user handle, as hex bytes
                                 name=NAME            user name (default: the handle text)
                                 display=NAME         user display name
                                 rp-name=NAME         relying party name
                                 discoverable=yes|no  stored on the card (default yes), or only
                                                      minted: a non-discoverable credential is just
                                                      an ID wrapping its key under the card's secret
                                 key=PEM-FILE         the credential's P-256 private key (PKCS#8 or
                                                      SEC 1 PEM); default: a new key
                                 cred-protect=1|2|3   credProtect level (default 1)
                                 hmac-secret=yes|no   answers hmac-secret (default no)
                               Values cannot contain commas.
          --id ID              A credential ID, base64url (as WebAuthn writes it) or hex.
          --set VALUE          pin: the new PIN; counter: the new counter.
          --seed HEX           create: a deterministic card (secrets and generated keys derive
                               from HEX), for reproducible tests only.
          -h, --help           Show this help.

        OUTPUT:
          One JSON object on stdout, as the control channel answers ('ok', and 'credentials' /
          'credential' with id (base64url), idHex, publicKeyPEM, publicKeyHex (X9.62), rpId, user
          fields; 'pin' with isSet, retries, length, minLength, blocked; 'counter'). On failure
          'ok' is false, the error also goes to stderr and the exit status is 1.

        EXAMPLES:
          arculus-card image create --card card.img --pin 123456 --counter 41 \\
              --credential rp=example.com,user=alice,discoverable=yes \\
              --credential rp=example.com,user=bob,discoverable=no,key=bob.pem
          arculus-card image credentials list --card card.img
          arculus-card image pin --card card.img --retries 1
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let (specs, rest) = try extractRepeated("--credential", from: arguments)
        let options = try CommandLineOptions(
            rest, valued: ["--card", "--profile", "--pin", "--retries", "--counter", "--id", "--set", "--seed"],
            flags: [])
        let words = options.positionals
        guard let path = options.value("--card") else { throw UsageError("--card FILE is required") }
        switch words {
        case ["create"]:
            try allow(options, ["--card", "--profile", "--pin", "--retries", "--counter", "--seed"])
            return try create(path: path, options: options, specs: specs)
        case ["credentials", "list"]:
            try allow(options, ["--card"], specs: specs, specsAllowed: false)
            return try withImage(path) { try $0.run(["op": "credentials.list"]) }
        case ["credentials", "add"]:
            try allow(options, ["--card"])
            guard !specs.isEmpty else { throw UsageError("credentials add needs --credential SPEC") }
            let requests = try specs.map(credentialRequest)
            return try withImage(path) { session in
                var added: [ControlChannelJSON] = []
                for request in requests {
                    let answer = try session.run(request)
                    added.append(answer["credential"] ?? .null)
                }
                return ["ok": true, "credentials": .array(added)]
            }
        case ["credentials", "remove"]:
            try allow(options, ["--card", "--id"], specs: specs, specsAllowed: false)
            guard let id = options.value("--id") else { throw UsageError("credentials remove needs --id ID") }
            return try withImage(path) { try $0.run(removeRequest(id)) }
        case ["pin"]:
            try allow(options, ["--card", "--set", "--retries"], specs: specs, specsAllowed: false)
            var request: [String: ControlChannelJSON] = ["op": "pin"]
            if let pin = options.value("--set") { request["set"] = .string(pin) }
            if let text = options.value("--retries") { request["retries"] = .int(try integer(text, "--retries")) }
            return try withImage(path) { try $0.run(.object(request)) }
        case ["counter"]:
            try allow(options, ["--card", "--set"], specs: specs, specsAllowed: false)
            var request: [String: ControlChannelJSON] = ["op": "counter"]
            if let text = options.value("--set") { request["set"] = .int(try integer(text, "--set")) }
            return try withImage(path) { try $0.run(.object(request)) }
        default:
            throw UsageError(words.isEmpty ? "which command? create, credentials list|add|remove, pin or counter"
                                           : "unknown command '\(words.joined(separator: " "))'")
        }
    }

    // MARK: - create

    private static func create(path: String, options: CommandLineOptions, specs: [String]) throws -> Int32 {
        var existing = stat()
        guard lstat(path, &existing) != 0 else {
            return fail("\(path) already exists; change it with 'image pin', 'image credentials add' …, or delete it first")
        }
        var profile = CardProfile.default
        if let name = options.value("--profile") {
            do {
                profile = try CardProfile.named(name)
            } catch {
                throw UsageError("--profile: \(error). Built-in profiles: \(CardProfile.builtInNames.joined(separator: ", ")).")
            }
        }
        var entropy = CardEntropy.system
        if let text = options.value("--seed") {
            guard let seed = [UInt8](hex: text), !seed.isEmpty else { throw UsageError("--seed wants hex bytes, not '\(text)'") }
            entropy = .seeded(seed)
        }
        var requests: [ControlChannelJSON] = []
        if let pin = options.value("--pin") { requests.append(["op": "pin", "set": .string(pin)]) }
        if let text = options.value("--retries") { requests.append(["op": "pin", "retries": .int(try integer(text, "--retries"))]) }
        if let text = options.value("--counter") { requests.append(["op": "counter", "set": .int(try integer(text, "--counter"))]) }
        requests += try specs.map(credentialRequest)

        let card: VirtualCard
        do {
            card = try VirtualCard(imageAt: path, profile: profile, entropy: entropy)
        } catch {
            return fail("cannot create \(path): \(error)")
        }
        let session = ImageSession(card: card)
        var credentials: [ControlChannelJSON] = []
        do {
            for request in requests {
                let answer = try session.run(request)
                if let credential = answer["credential"] { credentials.append(credential) }
            }
        } catch {
            unlink(path)
            unlink(path + ".lock")
            return fail("\(error); no image was created")
        }
        let status = try session.run(["op": "status"])
        let summary: ControlChannelJSON = [
            "ok": true, "card": .string(path), "profile": .string(card.profile.name),
            "pin": status["pin"] ?? .null, "counter": status["counter"] ?? .null, "credentials": .array(credentials),
        ]
        Console.output(summary.jsonText)
        return ExitStatus.success
    }

    // MARK: - Opening an image

    /// Runs requests on the card of an existing image; prints what `body` returns.
    private static func withImage(_ path: String, _ body: (ImageSession) throws -> ControlChannelJSON) throws -> Int32 {
        var existing = stat()
        guard lstat(path, &existing) == 0 else {
            return fail("no card image at \(path) (make one with 'arculus-card image create --card \(path)')")
        }
        let card: VirtualCard
        do {
            card = try VirtualCard(imageAt: path)
        } catch let error as CardImageError where error.reason == .locked {
            return fail("\(error); to change a card while it is served, use 'arculus-card ctl'")
        } catch {
            return fail("\(error)")
        }
        do {
            Console.output(try body(ImageSession(card: card)).jsonText)
            return ExitStatus.success
        } catch {
            return fail("\(error)")
        }
    }

    /// A failure: `{"ok": false, "error": …}` on stdout, the message on stderr, status 1.
    private static func fail(_ message: String) -> Int32 {
        Console.output(ControlChannelJSON.object(["ok": false, "error": .string(message)]).jsonText)
        Console.error("arculus-card image: \(message)")
        return ExitStatus.failure
    }

    /// The control protocol, run straight on a card opened from its image.
    private struct ImageSession {
        let handler: ControlChannelHandler

        init(card: VirtualCard) {
            handler = ControlChannelHandler(card: card, bridge: nil)
        }

        /// Runs a request; an `ok: false` answer is thrown as its error.
        func run(_ request: ControlChannelJSON) throws -> ControlChannelJSON {
            let answer = handler.handle(request)
            guard answer["ok"]?.boolValue == true else {
                throw ControlChannelError.refused(answer["error"]?.stringValue ?? "the card refused the request")
            }
            return answer
        }
    }

    // MARK: - Shared with `ctl`

    /// Takes every `name VALUE` / `name=VALUE` out of `arguments` (an option that may repeat).
    static func extractRepeated(_ name: String, from arguments: [String]) throws(UsageError) -> (values: [String], rest: [String]) {
        var values: [String] = []
        var rest: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                rest += arguments[(index - 1)...]
                break
            }
            if argument == name {
                guard index < arguments.count else { throw UsageError("\(name) needs a value") }
                values.append(arguments[index])
                index += 1
            } else if argument.hasPrefix(name + "=") {
                values.append(String(argument.dropFirst(name.count + 1)))
            } else {
                rest.append(argument)
            }
        }
        return (values, rest)
    }

    /// The `credentials.add` request for a `--credential` SPEC (see the help).
    static func credentialRequest(_ spec: String) throws(UsageError) -> ControlChannelJSON {
        var credential: [String: ControlChannelJSON] = [:]
        var handleText: String?
        for pair in spec.split(separator: ",", omittingEmptySubsequences: true) {
            guard let equals = pair.firstIndex(of: "=") else {
                throw UsageError("--credential: '\(pair)' is not key=value (in '\(spec)')")
            }
            let key = pair[..<equals].trimmingCharacters(in: .whitespaces)
            let value = String(pair[pair.index(after: equals)...])
            func yesNo() throws(UsageError) -> Bool {
                switch value.lowercased() {
                case "yes", "y", "true", "1": return true
                case "no", "n", "false", "0": return false
                default: throw UsageError("--credential: \(key) wants yes or no, not '\(value)'")
                }
            }
            switch key {
            case "rp": credential["rpId"] = .string(value)
            case "rp-name": credential["rpName"] = .string(value)
            case "user":
                handleText = value
                credential["userIdHex"] = .string(Array(value.utf8).hexString)
            case "user-hex":
                guard [UInt8](hex: value) != nil else { throw UsageError("--credential: user-hex is not hex: '\(value)'") }
                credential["userIdHex"] = .string(value)
            case "name": credential["userName"] = .string(value)
            case "display": credential["userDisplayName"] = .string(value)
            case "discoverable": credential["discoverable"] = .bool(try yesNo())
            case "hmac-secret": credential["hmacSecret"] = .bool(try yesNo())
            case "cred-protect":
                guard let level = Int(value), (1...3).contains(level) else {
                    throw UsageError("--credential: cred-protect wants 1, 2 or 3, not '\(value)'")
                }
                credential["credProtect"] = .int(level)
            case "key":
                guard let pem = try? String(contentsOfFile: value, encoding: .utf8) else {
                    throw UsageError("--credential: cannot read the key file '\(value)'")
                }
                credential["privateKeyPEM"] = .string(pem)
            default:
                throw UsageError("--credential: unknown key '\(key)' (rp, user, user-hex, name, display, rp-name, discoverable, key, cred-protect, hmac-secret)")
            }
        }
        guard credential["rpId"] != nil else { throw UsageError("--credential: rp=RPID is required (in '\(spec)')") }
        if credential["userName"] == nil, let handleText { credential["userName"] = .string(handleText) }
        return ["op": "credentials.add", "credential": .object(credential)]
    }

    /// A `credentials.remove` request for an ID given as hex or base64url. Text that is valid hex
    /// is taken as hex: a base64url credential ID made only of hex digits is vanishingly unlikely.
    static func removeRequest(_ text: String) -> ControlChannelJSON {
        [UInt8](hex: text) != nil && !text.isEmpty
            ? ["op": "credentials.remove", "idHex": .string(text)]
            : ["op": "credentials.remove", "id": .string(text)]
    }

    static func integer(_ text: String, _ option: String) throws(UsageError) -> Int {
        guard let value = Int(text) else { throw UsageError("\(option) wants a whole number, not '\(text)'") }
        return value
    }

    /// Rejects options the command does not take (CommandLineOptions accepted the union of all).
    static func allow(_ options: CommandLineOptions, _ allowed: Set<String>, specs: [String] = [],
                      specsAllowed: Bool = true) throws(UsageError) {
        for name in ["--card", "--profile", "--pin", "--retries", "--counter", "--id", "--set", "--seed"]
            where !allowed.contains(name) && options.value(name) != nil {
            throw UsageError("\(name) does not apply to this command")
        }
        if !specsAllowed && !specs.isEmpty { throw UsageError("--credential does not apply to this command") }
    }
}
