import FIDOWire

/// How a card behaves where CTAP 2.1/2.2 and ISO/IEC 7816-4 leave it the choice: the status word
/// for an instruction it does not know, what a SELECT of a longer AID does, whether getPINRetries
/// answers before a PIN is set, which getInfo members it leaves out, … Each property is one
/// switch of ``CardProfile/switches`` (the catalogue: JSON name, values, default, the sentence
/// that leaves the room); the card applies a switch to every request it concerns, so a profile
/// captures a rule of the card, never a remembered answer.
///
/// Every default is what the emulator did before the switch existed, so a profile that leaves a
/// switch out behaves as it always did. The JSON object `behaviour` of a profile holds the
/// switches set away from their defaults.
public struct CardBehaviour: Sendable, Equatable {
    // MARK: ISO 7816

    /// The answer to bytes that are not a well-formed APDU (Lc or Le disagreeing with the length).
    public var malformedAPDU: StatusWord = .wrongLength
    /// The answer to a class (CLA) the card does not take.
    public var unknownClass: StatusWord = .claNotSupported
    /// The answer to an instruction unknown in class `00` (and to U2F's when the card has no U2F).
    public var unknownInstructionClass00: StatusWord = .insNotSupported
    /// The answer to an instruction unknown in class `80` (and to NFCCTAP's on a U2F-only card).
    public var unknownInstructionClass80: StatusWord = .insNotSupported
    /// The answer to P1/P2 an instruction other than SELECT does not take.
    public var incorrectP1P2: StatusWord = .incorrectP1P2
    /// The answer to an NFCCTAP_MSG without a CTAP message (case 1 or 2).
    public var emptyMessage: StatusWord = .wrongLength
    /// The answer to GET RESPONSE when no response bytes wait (`9000`: success with no data).
    public var getResponseIdle: StatusWord = .conditionsNotSatisfied
    /// The answer to NFCCTAP_GETRESPONSE when no request waits.
    public var nfcctapGetResponseIdle: StatusWord = .conditionsNotSatisfied
    /// Whether the card has NFCCTAP_GETRESPONSE (INS `11`); without it INS `11` is an unknown
    /// instruction and an NFCCTAP_MSG with P1 `80` is answered at once.
    public var nfcctapGetResponse = true
    /// The most response bytes one short APDU carries (the rest waits behind `61xx`), at most 256.
    public var responseChunk = 256
    /// The most bytes the first short response to a CTAP command other than getInfo carries, or
    /// nil for ``responseChunk`` (a card that sends getInfo's answer from a buffer of its own).
    public var commandResponseChunk: Int? = nil
    /// A GET RESPONSE arriving inside a command chain: refused with `6883` (the chain ends), or
    /// answered as if there were no chain (the chain goes on).
    public var getResponseInChain: ChainInterruption = .refuse
    /// GET RESPONSE with P1/P2 other than `00 00`: refused with incorrectP1P2's word, or answered.
    public var getResponseP1P2: ParameterCheck = .check
    /// A SELECT arriving inside a command chain: refused with `6883` (the chain ends), or run
    /// (the chain ends, as any selection starts the applet afresh).
    public var selectInChain: ChainInterruption = .refuse
    /// A chained NFCCTAP_MSG longer than maxMsgSize: every piece taken and CTAP2_ERR_REQUEST_TOO_LARGE
    /// answered after the last, or this status word answered to the piece that overflows (the chain ends).
    public var chainOverflow: ChainOverflow = .requestTooLarge

    // MARK: SELECT

