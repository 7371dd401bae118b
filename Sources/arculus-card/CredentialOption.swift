import ArculusCard
import ArculusSDK
import CardCrypto
import FIDOWire
import Foundation
import JSONSupport
import POSIXSupport
import VirtualReader

/// `--credential SPEC` (for `image` and `ctl`): a credential to put on a card. SPEC is either
/// `key=value` pairs (`rp=example.com,user=alice,discoverable=no,key=bob.pem`), or a JSON
/// credential object in the control protocol's names or WebDriver's (`{"credentialId": …,
/// "rpId": …, "privateKey": …}`), or `@FILE` holding one such object or an array of them (a
/// browser test's credential fixture).
enum CredentialOption {
    /// `--credential SPEC` as the help of `image` (and `ctl credentials add`) explains it.
    static let declaration = CommandDeclaration.Option.repeating(
        "--credential", "SPEC",
        "A credential to put on the card; repeat for more. SPEC is",
        "comma-separated key=value pairs:",
        "  rp=RPID              relying party ID (required)",
        "  user=HANDLE          user handle, as UTF-8 text",
        "  user-hex=HEX         user handle, as hex bytes",
        "  name=NAME            user name (default: the handle text)",
        "  display=NAME         user display name",
        "  rp-name=NAME         relying party name",
        "  discoverable=yes|no  stored on the card (default yes), or only",
        "                       minted: a non-discoverable credential is just",
        "                       an ID wrapping its key under the card's secret",
        "  key=PEM-FILE         the credential's private key (PKCS#8, or SEC 1",
        "                       PEM for P-256); default: a new key",
        "  alg=NAME|COSE        the algorithm of a new key (ES256 by default;",
        "                       any the profile lists: EdDSA, ES384, RS256, ...)",
        "  cred-protect=1|2|3   credProtect level (default 1)",
        "  hmac-secret=yes|no   answers hmac-secret (default no)",
        "Values cannot contain commas. Or SPEC is a credential as JSON,",
        "in the names 'credentials list' prints or WebDriver's virtual",
        "authenticator names ({\"credentialId\", \"isResidentCredential\",",
        "\"rpId\", \"privateKey\": base64url PKCS#8 DER, \"userHandle\",",
        "\"signCount\"}), or @FILE holding one such object or an array.",
        "signCount raises the card's one signature counter to at least",
        "that value. credentialId cannot be chosen (the card mints IDs by",
        "wrapping the key under its secret): it is accepted only for a",
        "discoverable credential the card already holds as given.")

    /// The credentials every `--credential` of `options` describes, in order.
    static func parameters(_ options: CommandLineOptions) throws(UsageError) -> [CredentialParameters] {
        var credentials: [CredentialParameters] = []
        for spec in options.values("--credential") { credentials += try parse(spec) }
        return credentials
    }

    /// The credentials one SPEC describes.
    static func parse(_ spec: String) throws(UsageError) -> [CredentialParameters] {
        if spec.hasPrefix("@") {
            let path = String(spec.dropFirst())
            let text: String
            do {
                text = try InputFile.text(path)
            } catch {
                throw UsageError("--credential: cannot read \(path): \(error.reason)")
            }
            return try json(text, from: path)
        }
        if spec.hasPrefix("{") { return try json(spec, from: nil) }
        return [try pairs(spec)]
    }

