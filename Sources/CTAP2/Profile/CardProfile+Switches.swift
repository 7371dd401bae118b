import FIDOWire

/// The catalogue of behaviour switches and departures: every switch a profile may set, with its
/// values, default and the room the text leaves (README "Card profiles" has the same table).
extension CardProfile {
    /// A profile with every switch at its default, whose switches' defaults the catalogue reads.
    static let switchDefaults = CardProfile(
        name: "defaults", description: "", aaguid: "00000000-0000-0000-0000-000000000000", versions: ["FIDO_2_0"],
        extensions: [], pinUvAuthProtocols: [1], credentialManagement: false, pinUvAuthToken: false,
        makeCredUvNotRqd: false, maxMsgSize: 1024, maxCredentialCountInList: 1, maxCredentialIdLength: 128,
        transports: [], algorithms: [-7], firmwareVersion: 0, minPINLength: 4, residentKeyCapacity: 0,
        resetWindowSeconds: nil, selectResponse: "FIDO_2_0", atr: "3B00", attestation: .packed)

    /// getInfo members a profile may leave out (every member but `versions` and `aaguid`, which
    /// CTAP 2.1 §6.4 requires), by their CTAP names.
    public static let omittableInfoMembers: [String] = GetInfoKey.allCases
        .filter { $0 != .versions && $0 != .aaguid }.map { String(describing: $0) }
    /// getInfo options a profile may leave out, as `options.NAME`.
    public static let omittableInfoOptions: [String] = [AuthenticatorOption]([
        .plat, .rk, .up, .clientPin, .credMgmt, .pinUvAuthToken, .makeCredUvNotRqd, .authnrCfg, .alwaysUv,
        .setMinPINLength, .ep, .largeBlobs, .credentialMgmtPreview, .perCredMgmtRO, .uvAcfg,
    ]).map { "options." + $0.rawValue }

    /// Every switch, in the order the README and `profile show --switches` list them.
    public static let switches: [BehaviourSwitch] = isoSwitches + selectSwitches + ctapSwitches + judgingSwitches + departureSwitches

    /// The switch named `field` (`behaviour.NAME` or `departures.NAME`).
    public static func behaviourSwitch(_ field: String) -> BehaviourSwitch? {
        switches.first { $0.field == field }
    }

    private static let errorWord = StatusWord.switchValues