    /// The answer to a FIDO command (NFCCTAP, U2F) before the FIDO applet was selected.
    public var notSelected: StatusWord = .conditionsNotSatisfied
    /// The answer to SELECT with P1/P2 other than `04 00` / `04 0C` (by file ID, by path, next occurrence, …).
    public var selectOtherP1P2: StatusWord = .incorrectP1P2
    /// SELECT with P2 `0C` ("no response data"): answered with no data, or with the SELECT answer anyway.
    public var selectNoDataP2: SelectNoData = .noData
    /// SELECT without an AID (Lc 0, or no data at all): this status word, or the FIDO applet selected.
    public var selectWithoutAID: SelectWithoutAID = .status(.wrongLength)
    /// SELECT of the first bytes of the FIDO AID (a right-truncated DF name): refused (`6A82`), or it selects.
    public var selectPartialAID: PartialAID = .refuse
    /// Whether a failed SELECT of another AID leaves no applet selected (else the FIDO applet stays).
    public var failedSelectDeselects = true
    /// After a SELECT the card refused that leaves no applet selected (no AID, another AID): FIDO
    /// commands answer notSelected's word, or this one until the next SELECT (an applet the
    /// runtime selected that refused the selection itself).
    public var afterRefusedSelect: AfterRefusedSelect = .notSelected
    /// After authenticatorReset: the applet stays selected, or every FIDO command answers this status
    /// word until the next SELECT.
    public var afterReset: AfterReset = .staysSelected

    // MARK: CTAP

    /// clientPIN getPINRetries before a PIN is set: CTAP2_ERR_PIN_NOT_SET, or the retries (8).
    public var pinRetriesWithoutPIN: PINRetriesWithoutPIN = .pinNotSet
    /// A pinUvAuthParam (other than the empty PIN probe) on a card with no PIN: CTAP2_ERR_PIN_NOT_SET,
    /// or CTAP2_ERR_PIN_AUTH_INVALID (checked against no token).
    public var pinUvAuthParamWithoutPIN: PINUvAuthParamWithoutPIN = .pinNotSet
    /// U2F on a card whose versions lack `U2F_V2`: absent (its instructions unknown), or
    /// U2F_VERSION answered and REGISTER / AUTHENTICATE refused with `6986`.
    public var u2fUnlisted: U2FUnlisted = .absent
    /// U2F_VERSION with a data field: refused (`6700`), or the data ignored.
    public var u2fVersionData: U2FVersionData = .wrongLength
    /// getInfo members (and `options.NAME` options) the card leaves out of its answer.
    public var getInfoAbsent: [String] = []
    /// The names a discoverable credential does not keep (`rp.name`, `user.name`,
    /// `user.displayName`): credential management and assertions answer them absent.
    public var unstoredNames: [String] = []
    /// getAssertion of the one discoverable credential an RP has, after user verification: the
    /// user's ID only, or with its name and display name.
    public var singleAccountUser: SingleAccountUser = .id
    /// The uvm extension's output: every method the ceremony used (the PIN and the presence), or
    /// the strongest alone.
    public var uvmMethods: UVMMethods = .all
    /// getInfo option `up`: true, or false for a card that takes the tap as presence and says it
    /// cannot test it (its answers are the same).
    public var upOption = true
    /// getInfo option `uvAcfg` (CTAP 2.2): not listed (nil), or listed with this value.
    public var uvAcfgOption: Bool? = nil
    /// getInfo `uvModality` (0x12): not reported (nil), or this number (FIDO Registry §3.1, `0x200`: none).
    public var uvModality: Int? = nil
    /// getInfo remainingDiscoverableCredentials (and credential management's
    /// maxPossibleRemainingResidentCredentialsCount): the exact count of free slots, or always the capacity.
    public var remainingCredentials: RemainingCredentials = .exact
    /// The signature counter: one for the card, up `signatureCounterStep` per signature; always 0;
    /// or up a random 1…`signatureCounterStep` per signature.
    public var signatureCounter: SignatureCounter = .global
    /// How much the counter goes up per signature (the most, with `randomStep`).
    public var signatureCounterStep = 1
    /// The length of every credential ID the card makes, or nil for the natural length (81 bytes
    /// for ES256, more for other algorithms and a credBlob).
    public var credentialIdLength: Int? = nil
    /// Bytes after a command that takes no parameters (getInfo, getNextAssertion,
    /// authenticatorReset, authenticatorSelection): CTAP1_ERR_INVALID_LENGTH, or ignored.
    public var parametersToNone: ParametersToNone = .invalidLength
    /// clientPIN getPinUvAuthTokenUsingUvWithPermissions on a card without built-in user
    /// verification: CTAP2_ERR_INVALID_SUBCOMMAND, or CTAP2_ERR_NOT_ALLOWED.
    public var uvTokenWithoutUV: UVTokenWithoutUV = .invalidSubcommand
    /// authenticatorConfig with a subCommand the card does not offer: CTAP2_ERR_INVALID_SUBCOMMAND,
    /// or CTAP1_ERR_INVALID_PARAMETER.
    public var configUnknownSubcommand: ConfigUnknownSubcommand = .invalidSubcommand

