import ArculusCard

/// One request of the control protocol: what `arculus-card ctl` sends to a served card and
/// ``ControlChannelHandler`` runs (its JSON form is ``init(json:)`` / ``json``).
///
/// On the wire a request is a JSON object with an `op` member (and optionally a `tag`, echoed in
/// the answer); the answer is `{"ok": true, …}` (``ControlResponse``) or
/// `{"ok": false, "error": "…"}`:
///
/// | op | case | members | answer members |
/// | --- | --- | --- | --- |
/// | `status` | ``status`` | — | `profile`, `inField`, `onReader`, `timing`, `faults`, `credentials`, `counter`, `pin`, `presence` |
/// | `details` | ``details`` | — | `status`, `info`, `token`, `credentials`, `faults`, `faultLog`, `image`, `writeFailures` (``ControlResponse/Details``) |
/// | `tap` | ``tap(delay:)`` | `delay` (seconds, default 1) | `delay` |
/// | `remove` / `insert` | ``remove`` / ``insert`` | — | — |
/// | `fault.add` | ``addFault(_:)`` | `fault`: `command` (default `any`), `effect`, its parameter, `once` | `fault` |
/// | `fault.list` | ``listFaults`` | — | `faults`, `log` |
/// | `fault.remove` | ``removeFault(id:)`` | `id` | — |
/// | `fault.clear` | ``clearFaults`` | — | `removed` |
/// | `credentials.list` | ``listCredentials`` | — | `credentials` |
/// | `credentials.add` | ``addCredential(_:)`` | `credential` (below) | `credential` |
/// | `credentials.remove` | ``removeCredential(id:)`` | `id` (base64url) or `idHex` | — |
/// | `pin` | ``pin(set:retries:)``, ``clearPIN(retries:)`` | `set` (a PIN), or `clear` (true: no PIN, retries back to 8); `retries` | `pin`: `isSet`, `retries`, `length`, `minLength`, `blocked`, `blockedUntilPowerCycle` |
/// | `counter` | ``counter(set:)`` | `set` | `counter` |
/// | `timing` | ``timing(_:)`` | `profile` (`off`, `realistic`) | `timing` |
/// | `presence` | ``presence(mode:)`` | `mode` (`approve`, `decline`, `ask`) | `presence`: `mode`, `pending` |
/// | `presence.answer` | ``answerPresence(id:approve:)`` | `id`, `approve` (true or false) | `presence` |
///
/// `presence.pending` is null, or the prompt the card waits to have answered in `ask` mode:
/// `{"id": N, "command": "makeCredential", "rpId": "example.com", "waitingSeconds": 1.5}` (`rpId`
/// null for U2F). An answer to any other `id` fails with `no presence prompt N is pending`.
///
/// Fault effects and their parameter: `ctap-error` (`ctapError`: a number, `"0x2E"` or a name
/// such as `"NO_CREDENTIALS"`), `status-word` (`statusWord`: `"6A82"`), `bogus-signature`,
/// `flags` (`up`, `uv`: booleans), `leave-field` (`away`: seconds, default 1),
/// `fail-next-write`, `decline-presence`, `delay` (`delay`: seconds). `command` is a command name,
/// `any`, or `apdu:` and one exact APDU in hex.
///
/// A credential to add: `rpId`, `rpName`, `userId` (base64url) or `userIdHex`, `userName`,
/// `userDisplayName`, `discoverable` (default true), `privateKeyPEM`, `credProtect`,
/// `hmacSecret` — or WebDriver's names for the same: `userHandle` (base64url),
/// `isResidentCredential`, `privateKey` (base64url of an unencrypted PKCS#8 DER P-256 key) —
/// and WebDriver's `signCount` and `credentialId` (their meaning: ``CredentialParameters``).
/// A credential in an answer carries both sets of names, its public key and the card's counter
/// (``CredentialListing/json``).
public enum ControlRequest: Equatable, Sendable {
    /// The card's state in brief.
    case status
    /// Everything a person may see of the card, nothing secret (the card page's view).
    case details
    /// Off the reader, back after `delay` seconds (0...3600).
    case tap(delay: Double)
    /// Off the reader until ``insert``.
    case remove
    /// Back on the reader.
    case insert
    /// Inject a fault.
    case addFault(Fault)
    /// The faults held and the log of every time one acted.
    case listFaults
    /// Remove one fault.
    case removeFault(id: Int)
    /// Remove every fault.
    case clearFaults
    /// The discoverable credentials.
    case listCredentials
    /// Put a credential on the card.
    case addCredential(CredentialParameters)
    /// Delete a discoverable credential.
    case removeCredential(id: [UInt8])
    /// Set the PIN and/or its retries (neither: just read the PIN state).
    case pin(set: String?, retries: Int?)
    /// Set the signature counter (nil: just read it).
    case counter(set: UInt32?)
    /// Switch the timing profile (nil: just read it).
    case timing(TimingProfile?)
    /// Remove the PIN (retries back to 8), then set the retries if given.
    case clearPIN(retries: Int?)
    /// How the person answers tests of user presence, and the prompt waiting for an answer; set
    /// the mode (nil: just read it).
    case presence(mode: PresenceMode?)
    /// Answer presence prompt `id`.
    case answerPresence(id: Int, approve: Bool)

    /// The request's `op`.
    public var op: String {
        switch self {
        case .status: "status"
        case .details: "details"
        case .tap: "tap"
        case .remove: "remove"
        case .insert: "insert"
        case .addFault: "fault.add"
        case .listFaults: "fault.list"
        case .removeFault: "fault.remove"
        case .clearFaults: "fault.clear"
        case .listCredentials: "credentials.list"
        case .addCredential: "credentials.add"
        case .removeCredential: "credentials.remove"
        case .pin, .clearPIN: "pin"
        case .counter: "counter"
        case .timing: "timing"
        case .presence: "presence"
        case .answerPresence: "presence.answer"
        }
    }

    /// Every `op`, in the order of the table above.
    public static let operations = ["status", "details", "tap", "remove", "insert", "fault.add", "fault.list", "fault.remove",
                                    "fault.clear", "credentials.list", "credentials.add", "credentials.remove", "pin",
                                    "counter", "timing", "presence", "presence.answer"]
}