    private static let isoSwitches: [BehaviourSwitch] = [
        BehaviourSwitch(.behaviour, "malformedAPDU", \.behaviour.malformedAPDU, concern: "ISO 7816",
                        summary: "the answer to bytes that are no well-formed APDU (Lc or Le disagreeing with the length)",
                        room: "ISO/IEC 7816-4 §5.6 offers 6700 (wrong length) and 6F00 (no precise diagnosis); §5.1 names none for an unparsable APDU"),
        BehaviourSwitch(.behaviour, "unknownClass", \.behaviour.unknownClass, concern: "ISO 7816",
                        summary: "the answer to a class byte other than 00 and 80",
                        room: "ISO/IEC 7816-4 §5.6 lists 6E00 (class not supported); cards that judge the instruction first answer 6D00"),
        BehaviourSwitch(.behaviour, "unknownInstructionClass00", \.behaviour.unknownInstructionClass00, concern: "ISO 7816",
                        summary: "the answer to an instruction unknown in class 00 (NFCCTAP_MSG sent in class 00, an unknown INS, U2F on a card without it)",
                        room: "ISO/IEC 7816-4 §5.6 has both 6D00 (instruction not supported) and 6E00 (class not supported): a card that knows each instruction's class may call it either"),
        BehaviourSwitch(.behaviour, "unknownInstructionClass80", \.behaviour.unknownInstructionClass80, concern: "ISO 7816",
                        summary: "the answer to an instruction unknown in class 80 (NFCCTAP's on a U2F-only card, INS 11 without NFCCTAP_GETRESPONSE)",
                        room: "as for class 00: ISO/IEC 7816-4 §5.6 has 6D00 and 6E00"),
        BehaviourSwitch(.behaviour, "incorrectP1P2", \.behaviour.incorrectP1P2, concern: "ISO 7816",
                        summary: "the answer to P1/P2 that NFCCTAP_MSG, NFCCTAP_GETRESPONSE, GET RESPONSE or U2F_AUTHENTICATE do not take",
                        room: "ISO/IEC 7816-4 §5.6 offers 6A86 (incorrect P1-P2) and 6B00 (wrong parameters P1-P2); CTAP 2.1 §11.3 names neither"),
        BehaviourSwitch(.behaviour, "emptyMessage", \.behaviour.emptyMessage, concern: "ISO 7816",
                        summary: "the answer to an NFCCTAP_MSG without a CTAP message (case 1 or 2)",
                        room: "CTAP 2.1 §11.3.6 describes only an NFCCTAP_MSG with data; 6700 (wrong length) and 6984 (data invalid) both read"),
        BehaviourSwitch(.behaviour, "getResponseIdle", \.behaviour.getResponseIdle, concern: "ISO 7816",
                        values: errorWord + ", or 9000 (success with no data)",
                        summary: "the answer to GET RESPONSE when no response bytes wait",
                        room: "ISO/IEC 7816-4 §11.4.5 (GET RESPONSE) names no answer for nothing pending: 6985 (conditions of use) and an empty 9000 both occur",
                        accepts: { $0 == .success || $0.isChoosableError }),
        BehaviourSwitch(.behaviour, "nfcctapGetResponseIdle", \.behaviour.nfcctapGetResponseIdle, concern: "ISO 7816",
                        summary: "the answer to NFCCTAP_GETRESPONSE (poll or cancel) when no request waits",
                        room: "CTAP 2.1 §11.3.7 describes NFCCTAP_GETRESPONSE only after a 9100"),
        BehaviourSwitch(.behaviour, "nfcctapGetResponse", \.behaviour.nfcctapGetResponse, concern: "ISO 7816",
                        summary: "whether the card has NFCCTAP_GETRESPONSE (INS 11); without it INS 11 is unknown in class 80 and an NFCCTAP_MSG with P1 80 is answered at once",
                        room: "CTAP 2.1 §11.3.6: P1 80 says the client supports NFCCTAP_GETRESPONSE, the card may still answer at once"),
        BehaviourSwitch(.behaviour, "responseChunk", \.behaviour.responseChunk, concern: "ISO 7816", range: 1...256,
                        summary: "the most data bytes one short response carries; the rest waits behind 61xx for GET RESPONSE",
                        room: "ISO/IEC 7816-4 §5.3.4: a card may answer fewer bytes than Ne and announce the rest with 61xx"),
        BehaviourSwitch(.behaviour, "commandResponseChunk", \.behaviour.commandResponseChunk, concern: "ISO 7816",
                        nullMeans: "responseChunk", range: 1...256,
                        summary: "the most data bytes the first short response to a CTAP command other than getInfo carries (a card that sends getInfo's answer from a buffer of its own); the rest waits behind 61xx",
                        room: "ISO/IEC 7816-4 §5.3.4: a card may answer fewer bytes than Ne and announce the rest with 61xx, and need not cut every answer alike"),
        BehaviourSwitch(.behaviour, "getResponseP1P2", \.behaviour.getResponseP1P2, concern: "ISO 7816",
                        summary: "GET RESPONSE with P1/P2 other than 00 00: check (refused with incorrectP1P2's word) or ignore (answered as with 00 00)",
                        room: "ISO/IEC 7816-4 §11.4.5 (GET RESPONSE): P1-P2 other than 0000 are reserved for future use, and no answer to them is named"),
        BehaviourSwitch(.behaviour, "getResponseInChain", \.behaviour.getResponseInChain, concern: "chaining",
                        summary: "a GET RESPONSE inside a command chain: refuse (6883, the chain ends) or process (answered as with no chain, the chain goes on)",
                        room: "ISO/IEC 7816-4 §5.3.3 names 6883 for a chain broken off, but leaves open which commands break it"),
        BehaviourSwitch(.behaviour, "selectInChain", \.behaviour.selectInChain, concern: "chaining",
                        summary: "a SELECT inside a command chain: refuse (6883) or process (the SELECT runs; the chain ends)",
                        room: "ISO/IEC 7816-4 §5.3.3 as above; a card manager that handles SELECT itself runs it"),
        BehaviourSwitch(.behaviour, "chainOverflow", \.behaviour.chainOverflow, concern: "chaining",
                        values: "requestTooLarge, or " + errorWord,
                        summary: "a chained NFCCTAP_MSG longer than maxMsgSize: requestTooLarge (every piece taken, CTAP2_ERR_REQUEST_TOO_LARGE after the last) or this status word to the piece that overflows (the chain ends)",
                        room: "CTAP 2.1 §6.4 (maxMsgSize) bounds the message; ISO/IEC 7816-4 §5.1.1.1 lets a card refuse a piece of a chain it cannot buffer, and names no word for it"),
    ]