    // MARK: Judging a request

    /// The order a request's faults are judged in: the whole body first (well-formedness, then
    /// every member's type, then the entities' members, then lengths and values), or
    /// positionally, member by member in key order, each judged completely before the next
    /// (Docs/Profiles.md, "Judging order").
    public var judging: JudgingOrder = .wholeBody
    /// A command that takes parameters sent without any (the command byte alone):
    /// CTAP2_ERR_INVALID_CBOR, or CTAP2_ERR_CBOR_UNEXPECTED_TYPE (no map where one must be).
    public var parametersAbsent: ParametersAbsent = .invalidCBOR
    /// A member the command does not know whose key is an integer of two or more bytes (24 or
    /// more): skipped, or CTAP2_ERR_CBOR_UNEXPECTED_TYPE (a card that reads every key as one byte).
    public var longMemberKey: LongMemberKey = .skip
    /// pinUvAuthProtocol of a type or value the card does not support: judged where it is used
    /// (a wrong type CBOR_UNEXPECTED_TYPE, an unsupported value ignored without a pinUvAuthParam),
    /// or CTAP1_ERR_INVALID_PARAMETER on sight, whatever else the request holds.
    public var pinUvAuthProtocolCheck: ProtocolCheck = .whenUsed
    /// credentialManagement (and its preview) on a card without a PIN: the request judged as
    /// any other, or CTAP2_ERR_PUAT_REQUIRED before anything is read.
    public var credentialManagementWithoutPIN: CredentialManagementWithoutPIN = .members

    /// Every switch at its default: the emulator's behaviour.
    public init() {}

    /// A chained command interrupted by another instruction.
    public enum ChainInterruption: String, Sendable, CaseIterable {
        case refuse, process
    }

    /// The methods the uvm extension names.
    public enum UVMMethods: String, Sendable, CaseIterable {
        case all, strongest
    }

    /// The user entity of a single account's assertion.
    public enum SingleAccountUser: String, Sendable, CaseIterable {
        case id, details
    }

    /// Whether P1/P2 an instruction does not define are refused.
    public enum ParameterCheck: String, Sendable, CaseIterable {
        case check, ignore
    }

    /// What FIDO commands answer after a refused SELECT.
    public enum AfterRefusedSelect: Sendable, Equatable {
        case notSelected
        case answer(StatusWord)
    }

    /// A chained message longer than the card takes.
    public enum ChainOverflow: Sendable, Equatable {
        case requestTooLarge
        case refused(StatusWord)
    }

    /// SELECT with P2 `0C`.
    public enum SelectNoData: String, Sendable, CaseIterable {
        case noData, answer
    }

    /// SELECT of a right-truncated FIDO AID.
    public enum PartialAID: String, Sendable, CaseIterable {
        case refuse, select
    }

    /// getPINRetries before a PIN is set.
    public enum PINRetriesWithoutPIN: String, Sendable, CaseIterable {
        case pinNotSet, retries
    }

    /// A pinUvAuthParam on a card with no PIN.
    public enum PINUvAuthParamWithoutPIN: String, Sendable, CaseIterable {
        case pinNotSet, pinAuthInvalid
    }

    /// U2F on a card that does not list `U2F_V2`.
    public enum U2FUnlisted: String, Sendable, CaseIterable {
        case absent, versionOnly
    }

    /// U2F_VERSION with data.
    public enum U2FVersionData: String, Sendable, CaseIterable {
        case wrongLength, ignore
    }

    /// getInfo remainingDiscoverableCredentials.
    public enum RemainingCredentials: String, Sendable, CaseIterable {
        case exact, capacity
    }

    /// How the signature counter moves.
    public enum SignatureCounter: String, Sendable, CaseIterable {
        case global, zero, randomStep
    }

    /// SELECT without an AID.
    public enum SelectWithoutAID: Sendable, Equatable {
        case status(StatusWord)
        case selects
    }