    /// A credential ID given as hex or base64url. Text that is valid hex is taken as hex: a
    /// base64url credential ID made only of hex digits is vanishingly unlikely.
    static func id(_ text: String, option: String = "--id") throws(UsageError) -> [UInt8] {
        if !text.isEmpty, let bytes = [UInt8](hex: text) { return bytes }
        guard let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            throw UsageError("\(option) wants a credential ID in base64url or hex, not '\(text)'")
        }
        return bytes
    }

    // MARK: - JSON

    private static func json(_ text: String, from path: String?) throws(UsageError) -> [CredentialParameters] {
        let source = path.map { " in \($0)" } ?? ""
        let value: JSONValue
        do throws(JSONValue.ParseError) {
            value = try JSONValue(parsing: text)
        } catch {
            // The excerpt on one line: a file of another kind may hold anything.
            let start = String(error.excerpt.prefix(40)).debugDescription
            throw UsageError("--credential: \(path ?? "the value") is not JSON: it starts \(start)")
        }
        let objects = value.arrayValue ?? [value]
        var credentials: [CredentialParameters] = []
        for object in objects {
            do throws(ControlChannelError) {
                credentials.append(try CredentialParameters(json: object))
            } catch {
                throw UsageError("--credential: \(error.reason)\(source)")
            }
        }
        return credentials
    }

    // MARK: - key=value pairs

    private static let keys = "rp, user, user-hex, name, display, rp-name, discoverable, key, alg, cred-protect, hmac-secret"

    private static func pairs(_ spec: String) throws(UsageError) -> CredentialParameters {
        // rp= is required; the seed is filled in pair by pair, then checked.
        var seed = CredentialSeed(rpId: "")
        var handleText: String?
        var algorithmGiven: SignatureAlgorithm?
        for pair in spec.split(separator: ",", omittingEmptySubsequences: true) {
            guard let equals = pair.firstIndex(of: "=") else {
                throw UsageError("--credential: '\(pair)' is not key=value (in '\(spec)')")
            }
            let key = pair[..<equals].trimmingCharacters(in: .whitespaces)
            let value = String(pair[pair.index(after: equals)...])
            switch key {
            case "rp": seed.rpId = value
            case "rp-name": seed.rpName = value
            case "user":
                handleText = value
                seed.user.id = Array(value.utf8)
            case "user-hex":
                guard let bytes = [UInt8](hex: value) else { throw UsageError("--credential: user-hex is not hex: '\(value)'") }
                seed.user.id = bytes
            case "name": seed.user.name = value
            case "display": seed.user.displayName = value
            case "discoverable": seed.discoverable = try yesNo(key, value)
            case "hmac-secret": seed.hmacSecret = try yesNo(key, value)
            case "cred-protect":
                guard let level = UInt8(value), (1...3).contains(level) else {
                    throw UsageError("--credential: cred-protect wants 1, 2 or 3, not '\(value)'")
                }
                seed.credProtect = level
            case "key":
                let key = try privateKey(file: value)
                seed.privateKey = key
                seed.algorithm = key.algorithm
            case "alg":
                guard let algorithm = SignatureAlgorithm(name: value) else {
                    throw UsageError("--credential: alg wants one of \(SignatureAlgorithm.allCases.map(\.name).joined(separator: ", ")) or a COSE number, not '\(value)'")
                }
                algorithmGiven = algorithm
            default:
                throw UsageError("--credential: unknown key '\(key)' (\(keys))")
            }
        }
        guard !seed.rpId.isEmpty else { throw UsageError("--credential: rp=RPID is required (in '\(spec)')") }
        if let algorithmGiven {
            if let key = seed.privateKey, key.algorithm != algorithmGiven {
                throw UsageError("--credential: alg=\(algorithmGiven.name) but the key is \(key.algorithm.name)")
            }
            seed.algorithm = algorithmGiven
        }
        if seed.user.name == nil { seed.user.name = handleText }
        return CredentialParameters(seed)
    }

    /// `key=PEM-FILE`: an unencrypted private key of any algorithm CardCrypto has.
    private static func privateKey(file path: String) throws(UsageError) -> CredentialPrivateKey {
        let pem: String
        do {
            pem = try InputFile.text(path, limit: 1 << 20)
        } catch {
            throw UsageError("--credential: cannot read the key file '\(path)': \(error.reason)")
        }
        guard let key = try? CredentialPrivateKey(pemPKCS8: pem) else {
            throw UsageError("--credential: \(path) is not an unencrypted private key in PEM (PKCS#8, or SEC 1 for P-256)")
        }
        return key
    }

    private static func yesNo(_ key: String, _ value: String) throws(UsageError) -> Bool {
        switch value.lowercased() {
        case "yes", "y", "true", "1": return true
        case "no", "n", "false", "0": return false
        default: throw UsageError("--credential: \(key) wants yes or no, not '\(value)'")
        }
    }
}