    private static let selectSwitches: [BehaviourSwitch] = [
        BehaviourSwitch(.behaviour, "notSelected", \.behaviour.notSelected, concern: "SELECT",
                        summary: "the answer to an NFCCTAP or U2F command before the FIDO applet was selected",
                        room: "CTAP 2.1 §11.3.4 asks the client to SELECT first, and names no answer otherwise: 6985, 6986 (command not allowed) and 6D00 all occur"),
        BehaviourSwitch(.behaviour, "selectOtherP1P2", \.behaviour.selectOtherP1P2, concern: "SELECT",
                        summary: "the answer to SELECT with P1/P2 other than 04 00 and 04 0C (by file ID, by path, next occurrence, …)",
                        room: "ISO/IEC 7816-4 §11.1.1 defines these selections; a FIDO card need not have files: 6A86, 6A81 (function not supported) or the applet's own answer"),
        BehaviourSwitch(.behaviour, "selectNoDataP2", \.behaviour.selectNoDataP2, concern: "SELECT",
                        summary: "SELECT with P2 0C: answered with no data, or with the SELECT answer anyway",
                        room: "ISO/IEC 7816-4 §11.1.1 (P2 b4–b3 = 11: no response data if Le is absent; a card may answer proprietary data when Le is present)"),
        BehaviourSwitch(.behaviour, "selectWithoutAID", \.behaviour.selectWithoutAID, concern: "SELECT",
                        values: errorWord + ", or selects (the FIDO applet is selected)",
                        summary: "SELECT by DF name without an AID (Lc 0 or no data)",
                        room: "ISO/IEC 7816-4 §11.1.1: a SELECT without data selects the card's default (MF or default application); a FIDO applet may refuse it"),
        BehaviourSwitch(.behaviour, "selectPartialAID", \.behaviour.selectPartialAID, concern: "SELECT",
                        summary: "SELECT of the first bytes of the FIDO AID: refuse (6A82) or select the applet",
                        room: "ISO/IEC 7816-4 §11.1.1 allows selection by a right-truncated DF name"),
        BehaviourSwitch(.behaviour, "failedSelectDeselects", \.behaviour.failedSelectDeselects, concern: "SELECT",
                        summary: "whether a failed SELECT of another AID leaves no applet selected (false: the FIDO applet stays selected)",
                        room: "ISO/IEC 7816-4 §11.1.1 does not say what stays selected when a selection fails; a JavaCard's runtime keeps the current applet"),
        BehaviourSwitch(.behaviour, "afterRefusedSelect", \.behaviour.afterRefusedSelect, concern: "SELECT",
                        values: "notSelected, or " + errorWord + " (every FIDO command answers it until the next SELECT)",
                        summary: "what FIDO commands answer after a SELECT the card refused that leaves no applet selected (no AID, another AID): notSelected's word, or this one (an applet the runtime selected that refused the selection itself)",
                        room: "ISO/IEC 7816-4 §11.1.1 does not say what a refused selection leaves selected; on a JavaCard the runtime may select the applet and the applet refuse"),
        BehaviourSwitch(.behaviour, "afterReset", \.behaviour.afterReset, concern: "SELECT",
                        values: "staysSelected, or " + errorWord + " (every FIDO command answers it until the next SELECT)",
                        summary: "whether the card needs a SELECT after authenticatorReset",
                        room: "CTAP 2.1 §6.6 (authenticatorReset) says nothing of the applet's selection"),
    ]