    /// The selection after authenticatorReset.
    public enum AfterReset: Sendable, Equatable {
        case staysSelected
        case deselected(StatusWord)
    }

    /// Bytes after a command that takes no parameters.
    public enum ParametersToNone: String, Sendable, CaseIterable {
        case invalidLength, ignore
    }

    /// The UV token subcommand on a card without built-in user verification.
    public enum UVTokenWithoutUV: String, Sendable, CaseIterable {
        case invalidSubcommand, notAllowed
    }

    /// authenticatorConfig's answer to a subCommand it does not offer.
    public enum ConfigUnknownSubcommand: String, Sendable, CaseIterable {
        case invalidSubcommand, invalidParameter
    }

    /// The order a request's faults are judged in.
    public enum JudgingOrder: String, Sendable, CaseIterable {
        case wholeBody, positional
    }

    /// The answer to a command byte without its parameters.
    public enum ParametersAbsent: String, Sendable, CaseIterable {
        case invalidCBOR, cborUnexpectedType
    }

    /// An unknown member with a key of two or more bytes.
    public enum LongMemberKey: String, Sendable, CaseIterable {
        case skip, cborUnexpectedType
    }

    /// When pinUvAuthProtocol is judged.
    public enum ProtocolCheck: String, Sendable, CaseIterable {
        case whenUsed, onSight
    }

    /// credentialManagement without a PIN.
    public enum CredentialManagementWithoutPIN: String, Sendable, CaseIterable {
        case members, puatRequired
    }
}

/// Where a card breaks a rule of CTAP 2.1 or ISO/IEC 7816-4. A team's CI must see what its card
/// does, so each departure is a switch too — off in every built-in profile, and marked wherever it
/// is shown with the rule it breaks (``BehaviourSwitch/room``). The JSON object `departures` of a
/// profile holds the ones turned on.
public struct CardDepartures: Sendable, Equatable {
    /// SELECT of the FIDO AID followed by more bytes selects the applet.
    public var longerAIDSelects = false
    /// The first part of a short response carries up to `responseChunk` bytes whatever Le asks
    /// for (GET RESPONSE still honours Le).
    public var exceedsLe = false
    /// A pinUvAuthToken stays valid after a newer one was issued: the token value is kept, its
    /// permissions and RP are the newer one's.
    public var oldTokenStaysValid = false
    /// Permissions for features the card lacks (`be`, `lbw` without large blobs, `acfg` without
    /// authenticatorConfig) are granted.
    public var grantsUnsupportedPermissions = false
    /// clientPIN changePIN, getPinToken and getPinUvAuthTokenUsingPinWithPermissions answer
    /// PIN_NOT_SET on a card without a PIN before checking their mandatory members.
    public var pinStateBeforeMembers = false
    /// clientPIN getPINRetries demands pinUvAuthProtocol.
    public var pinRetriesNeedProtocol = false
    /// getAssertion ignores the `uv` option on a card without built-in user verification.
    public var getAssertionIgnoresUv = false
    /// getAssertion answers the `rk` option with CTAP2_ERR_INVALID_OPTION.
    public var rkOptionInvalid = false
    /// makeCredential and getAssertion answer a pinUvAuthParam without pinUvAuthProtocol with
    /// CTAP2_ERR_PIN_AUTH_INVALID.
    public var pinUvAuthParamWithoutProtocolInvalid = false
    /// setPIN while a PIN is set answers CTAP2_ERR_PUAT_REQUIRED.
    public var setPINAgainPUATRequired = false
    /// credentialManagement deleteCredential of a credential the card does not hold answers CTAP2_OK.
    public var deleteMissingCredentialOK = false
    /// makeCredential's authenticator data with the uvm extension's output ends with one stray
    /// byte (`00`) after the extensions map.
    public var uvmTrailingByte = false
    /// A request that arrives as an ISO 7816 command chain ends a large-blob write in progress
    /// (the card keeps the write's offset where it keeps the chain's), so a later fragment sent
    /// chained is CTAP1_ERR_INVALID_SEQ.
    public var chainEndsLargeBlobWrite = false

    /// Every departure off.
    public init() {}
}
