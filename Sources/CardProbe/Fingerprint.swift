import JSONSupport

/// What a card answered to the probe's battery, kept as structure: a file a team keeps beside its
/// tests and diffs against the emulator's (``FingerprintDiff``).
///
/// The file is JSON with sorted keys, each entry a block of lines (``text``):
///
/// ```
/// {
///   "battery" : {"entries": 118, "version": 1, "writes": false},
///   "card" : {"atr": "3B8A8001417263756C7573456D7519"},
///   "format" : "arculus-card fingerprint",
///   "formatVersion" : 1,
///   "probes" : {
///     "getAssertion.no-clientDataHash" : {
///       "answer" : {"ctap": "CTAP2_ERR_MISSING_PARAMETER", "sw": "9000"},
///       "description" : "getAssertion without clientDataHash",
///       "request" : {"apdu": "801080002602A1017A…00"}
///     },
///     …
///   },
///   "source" : "PC/SC reader ACS ACR1252 1S CL Reader [ACR1252 Dual Reader PICC] 00 00",
///   "timing" : {"getInfo": {"n": 6, "p50Ms": 21.4, "p90Ms": 23.02}, …}
/// }
/// ```
///
/// - `battery`: the battery's version (two fingerprints compare only when it is the same), how
///   many entries ran, and whether the writing part ran (`--allow-writes`).
/// - `card`: what the reader reports of the card (its ATR).
/// - `probes`: one member per entry, by its stable ID: `description` in the user's terms, the
///   `request` it sent (the APDUs in hex when nothing in them is random, else the CTAP request's
///   shape) and the `answer`: `sw` (status word), `ctap` (CTAP status by name), `body` (the CBOR
///   answer's shape: integers, text and booleans as they are, byte strings as `bytes(N)`, getInfo's
///   AAGUID in hex, authenticator data opened up with the counter as a step, certificates by their
///   names), `text` (printable answer data such as `FIDO_2_0`), `data` (other data by length),
///   `pieces` (status words of chained pieces).
/// - `timing`: per command kind, the number of samples and their 50th and 90th percentile in
///   milliseconds; absent when the probe ran without timing.
/// - `profile`: only in an emulator's fingerprint made from another (`probe --emulate`): the
///   profile it was loaded with and what of the card the profile could not hold.
/// - `source`: where the answers came from; never compared.
///
/// It holds no secret: no key, signature, nonce, credential ID, token or PIN, only their types and
/// lengths; two probes of two cards of one model give the same file but for `timing`.
public struct Fingerprint: Equatable, Sendable {
    /// The `format` member every fingerprint file has.
    public static let format = "arculus-card fingerprint"
    /// The `formatVersion` this build writes and reads.
    public static let formatVersion = 1

    /// The battery that produced it.
    public var battery: BatteryStamp
    /// The card's ATR in hex, as the reader reported it.
    public var atr: String
    /// Where the answers came from (a reader, the emulator with a profile); never compared.
    public var source: String
    /// Each entry's record, by the entry's ID.
    public var probes: [String: ProbeResult]
    /// Round-trip times by command kind; nil when not measured.
    public var timing: [String: TimingSummary]?
    /// For an emulated card made from another card's fingerprint: the profile and what it dropped.
    public var profile: ProfileNote?

    /// A fingerprint with every part given.
    public init(battery: BatteryStamp, atr: String, source: String, probes: [String: ProbeResult],
                timing: [String: TimingSummary]? = nil, profile: ProfileNote? = nil) {
        self.battery = battery
        self.atr = atr
        self.source = source
        self.probes = probes
        self.timing = timing
        self.profile = profile
    }
}

/// Which battery made a fingerprint.
public struct BatteryStamp: Equatable, Sendable {
    /// The battery's version (``CardProber/batteryVersion``).
    public var version: Int
    /// How many entries ran.
    public var entries: Int
    /// Whether the writing part ran.
    public var writes: Bool

    public init(version: Int, entries: Int, writes: Bool) {
        self.version = version
        self.entries = entries
        self.writes = writes
    }
}

/// One entry's record: what it asks, what it sent, what came back.
public struct ProbeResult: Equatable, Sendable {
    /// The entry in the user's terms ("getAssertion without clientDataHash").
    public var description: String
    /// The request, structurally.
    public var request: JSONValue
    /// The answer, structurally.
    public var answer: JSONValue

    public init(description: String, request: JSONValue, answer: JSONValue) {
        self.description = description
        self.request = request
        self.answer = answer
    }
}

/// The percentiles of one command kind's round trips.
public struct TimingSummary: Equatable, Sendable {
    /// How many round trips were measured.
    public var count: Int
    /// Median, in milliseconds.
    public var p50: Double
    /// 90th percentile (nearest rank), in milliseconds.
    public var p90: Double

    public init(count: Int, p50: Double, p90: Double) {
        self.count = count
        self.p50 = p50
        self.p90 = p90
    }

    /// The summary of `samples` (nearest-rank percentiles, rounded to 0.01 ms).
    public init(samples: [Duration]) {
        let milliseconds = samples.map { Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15 }.sorted()
        func rank(_ percent: Double) -> Double {
            guard !milliseconds.isEmpty else { return 0 }
            let index = max(0, Int((percent / 100 * Double(milliseconds.count)).rounded(.up)) - 1)
            return (milliseconds[min(index, milliseconds.count - 1)] * 100).rounded() / 100
        }
        self.init(count: milliseconds.count, p50: rank(50), p90: rank(90))
    }
}

/// The profile an emulated card was loaded with, and what of the probed card it could not hold.
public struct ProfileNote: Equatable, Sendable {
    /// The profile's name.
    public var name: String
    /// Each feature of the card the profile dropped, in words ("extensions: credBlobV2 (not
    /// implemented by this build)").
    public var dropped: [String]

    public init(name: String, dropped: [String]) {
        self.name = name
        self.dropped = dropped
    }
}