    private static let ctapSwitches: [BehaviourSwitch] = [
        BehaviourSwitch(.behaviour, "pinRetriesWithoutPIN", \.behaviour.pinRetriesWithoutPIN, concern: "CTAP",
                        summary: "clientPIN getPINRetries before a PIN is set: CTAP2_ERR_PIN_NOT_SET, or the retries (8)",
                        room: "CTAP 2.1 §6.5.5.2 (getPINRetries) lists no error"),
        BehaviourSwitch(.behaviour, "pinUvAuthParamWithoutPIN", \.behaviour.pinUvAuthParamWithoutPIN, concern: "CTAP",
                        summary: "a non-empty pinUvAuthParam to makeCredential or getAssertion on a card with no PIN: CTAP2_ERR_PIN_NOT_SET, or CTAP2_ERR_PIN_AUTH_INVALID (verified against no token)",
                        room: "CTAP 2.1 §6.1.2 / §6.2.2 verify the pinUvAuthParam against the current token; a card without a PIN has none, and cards answer either"),
        BehaviourSwitch(.behaviour, "u2fUnlisted", \.behaviour.u2fUnlisted, concern: "CTAP",
                        summary: "U2F on a card whose versions lack U2F_V2: absent (its instructions unknown), or versionOnly (U2F_VERSION answers, REGISTER and AUTHENTICATE answer 6986)",
                        room: "CTAP 2.1 §6.4 lists U2F_V2 only for a card that supports CTAP1/U2F; FIDO U2F NFC leaves a card without attestation free to refuse registration"),
        BehaviourSwitch(.behaviour, "u2fVersionData", \.behaviour.u2fVersionData, concern: "CTAP",
                        summary: "U2F_VERSION with a data field: wrongLength (6700) or ignore the data",
                        room: "FIDO U2F Raw Message Formats §6 sends U2F_VERSION without data and names no answer to data"),
        BehaviourSwitch(.behaviour, "getInfoAbsent", \.behaviour.getInfoAbsent, concern: "CTAP",
                        values: "a list of getInfo member names (maxMsgSize, transports, maxPINLength, …) and options.NAME",
                        summary: "getInfo members the card leaves out (a null or missing maxMsgSize, transports, maxCredentialCountInList, maxCredentialIdLength or firmwareVersion, and a null maxPINLength, mean the same)",
                        room: "CTAP 2.1 §6.4: every member but versions and aaguid is optional; an absent maxMsgSize means 1024, an absent maxPINLength 63",
                        accepts: { $0.allSatisfy { omittableInfoMembers.contains($0) || omittableInfoOptions.contains($0) } }),
        BehaviourSwitch(.behaviour, "unstoredNames", \.behaviour.unstoredNames, concern: "CTAP",
                        values: "a list of rp.name, user.name and user.displayName",
                        summary: "the names a discoverable credential does not keep: credential management and assertions answer them absent",
                        room: "CTAP 2.1 §6.1.2 step 16: the authenticator stores the user entity's members it can; rp.name, user.name and user.displayName are optional (WebAuthn §5.4.2, §5.4.3)",
                        accepts: { Set($0).isSubset(of: storableNames) && Set($0).count == $0.count }),
        BehaviourSwitch(.behaviour, "singleAccountUser", \.behaviour.singleAccountUser, concern: "CTAP",
                        summary: "getAssertion of the one discoverable credential an RP has, after user verification: id (the user ID only) or details (its name and display name too)",
                        room: "CTAP 2.1 §6.2.2: user identifiable information only after user verification, and for one account the user ID; it does not forbid more"),
        BehaviourSwitch(.behaviour, "uvmMethods", \.behaviour.uvmMethods, concern: "CTAP",
                        summary: "the uvm extension's output: all (the PIN and the presence, each an entry) or strongest (the PIN alone when the user was verified)",
                        room: "WebAuthn Level 2 §10.3 (uvm): up to three entries, the most relevant first, of the methods used; how many is the authenticator's"),
        BehaviourSwitch(.behaviour, "upOption", \.behaviour.upOption, concern: "CTAP",
                        summary: "getInfo option up: true, or false (a card that takes the tap as presence and says it cannot test it); its answers are the same",
                        room: "CTAP 2.1 §6.4: up says whether the authenticator can test user presence; a contactless card's only test is the tap, and cards report either"),
        BehaviourSwitch(.behaviour, "uvAcfgOption", \.behaviour.listedUvAcfg, concern: "CTAP", values: "null (not listed), true or false",
                        summary: "getInfo option uvAcfg (authenticatorConfig with a token from built-in user verification): not listed, or listed with this value; nothing else changes",
                        room: "CTAP 2.2 §6.4: every option is optional, an absent uvAcfg means false"),
        BehaviourSwitch(.behaviour, "uvModality", \.behaviour.uvModality, concern: "CTAP", nullMeans: "not reported",
                        range: 1...Int(Int32.max),
                        summary: "getInfo uvModality (0x12): not reported, or this number (FIDO Registry user verification methods, 512: none)",
                        room: "CTAP 2.1 §6.4: uvModality is optional; a card without built-in user verification may still report one"),
        BehaviourSwitch(.behaviour, "remainingCredentials", \.behaviour.remainingCredentials, concern: "CTAP",
                        summary: "getInfo remainingDiscoverableCredentials and credential management's maxPossibleRemainingResidentCredentialsCount: the exact number of free slots, or always the capacity",
                        room: "CTAP 2.1 §6.4: the member is an estimate of how many more discoverable credentials fit"),
        BehaviourSwitch(.behaviour, "signatureCounter", \.behaviour.signatureCounter, concern: "CTAP",
                        summary: "the signature counter: global (one for the card, up signatureCounterStep per signature), zero (always 0), randomStep (up a random 1…signatureCounterStep)",
                        room: "WebAuthn §6.1.1: a counter per credential or global, incremented by a positive value; an authenticator may have none (0)"),
        BehaviourSwitch(.behaviour, "signatureCounterStep", \.behaviour.signatureCounterStep, concern: "CTAP", range: 1...1000,
                        summary: "how much the global counter goes up per signature (the most, with randomStep)",
                        room: "WebAuthn §6.1.1: the counter goes up by some positive value per signature"),
        BehaviourSwitch(.behaviour, "credentialIdLength", \.behaviour.credentialIdLength, concern: "CTAP",
                        nullMeans: "the natural length: 81 bytes for ES256", range: 81...1023,
                        summary: "the length of every credential ID the card makes (padded with authenticated filler; an ID that needs more, with a credBlob or another algorithm, keeps its length)",
                        room: "CTAP 2.1 §6.4 bounds it by maxCredentialIdLength only; WebAuthn §4 allows 16–1023 bytes"),
        BehaviourSwitch(.behaviour, "parametersToNone", \.behaviour.parametersToNone, concern: "CTAP",
                        summary: "bytes after a command that takes no parameters (getInfo, getNextAssertion, authenticatorReset, authenticatorSelection): invalidLength (CTAP1_ERR_INVALID_LENGTH) or ignore (the command runs as without them)",
                        room: "CTAP 2.1 §6.4, §6.3, §6.6 and §6.9 define these commands without parameters and name no error for bytes after the command byte"),
        BehaviourSwitch(.behaviour, "uvTokenWithoutUV", \.behaviour.uvTokenWithoutUV, concern: "CTAP",
                        summary: "clientPIN getPinUvAuthTokenUsingUvWithPermissions on a card without built-in user verification: invalidSubcommand (CTAP2_ERR_INVALID_SUBCOMMAND) or notAllowed (CTAP2_ERR_NOT_ALLOWED)",
                        room: "CTAP 2.1 §6.5.5.7.3 describes the subcommand for a card with built-in user verification only; one without may call it unknown or not allowed"),
        BehaviourSwitch(.behaviour, "configUnknownSubcommand", \.behaviour.configUnknownSubcommand, concern: "CTAP",
                        summary: "authenticatorConfig with a subCommand the card does not offer: invalidSubcommand (CTAP2_ERR_INVALID_SUBCOMMAND) or invalidParameter (CTAP1_ERR_INVALID_PARAMETER)",
                        room: "CTAP 2.1 §6.11 lists the subcommands, and §8 has both INVALID_SUBCOMMAND and INVALID_PARAMETER for a parameter value the card does not take"),
    ]

    private static let judgingSwitches: [BehaviourSwitch] = [
        BehaviourSwitch(.behaviour, "judging", \.behaviour.judging, concern: "judging",
                        summary: "the order a request's faults are judged in: wholeBody (well-formedness of the whole body, then every top-level member's type, then the entities' members, then lengths and values) or positional (the member count, then each member in key order judged completely before the next; see \"Judging order\")",
                        room: "CTAP 2.1 §8 names a code for each kind of fault but no order among them; §6.1.2 and §6.2.2 order only the checks after the parameters are read"),
        BehaviourSwitch(.behaviour, "parametersAbsent", \.behaviour.parametersAbsent, concern: "judging",
                        summary: "a command that takes parameters sent as the command byte alone: invalidCBOR (CTAP2_ERR_INVALID_CBOR) or cborUnexpectedType (CTAP2_ERR_CBOR_UNEXPECTED_TYPE: no map where one must be)",
                        room: "CTAP 2.1 §8: nothing where a map must be is both CBOR that ends too soon and an item of the wrong type"),
        BehaviourSwitch(.behaviour, "longMemberKey", \.behaviour.longMemberKey, concern: "judging",
                        summary: "a member the command does not know whose key is an integer of two or more bytes (24 or more): skip, or cborUnexpectedType (CTAP2_ERR_CBOR_UNEXPECTED_TYPE, a card that reads every key as one byte)",
                        room: "CTAP 2.1 §8 asks an authenticator to ignore unknown keys; no command has a key of 24 or more, and a card that reads keys as one byte meets an item it did not expect"),
        BehaviourSwitch(.behaviour, "pinUvAuthProtocolCheck", \.behaviour.pinUvAuthProtocolCheck, concern: "judging",
                        summary: "pinUvAuthProtocol of a type or value the card does not support: whenUsed (a wrong type CBOR_UNEXPECTED_TYPE, an unsupported value ignored where no pinUvAuthParam needs it) or onSight (CTAP1_ERR_INVALID_PARAMETER, in every command, with or without a pinUvAuthParam)",
                        room: "CTAP 2.1 §6.1.2, §6.2.2 and §6.5.5 judge an unsupported protocol (INVALID_PARAMETER) where it is used; they do not forbid judging it first"),
        BehaviourSwitch(.behaviour, "credentialManagementWithoutPIN", \.behaviour.credentialManagementWithoutPIN, concern: "judging",
                        summary: "credentialManagement and its preview on a card without a PIN: members (judged as any request) or puatRequired (CTAP2_ERR_PUAT_REQUIRED before anything is read)",
                        room: "CTAP 2.1 §6.8: every subcommand but the getNext ones needs a pinUvAuthParam, which a card without a PIN cannot verify; the text does not order that against the members' checks"),
    ]

    private static let departureSwitches: [BehaviourSwitch] = [
        BehaviourSwitch(.departures, "longerAIDSelects", \.departures.longerAIDSelects, concern: "SELECT",
                        summary: "a SELECT of the FIDO AID followed by more bytes selects the applet",
                        room: "ISO/IEC 7816-4 §11.1.1: SELECT by DF name selects the application of that name; no application is named A0000006472F0001 plus more, so 6A82"),
        BehaviourSwitch(.departures, "exceedsLe", \.departures.exceedsLe, concern: "ISO 7816",
                        summary: "the first part of a short response carries up to responseChunk bytes whatever Le asks for (GET RESPONSE still honours Le)",
                        room: "ISO/IEC 7816-4 §5.1: Le gives Ne, the most response bytes the host accepts"),
        BehaviourSwitch(.departures, "oldTokenStaysValid", \.departures.oldTokenStaysValid, concern: "CTAP",
                        summary: "a pinUvAuthToken stays valid after a newer one was issued (the token value is kept; its permissions and RP are the newer one's)",
                        room: "CTAP 2.1 §6.5.5.7: getting a token first calls resetPinUvAuthToken(), so only the newest token verifies"),
        BehaviourSwitch(.departures, "grantsUnsupportedPermissions", \.departures.grantsUnsupportedPermissions, concern: "CTAP",
                        summary: "permissions for features the card lacks (be, lbw without large blobs, acfg without authenticatorConfig) are granted",
                        room: "CTAP 2.1 §6.5.5.7.2: a permission the authenticator does not support is refused with CTAP2_ERR_UNAUTHORIZED_PERMISSION"),
        BehaviourSwitch(.departures, "pinStateBeforeMembers", \.departures.pinStateBeforeMembers, concern: "CTAP",
                        summary: "clientPIN changePIN, getPinToken and getPinUvAuthTokenUsingPinWithPermissions answer CTAP2_ERR_PIN_NOT_SET on a card without a PIN before checking their mandatory members",
                        room: "CTAP 2.1 §6.5.5.6 and §6.5.5.7.1, step 1: a missing mandatory parameter is CTAP2_ERR_MISSING_PARAMETER, first"),
        BehaviourSwitch(.departures, "pinRetriesNeedProtocol", \.departures.pinRetriesNeedProtocol, concern: "CTAP",
                        summary: "clientPIN getPINRetries without pinUvAuthProtocol answers CTAP2_ERR_MISSING_PARAMETER",
                        room: "CTAP 2.1 §6.5.5.2: the platform sends getPINRetries with subCommand only"),
        BehaviourSwitch(.departures, "getAssertionIgnoresUv", \.departures.getAssertionIgnoresUv, concern: "CTAP",
                        summary: "getAssertion ignores the uv option on a card without built-in user verification",
                        room: "CTAP 2.1 §6.2.2 step 5: uv true on an authenticator without built-in UV is CTAP2_ERR_INVALID_OPTION"),
        BehaviourSwitch(.departures, "rkOptionInvalid", \.departures.rkOptionInvalid, concern: "CTAP",
                        summary: "getAssertion answers the rk option with CTAP2_ERR_INVALID_OPTION",
                        room: "CTAP 2.1 §6.2.2, options step: the rk option present is CTAP2_ERR_UNSUPPORTED_OPTION"),
        BehaviourSwitch(.departures, "pinUvAuthParamWithoutProtocolInvalid", \.departures.pinUvAuthParamWithoutProtocolInvalid, concern: "CTAP",
                        summary: "makeCredential and getAssertion answer a pinUvAuthParam without pinUvAuthProtocol with CTAP2_ERR_PIN_AUTH_INVALID",
                        room: "CTAP 2.1 §6.1.2 / §6.2.2 step 2: pinUvAuthParam present and pinUvAuthProtocol absent is CTAP2_ERR_MISSING_PARAMETER"),
        BehaviourSwitch(.departures, "setPINAgainPUATRequired", \.departures.setPINAgainPUATRequired, concern: "CTAP",
                        summary: "clientPIN setPIN while a PIN is set answers CTAP2_ERR_PUAT_REQUIRED",
                        room: "CTAP 2.1 §6.5.5.5 (setPIN): a PIN already set is CTAP2_ERR_PIN_AUTH_INVALID"),
        BehaviourSwitch(.departures, "deleteMissingCredentialOK", \.departures.deleteMissingCredentialOK, concern: "CTAP",
                        summary: "credentialManagement deleteCredential of a credential the card does not hold answers CTAP2_OK",
                        room: "CTAP 2.1 §6.8.5 (deleteCredential): a credential that is not found is CTAP2_ERR_NO_CREDENTIALS"),
        BehaviourSwitch(.departures, "uvmTrailingByte", \.departures.uvmTrailingByte, concern: "CTAP",
                        summary: "makeCredential's authenticator data with the uvm extension's output ends with one stray byte (00) after the extensions map",
                        room: "WebAuthn §6.1: the authenticator data ends with the extensions map when the ED flag is set; a byte after it is no part of any field"),
        BehaviourSwitch(.departures, "chainEndsLargeBlobWrite", \.departures.chainEndsLargeBlobWrite, concern: "CTAP",
                        summary: "a request that arrives as an ISO 7816 command chain ends a large-blob write in progress, so a later fragment sent chained answers CTAP1_ERR_INVALID_SEQ",
                        room: "CTAP 2.1 §6.10.2: the write's expected offset is kept between fragments until another command comes; chaining (ISO/IEC 7816-4 §5.3.3) only carries the fragment"),
    ]

    /// The switches set away from their default.
    public var setSwitches: [BehaviourSwitch] { Self.switches.filter { $0.isSet(in: self) } }
    /// The departures turned on.
    public var departuresOn: [BehaviourSwitch] { setSwitches.filter(\.isDeparture) }

    /// The names ``CardBehaviour/unstoredNames`` may list.
    static let storableNames: Set<String> = ["rp.name", "user.name", "user.displayName"]

    /// Whether a discoverable credential keeps `name` (`rp.name`, `user.name`, `user.displayName`).
    public func keeps(_ name: String) -> Bool { !behaviour.unstoredNames.contains(name) }

    /// Whether getInfo leaves member (or `options.NAME`) `name` out.
    public func omitsInfo(_ name: String) -> Bool { behaviour.getInfoAbsent.contains(name) }
}

extension CardBehaviour {
    /// ``uvAcfgOption`` as the catalogue reads and writes it (null, true or false).
    var listedUvAcfg: ListedOption {
        get { ListedOption(uvAcfgOption) }
        set { uvAcfgOption = newValue.value }
    }
}
