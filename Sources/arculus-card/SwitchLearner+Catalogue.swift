import ArculusCard
import CardProbe
import JSONSupport

/// The learners, one per switch of the catalogue, in the order they run (a learner may read the
/// switches learned before it: the NFCCTAP_GETRESPONSE idle word only when the card has INS 11).
extension SwitchLearner {
    static let all: [SwitchLearner] = iso + select + ctap + judging + departures

    /// The learner of switch `field`.
    static func learner(_ field: String) -> SwitchLearner? { all.first { $0.field == field } }

    // MARK: ISO 7816

    static let iso: [SwitchLearner] = [
        word("behaviour.malformedAPDU", ["iso.lc-longer-than-data", "iso.lc-shorter-than-data", "iso.lc-zero-extended-mismatch"]),
        word("behaviour.unknownClass", ["iso.unknown-class"]),
        word("behaviour.unknownInstructionClass00", ["iso.unknown-instruction", "iso.message-class-00", "u2f.unknown-instruction"]),
        word("behaviour.unknownInstructionClass80", ["iso.unknown-instruction-80"]),
        word("behaviour.incorrectP1P2", ["iso.message-p1-01", "iso.message-p2-01", "iso.get-response-p1-01"]),
        word("behaviour.emptyMessage", ["iso.message-case-1", "iso.message-case-2"]),
        word("behaviour.getResponseIdle", ["iso.get-response-idle"], success: true),
        // Without INS 11 the poll, the cancel and a poll with wrong P2 all get the class-80
        // unknown-instruction word; with it the wrong P2 gets incorrectP1P2's.
        SwitchLearner("behaviour.nfcctapGetResponse", ["iso.poll-idle", "iso.cancel-idle", "iso.poll-p2-01", "iso.unknown-instruction-80"]) {
            evidence in
            guard let unknown = evidence.statusWord("iso.unknown-instruction-80"),
                  let words = Optional(["iso.poll-idle", "iso.cancel-idle", "iso.poll-p2-01"].compactMap { evidence.statusWord($0) }),
                  words.count == 3 else { return nil }
            let absent = words.allSatisfy { $0 == unknown }
            return Observation(.bool(!absent), "iso.poll-p2-01",
                               absent ? "answers \(unknown), as an unknown class-80 instruction (so do the poll and the cancel)"
                                      : "answers \(words[2]) (the poll \(words[0]))")
        },
        SwitchLearner("behaviour.nfcctapGetResponseIdle", ["iso.poll-idle", "iso.cancel-idle"]) { evidence in
            guard evidence.profile.behaviour.nfcctapGetResponse else { return nil }
            return evidence.errorWord("iso.poll-idle")
        },
        SwitchLearner("behaviour.responseChunk", ["iso.getinfo-case-3", "write.largeBlobs.get-first-part"]) { evidence in
            // The first part of an answer longer than one short response: how much it carries.
            // getInfo's shows it; else the large-blob read's, unless getInfo came whole with
            // more bytes than that part (then the read's is commandResponseChunk).
            if let (length, word) = evidence.firstPart("iso.getinfo-case-3") {
                return Observation(.number(length), "iso.getinfo-case-3", "answers \(length) bytes, then \(word)")
            }
            let id = "write.largeBlobs.get-first-part"
            guard let (length, word) = evidence.firstPart(id) else { return nil }
            if evidence.statusWord("iso.getinfo-case-3") == "9000", let whole = evidence.dataLength("iso.getinfo-case-3"),
               whole > length { return nil }
            return Observation(.number(length), id, "answers \(length) bytes, then \(word)")
        },
        SwitchLearner("behaviour.commandResponseChunk", ["write.largeBlobs.get-first-part", "iso.getinfo-case-3"]) { evidence in
            // The large-blob read's first part beside getInfo's chunk (responseChunk, learned before).
            let id = "write.largeBlobs.get-first-part"
            guard let (length, word) = evidence.firstPart(id) else { return nil }
            let chunk = evidence.profile.behaviour.responseChunk
            return Observation(length == chunk ? .null : .number(length), id,
                               "answers \(length) bytes, then \(word)" + (length == chunk ? ", as getInfo's first part" : " (getInfo's first part: \(chunk))"))
        },
        SwitchLearner("behaviour.getResponseP1P2", ["iso.get-response-p1-01"]) { evidence in
            guard let word = evidence.statusWord("iso.get-response-p1-01"), let idle = evidence.statusWord("iso.get-response-idle") else { return nil }
            // Answered as GET RESPONSE with nothing pending is: the P1 was not looked at.
            return Observation(.text(word == idle ? "ignore" : "check"), "iso.get-response-p1-01", "answers \(word) (with P1 00: \(idle))")
        },
        chainInterruption("behaviour.getResponseInChain", "chain.broken-by-get-response"),
        chainInterruption("behaviour.selectInChain", "chain.broken-by-select"),
        SwitchLearner("behaviour.chainOverflow", ["chain.larger-than-maxMsgSize"]) { evidence in
            let id = "chain.larger-than-maxMsgSize"
            guard let answer = evidence.answer(id) else { return nil }
            if evidence.ctap(id) == "CTAP2_ERR_REQUEST_TOO_LARGE" {
                return Observation(.text("requestTooLarge"), id, "answers CTAP2_ERR_REQUEST_TOO_LARGE after the last piece")
            }
            // The pieces' words, the refused one last.
            guard let pieces = answer["pieces"]?.arrayValue, pieces.dropLast().allSatisfy({ $0 == "9000" }),
                  pieces.last == answer["sw"], let refused = evidence.errorWord(id) else { return nil }
            return Observation(refused.value, id, "takes \(pieces.count - 1) pieces, then answers \(refused.value) to the next")
        },
    ]

    // MARK: SELECT

    static let select: [SwitchLearner] = [
        word("behaviour.notSelected", ["select.ctap-before-select", "select.u2f-before-select"]),
        word("behaviour.selectOtherP1P2", ["select.by-file-id", "select.next-occurrence"]),
        SwitchLearner("behaviour.selectNoDataP2", ["select.no-answer-data"]) { evidence in
            guard evidence.statusWord("select.no-answer-data") == "9000" else { return nil }
            let answers = evidence.answer("select.no-answer-data")?["text"] != nil
            return Observation(.text(answers ? "answer" : "noData"), "select.no-answer-data",
                               answers ? "answers the SELECT answer with P2 0C" : "answers 9000 with no data")
        },
        SwitchLearner("behaviour.selectWithoutAID", ["select.without-aid", "select.without-aid-le"]) { evidence in
            guard let word = evidence.statusWord("select.without-aid", step: 0) else { return nil }
            if word == "9000" {
                return Observation(.text("selects"), "select.without-aid", "answers 9000 (and getInfo after it \(evidence.statusWord("select.without-aid", step: 1) ?? "?"))")
            }
            return evidence.errorWord("select.without-aid", step: 0)
        },
        SwitchLearner("behaviour.selectPartialAID", ["select.partial-aid"]) { evidence in
            guard let word = evidence.statusWord("select.partial-aid") else { return nil }
            return Observation(.text(word == "9000" ? "select" : "refuse"), "select.partial-aid", "answers \(word)")
        },
        SwitchLearner("behaviour.failedSelectDeselects", ["select.other-then-ctap"]) { evidence in
            // getInfo after a failed SELECT: answered (the applet stayed selected) or refused.
            guard let word = evidence.statusWord("select.other-then-ctap", step: 1) else { return nil }
            let answered = word == "9000" || word.hasPrefix("61")
            return Observation(.bool(!answered), "select.other-then-ctap",
                               "answers getInfo after the failed SELECT with \(word)")
        },
        SwitchLearner("behaviour.afterRefusedSelect", ["select.without-aid"]) { evidence in
            // getInfo after a refused SELECT without AID, on a card with nothing selected before.
            guard let first = evidence.statusWord("select.without-aid", step: 0), first != "9000",
                  let after = evidence.statusWord("select.without-aid", step: 1),
                  let before = evidence.statusWord("select.ctap-before-select") else { return nil }
            if after == before { return Observation(.text("notSelected"), "select.without-aid", "answers getInfo after it \(after), as before any SELECT") }
            guard let word = evidence.errorWord("select.without-aid", step: 1) else { return nil }
            return Observation(word.value, "select.without-aid", "answers getInfo after it \(after), not \(before) as before any SELECT")
        },
        SwitchLearner("behaviour.afterReset", ["write.getInfo.after-reset-unselected"]) { evidence in
            let id = "write.getInfo.after-reset-unselected"
            guard evidence.fingerprint.probes["write.reset"]?.answer["ctap"] == "CTAP2_OK" else { return nil }
            if evidence.ctap(id) == "CTAP2_OK" { return Observation(.text("staysSelected"), id, "answers getInfo") }
            guard let word = evidence.errorWord(id) else { return nil }
            return Observation(word.value, id, "answers \(word.value) to getInfo until the next SELECT")
        },
    ]

    // MARK: CTAP

    static let ctap: [SwitchLearner] = [
        SwitchLearner("behaviour.pinRetriesWithoutPIN", ["clientPIN.getPINRetries.protocol-1", "write.getPINRetries.no-pin"]) { evidence in
            guard let (id, status) = evidence.withoutPIN("clientPIN.getPINRetries.protocol-1", "write.getPINRetries.no-pin") else { return nil }
            switch status {
            case "CTAP2_OK": return Observation(.text("retries"), id, "answers the retries with no PIN set")
            case "CTAP2_ERR_PIN_NOT_SET": return Observation(.text("pinNotSet"), id, "answers CTAP2_ERR_PIN_NOT_SET")
            default: return nil
            }
        },
        SwitchLearner("behaviour.pinUvAuthParamWithoutPIN", ["makeCredential.junk-pinUvAuthParam", "write.makeCredential.junk-without-pin"]) {
            evidence in
            // CTAP 2.0 has no choice here (PIN_AUTH_INVALID, README): only a 2.1 card shows one.
            guard evidence.profile.supportsCTAP21,
                  let (id, status) = evidence.withoutPIN("makeCredential.junk-pinUvAuthParam", "write.makeCredential.junk-without-pin")
            else { return nil }
            switch status {
            case "CTAP2_ERR_PIN_AUTH_INVALID": return Observation(.text("pinAuthInvalid"), id, "answers CTAP2_ERR_PIN_AUTH_INVALID with no PIN set")
            case "CTAP2_ERR_PIN_NOT_SET": return Observation(.text("pinNotSet"), id, "answers CTAP2_ERR_PIN_NOT_SET")
            default: return nil
            }
        },
        SwitchLearner("behaviour.u2fUnlisted", ["u2f.version"]) { evidence in
            guard !evidence.profile.supportsU2F, let word = evidence.statusWord("u2f.version") else { return nil }
            return Observation(.text(word == "9000" ? "versionOnly" : "absent"), "u2f.version",
                               word == "9000" ? "answers U2F_VERSION though getInfo lists no U2F_V2" : "answers \(word)")
        },
        SwitchLearner("behaviour.u2fVersionData", ["u2f.version-with-data"]) { evidence in
            guard evidence.profile.supportsU2F || evidence.profile.behaviour.u2fUnlisted == .versionOnly,
                  let word = evidence.statusWord("u2f.version-with-data") else { return nil }
            switch word {
            case "9000": return Observation(.text("ignore"), "u2f.version-with-data", "answers U2F_VERSION with a data byte")
            case "6700": return Observation(.text("wrongLength"), "u2f.version-with-data", "answers 6700")
            default: return nil
            }
        },
        SwitchLearner("behaviour.getInfoAbsent", [Fingerprint.getInfoEntry]) { evidence in
            // The members and options the emulator with this profile reports and the card does not.
            guard let card = evidence.answer(Fingerprint.getInfoEntry)?["body"]?.objectValue,
                  let ours = evidence.emulatorInfo(evidence.profile)?.objectValue else { return nil }
            var absent: [String] = []
            for name in CardProfile.omittableInfoMembers where card[name] == nil && ours[name] != nil { absent.append(name) }
            let theirOptions = card["options"]?.objectValue ?? [:]
            for name in CardProfile.omittableInfoOptions {
                let option = String(name.dropFirst("options.".count))
                if card["options"] != nil, theirOptions[option] == nil, ours["options"]?[option] != nil { absent.append(name) }
            }
            return Observation(.list(absent), Fingerprint.getInfoEntry,
                               absent.isEmpty ? "reports every member the emulator reports" : "leaves out \(absent.joined(separator: ", "))")
        },
        SwitchLearner("behaviour.unstoredNames", ["write.credentialManagement.rps", "write.credentialManagement.credentials"]) { evidence in
            // The discoverable credential was made with rp.name, user.name and user.displayName.
            guard let rp = evidence.answer("write.credentialManagement.rps")?["body"]?["rp"],
                  let user = evidence.answer("write.credentialManagement.credentials")?["body"]?["user"] else { return nil }
            let absent = [("rp.name", rp["name"]), ("user.name", user["name"]), ("user.displayName", user["displayName"])]
                .filter { $0.1 == nil }.map(\.0)
            return Observation(.list(absent), "write.credentialManagement.credentials",
                               absent.isEmpty ? "keeps every name" : "answers without \(absent.joined(separator: ", "))")
        },
        SwitchLearner("behaviour.singleAccountUser", ["write.getAssertion.discoverable"]) { evidence in
            guard evidence.profile.keeps("user.name"), let user = evidence.answer("write.getAssertion.discoverable")?["body"]?["user"] else { return nil }
            let details = user["name"] != nil
            return Observation(.text(details ? "details" : "id"), "write.getAssertion.discoverable",
                               details ? "answers the user's name with its one credential" : "answers the user ID only")
        },
        SwitchLearner("behaviour.uvmMethods", ["write.makeCredential.discoverable"]) { evidence in
            // A discoverable credential made with a PIN token: verified and present.
            guard let body = evidence.answer("write.makeCredential.discoverable")?["body"]?["authData"],
                  body["flags"]?.stringValue?.contains("UV") == true,
                  let methods = body["extensions"]?["uvm"]?.arrayValue, !methods.isEmpty else { return nil }
            return Observation(.text(methods.count == 1 ? "strongest" : "all"), "write.makeCredential.discoverable",
                               "names \(methods.count) user verification method\(methods.count == 1 ? "" : "s") after a PIN")
        },
        SwitchLearner("behaviour.upOption", [Fingerprint.getInfoEntry]) { evidence in
            guard let up = evidence.answer(Fingerprint.getInfoEntry)?["body"]?["options"]?["up"]?.boolValue else { return nil }
            return Observation(.bool(up), Fingerprint.getInfoEntry, "reports the option up: \(up)")
        },
        SwitchLearner("behaviour.uvAcfgOption", [Fingerprint.getInfoEntry]) { evidence in
            guard evidence.profile.supportsCTAP21, let options = evidence.answer(Fingerprint.getInfoEntry)?["body"]?["options"] else { return nil }
            let uvAcfg = options["uvAcfg"]?.boolValue
            return Observation(uvAcfg.map { .bool($0) } ?? .null, Fingerprint.getInfoEntry,
                               uvAcfg.map { "reports the option uvAcfg: \($0)" } ?? "does not list uvAcfg")
        },
        SwitchLearner("behaviour.uvModality", [Fingerprint.getInfoEntry]) { evidence in
            guard evidence.profile.supportsCTAP21, let body = evidence.answer(Fingerprint.getInfoEntry)?["body"] else { return nil }
            guard let modality = body["uvModality"]?.intValue else { return Observation(.null, Fingerprint.getInfoEntry, "reports no uvModality") }
            return Observation(.number(modality), Fingerprint.getInfoEntry, "reports uvModality \(modality)")
        },
        SwitchLearner("behaviour.remainingCredentials", ["write.getInfo.after-reset", "write.getInfo.after-discoverable"]) { evidence in
            // After a discoverable credential is made: one fewer left, or the capacity still.
            guard evidence.fingerprint.probes["write.makeCredential.discoverable"]?.answer["ctap"] == "CTAP2_OK",
                  let before = evidence.infoMember("write.getInfo.after-reset", "remainingDiscoverableCredentials")?.intValue,
                  let after = evidence.infoMember("write.getInfo.after-discoverable", "remainingDiscoverableCredentials")?.intValue
            else { return nil }
            return Observation(.text(after == before ? "capacity" : "exact"), "write.getInfo.after-discoverable",
                               "reports \(after) remaining discoverable credentials after making one (\(before) before)")
        },
        SwitchLearner("behaviour.signatureCounter", counterEntries) { evidence in
            evidence.counter().map { Observation($0.kind, $0.entry, $0.shown) }
        },
        SwitchLearner("behaviour.signatureCounterStep", counterEntries) { evidence in
            guard let counter = evidence.counter(), counter.step > 0, counter.step <= 1000 else { return nil }
            return Observation(.number(counter.step), counter.entry, counter.shown)
        },
        SwitchLearner("behaviour.credentialIdLength", ["write.makeCredential", "write.makeCredential.discoverable"]) { evidence in
            let id = "write.makeCredential"
            guard let text = evidence.answer(id)?["body"]?["authData"]?["attestedCredential"]?["credentialId"]?.stringValue,
                  text.hasPrefix("bytes("), let length = Int(text.dropFirst(6).prefix { $0.isNumber }) else { return nil }
            // The emulator's ID for this request (ES256, no credBlob) is its shortest: 81 bytes.
            let natural = 81
            let shown = "makes credential IDs of \(length) bytes"
            if length == natural { return Observation(.null, id, shown) }
            guard length > natural, length <= min(1023, evidence.profile.maxCredentialIdLength) else { return nil }
            return Observation(.number(length), id, shown)
        },
        byStatus("behaviour.parametersToNone", entry: "getInfo.with-parameters", [
            ("CTAP2_OK", "ignore", "answers getInfo with a parameter map after the command byte"),
            ("CTAP1_ERR_INVALID_LENGTH", "invalidLength", "answers CTAP1_ERR_INVALID_LENGTH"),
        ]),
        byStatus("behaviour.uvTokenWithoutUV", entry: "clientPIN.getPinUvAuthTokenUsingUvWithPermissions", [
            ("CTAP2_ERR_NOT_ALLOWED", "notAllowed", "answers CTAP2_ERR_NOT_ALLOWED"),
            ("CTAP2_ERR_INVALID_SUBCOMMAND", "invalidSubcommand", "answers CTAP2_ERR_INVALID_SUBCOMMAND"),
        ]),
        byStatus("behaviour.configUnknownSubcommand", entry: "config.unknown-subcommand", applies: { $0.profile.authenticatorConfig }, [
            ("CTAP1_ERR_INVALID_PARAMETER", "invalidParameter", "answers CTAP1_ERR_INVALID_PARAMETER"),
            ("CTAP2_ERR_INVALID_SUBCOMMAND", "invalidSubcommand", "answers CTAP2_ERR_INVALID_SUBCOMMAND"),
        ]),
    ]

    // MARK: Judging

    static let judging: [SwitchLearner] = [
        SwitchLearner("behaviour.judging", judgingEntries.map(\.id)) { evidence in
            // Requests the two orders answer apart, whatever the other judging switches say:
            // positional judging answers each MISSING_PARAMETER (a count below the minimum, a
            // required key not in its place); whole-body judging the rest.
            let answers = judgingEntries.compactMap { entry in evidence.ctap(entry.id).map { (entry, $0) } }
            let positional = answers.filter { $0.1 == "CTAP2_ERR_MISSING_PARAMETER" }
            let wholeBody = answers.filter { $0.0.wholeBody($0.1) }
            guard let (first, status) = answers.first, max(positional.count, wholeBody.count) * 2 > judgingEntries.count else { return nil }
            let isPositional = positional.count > wholeBody.count
            let shown = "answers \(status)" + (answers.count > 1 ? " (of \(answers.count) such entries, \(isPositional ? positional.count : wholeBody.count) answer as \(isPositional ? "positional" : "whole-body") judging does)" : "")
            return Observation(.text(isPositional ? "positional" : "wholeBody"), first.id, shown)
        },
        SwitchLearner("behaviour.parametersAbsent", commandAloneEntries) { evidence in
            let codes = ["CTAP2_ERR_CBOR_UNEXPECTED_TYPE": "cborUnexpectedType", "CTAP2_ERR_INVALID_CBOR": "invalidCBOR"]
            let answers = commandAloneEntries.compactMap { id in evidence.ctap(id).flatMap { codes[$0] }.map { (id, $0) } }
            let counts = Dictionary(answers.map { ($0.1, 1) }, uniquingKeysWith: +)
            guard let most = counts.max(by: { $0.value < $1.value || $0.value == $1.value && $0.key > $1.key }),
                  let entry = answers.first(where: { $0.1 == most.key }) else { return nil }
            return Observation(.text(most.key), entry.0, "answers \(evidence.ctap(entry.0) ?? "?") to the command byte alone"
                               + (answers.count > 1 ? " (\(most.value) of \(answers.count) such entries)" : ""))
        },
        SwitchLearner("behaviour.longMemberKey", ["makeCredential.unknown-member", "getAssertion.unknown-member"]) { evidence in
            // An otherwise well-formed request with member 0x7F (written 18 7F).
            let ids = ["makeCredential.unknown-member", "getAssertion.unknown-member"]
            let answers = ids.compactMap { id in evidence.ctap(id).map { (id, $0) } }
            guard let (id, status) = answers.first else { return nil }
            let refused = answers.allSatisfy { $0.1 == "CTAP2_ERR_CBOR_UNEXPECTED_TYPE" }
            return Observation(.text(refused ? "cborUnexpectedType" : "skip"), id,
                               refused ? "answers CTAP2_ERR_CBOR_UNEXPECTED_TYPE to a member with key 0x7F" : "answers \(status), past the member with key 0x7F")
        },
        byStatus("behaviour.pinUvAuthProtocolCheck", entry: "clientPIN.protocol-text", [
            ("CTAP1_ERR_INVALID_PARAMETER", "onSight", "answers CTAP1_ERR_INVALID_PARAMETER to pinUvAuthProtocol as text"),
            ("CTAP2_ERR_CBOR_UNEXPECTED_TYPE", "whenUsed", "answers CTAP2_ERR_CBOR_UNEXPECTED_TYPE"),
        ]),
        SwitchLearner("behaviour.credentialManagementWithoutPIN", credentialManagementEntries) { evidence in
            // Malformed credentialManagement requests on a card without a PIN.
            guard !evidence.hadPIN, evidence.profile.credentialManagement else { return nil }
            let answers = credentialManagementEntries.compactMap { id in evidence.ctap(id).map { (id, $0) } }
            guard let (id, status) = answers.first else { return nil }
            let first = answers.allSatisfy { $0.1 == "CTAP2_ERR_PUAT_REQUIRED" }
            return Observation(.text(first ? "puatRequired" : "members"), id,
                               first ? "answers CTAP2_ERR_PUAT_REQUIRED to every malformed request (\(answers.count) entries)" : "answers \(status)")
        },
    ]

    /// Entries positional and whole-body judging answer apart, with whether a status is
    /// whole-body judging's.
    static let judgingEntries: [(id: String, wholeBody: @Sendable (String) -> Bool)] = [
        ("makeCredential.cbor-cut-short", { $0 == "CTAP2_ERR_INVALID_CBOR" }),
        ("getAssertion.cbor-cut-short", { $0 == "CTAP2_ERR_INVALID_CBOR" }),
        ("getAssertion.keys-out-of-order", { $0 != "CTAP2_ERR_MISSING_PARAMETER" }),
    ]

    /// The command byte alone, for commands every CTAP2 card has.
    static let commandAloneEntries = ["makeCredential.no-parameters", "getAssertion.no-parameters", "clientPIN.no-parameters"]

    /// Malformed credentialManagement requests.
    static let credentialManagementEntries = ["credentialManagement.not-a-map", "credentialManagement.cbor-cut-short",
                                              "credentialManagement.unknown-subcommand"]

    // MARK: Departures

    static let departures: [SwitchLearner] = [
        departure("departures.longerAIDSelects", "select.longer-aid") { evidence in
            evidence.statusWord("select.longer-aid") == "9000" ? "selects the applet" : nil
        },
        departure("departures.exceedsLe", "iso.getinfo-le-32") { evidence in
            guard let length = evidence.dataLength("iso.getinfo-le-32"), length > 0x20 else { return nil }
            return "answers \(length) bytes to Le 20 (32)"
        },
        departure("departures.oldTokenStaysValid", "write.token.replaced") { evidence in
            // CTAP 2.0's pinToken is not replaced by a newer one: only a 2.1 card departs here.
            evidence.profile.supportsCTAP21 && evidence.ctap("write.token.replaced") == "CTAP2_OK" ? "takes the older token" : nil
        },
        departure("departures.grantsUnsupportedPermissions", "write.token.be-permission") { evidence in
            evidence.profile.pinUvAuthToken && evidence.ctap("write.token.be-permission") == "CTAP2_OK" ? "grants the be permission" : nil
        },
        SwitchLearner("departures.pinStateBeforeMembers", ["clientPIN.getPinToken.no-pinHashEnc", "clientPIN.changePIN.no-pinHashEnc",
                                                           "clientPIN.getPinToken.no-keyAgreement", "write.getPinToken.without-pin"]) { evidence in
            guard let (id, status) = evidence.withoutPIN("clientPIN.getPinToken.no-pinHashEnc", "write.getPinToken.without-pin") else { return nil }
            return Observation(.bool(status == "CTAP2_ERR_PIN_NOT_SET"), id, "answers \(status)")
        },
        departure("departures.pinRetriesNeedProtocol", "clientPIN.getPINRetries.no-protocol") { evidence in
            evidence.ctap("clientPIN.getPINRetries.no-protocol") == "CTAP2_ERR_MISSING_PARAMETER" ? "answers CTAP2_ERR_MISSING_PARAMETER" : nil
        },
        departure("departures.getAssertionIgnoresUv", "getAssertion.uv-true") { evidence in
            guard evidence.profile.supportsCTAP21, let status = evidence.ctap("getAssertion.uv-true"),
                  status == evidence.ctap("getAssertion.no-credential"), status != "CTAP2_ERR_INVALID_OPTION" else { return nil }
            return "answers \(status), as without uv"
        },
        departure("departures.rkOptionInvalid", "getAssertion.rk-option") { evidence in
            evidence.profile.supportsCTAP21 && evidence.ctap("getAssertion.rk-option") == "CTAP2_ERR_INVALID_OPTION"
                ? "answers CTAP2_ERR_INVALID_OPTION" : nil
        },
        departure("departures.setPINAgainPUATRequired", "write.setPIN.again") { evidence in
            evidence.fingerprint.probes["write.setPIN"]?.answer["ctap"] == "CTAP2_OK"
                && evidence.ctap("write.setPIN.again") == "CTAP2_ERR_PUAT_REQUIRED" ? "answers CTAP2_ERR_PUAT_REQUIRED" : nil
        },
        departure("departures.deleteMissingCredentialOK", "write.credentialManagement.delete-again") { evidence in
            evidence.ctap("write.credentialManagement.delete") == "CTAP2_OK"
                && evidence.ctap("write.credentialManagement.delete-again") == "CTAP2_OK" ? "answers CTAP2_OK to deleting it again" : nil
        },
        departure("departures.pinUvAuthParamWithoutProtocolInvalid",
                  "makeCredential.pinUvAuthParam-without-protocol", also: ["getAssertion.pinUvAuthParam-without-protocol"]) { evidence in
            evidence.profile.supportsCTAP21 && evidence.ctap("makeCredential.pinUvAuthParam-without-protocol") == "CTAP2_ERR_PIN_AUTH_INVALID"
                ? "answers CTAP2_ERR_PIN_AUTH_INVALID" : nil
        },
        SwitchLearner("departures.uvmTrailingByte", ["write.makeCredential.discoverable"]) { evidence in
            // Only an answer with the uvm output shows it.
            let id = "write.makeCredential.discoverable"
            guard let authData = evidence.answer(id)?["body"]?["authData"], authData["extensions"]?["uvm"] != nil else { return nil }
            guard let trailing = authData["trailing"]?.stringValue else { return Observation(.bool(false), id, "answers as the text says") }
            return Observation(.bool(true), id, "answers authenticator data with \(trailing) after the extensions")
        },
        SwitchLearner("departures.chainEndsLargeBlobWrite", ["write.largeBlobs.set-in-two"]) { evidence in
            // Two fragments, each sent as a command chain: the second loses the write, or continues it.
            let id = "write.largeBlobs.set-in-two"
            guard evidence.ctap(id, step: 0) == "CTAP2_OK", evidence.answer(id, step: 1)?["pieces"]?.arrayValue?.isEmpty == false
            else { return nil }
            switch evidence.ctap(id, step: 1) {
            case "CTAP1_ERR_INVALID_SEQ": return Observation(.bool(true), id, "answers CTAP1_ERR_INVALID_SEQ to the second fragment, sent chained")
            case "CTAP2_OK": return Observation(.bool(false), id, "answers as the text says")
            default: return nil
            }
        },
    ]

    // MARK: - Learner makers

    /// A status-word switch: the word most of `ids` answer (the first of them on a tie), so that
    /// one entry answered otherwise (a fault on one APDU) is not taken for the card's rule.
    static func word(_ field: String, _ ids: [String], success: Bool = false) -> SwitchLearner {
        SwitchLearner(field, ids) { evidence in
            let answered = ids.compactMap { id in evidence.errorWord(id, success: success) }
            let counts = Dictionary(answered.map { ($0.value.description, 1) }, uniquingKeysWith: +)
            guard let most = counts.values.max() else { return nil }
            guard let chosen = answered.first(where: { counts[$0.value.description] == most }) else { return nil }
            let others = answered.filter { $0.value != chosen.value }.map(\.entry)
            return others.isEmpty ? chosen
                : Observation(chosen.value, chosen.entry, chosen.shown + " (as \(most) of its \(answered.count) entries do; \(others.joined(separator: ", ")) otherwise)")
        }
    }

    /// A chain broken by another command: `6883` (refuse) or anything else (process), at step 2.
    static func chainInterruption(_ field: String, _ id: String) -> SwitchLearner {
        SwitchLearner(field, [id]) { evidence in
            guard let word = evidence.statusWord(id, step: 1) else { return nil }
            return Observation(.text(word == "6883" ? "refuse" : "process"), id, "answers \(word) to the command inside the chain")
        }
    }

    /// A departure: on when `shows` says how the card's answer breaks the rule (else off).
    static func departure(_ field: String, _ id: String, also: [String] = [],
                          shows: @escaping @Sendable (LearningEvidence) -> String?) -> SwitchLearner {
        SwitchLearner(field, [id] + also) { evidence in
            guard evidence.answer(id) != nil else { return nil }
            guard let shown = shows(evidence) else { return Observation(.bool(false), id, "answers as the text says") }
            return Observation(.bool(true), id, shown)
        }
    }

    /// The write entries whose answers carry a signature counter, in the order they run.
    static let counterEntries = [
        "write.makeCredential", "write.makeCredential.discoverable", "write.getAssertion", "write.getAssertion.without-token",
        "write.getAssertion.up-false", "write.getAssertion.uvm", "write.getAssertion.discoverable",
        "write.getAssertion.discoverable-without-token", "write.getAssertion.hmac-secret", "write.u2f.authenticate",
    ]
}

extension LearningEvidence {
    /// The first part of entry `id`'s answer when it did not fit one short response: its
    /// length and the `61xx` after it.
    func firstPart(_ id: String) -> (Int, String)? {
        guard let word = statusWord(id), word.hasPrefix("61"), let length = dataLength(id), (1...256).contains(length) else { return nil }
        return (length, word)
    }

    /// The answer of the read-only entry `readOnly` when the card had no PIN, else of the
    /// writing part's `written` (asked after the reset): the entry and its CTAP status.
    func withoutPIN(_ readOnly: String, _ written: String) -> (String, String)? {
        if !hadPIN, let status = ctap(readOnly) { return (readOnly, status) }
        if let status = ctap(written) { return (written, status) }
        return nil
    }

    /// Member `name` of a getInfo answered again in the writing part (kept as how it differs
    /// from the first getInfo: a member it does not name is as at the start).
    func infoMember(_ id: String, _ name: String) -> JSONValue? {
        guard let body = answer(id)?["body"] else { return nil }
        if let changed = body[name] { return changed == "absent" ? nil : changed }
        return fingerprint.probes[Fingerprint.getInfoEntry]?.answer["body"]?[name]
    }

    /// How the signature counter moved over the writing part (every answer's counter is kept as
    /// its step from the one before): `0` each time (zero), one step (global, that step), or
    /// positive steps of several sizes (randomStep, the largest); nil when it stood still between
    /// two signatures or went back (a counter per credential), or no answer carried one.
    func counter() -> (kind: SwitchValue, step: Int, entry: String, shown: String)? {
        var values: [String] = []
        var first: String?
        func collect(_ value: JSONValue, _ id: String) {
            switch value {
            case .object(let members):
                for (key, member) in members.sorted(by: { $0.key < $1.key }) {
                    if key == "signCount" || key == "counter", let text = member.stringValue {
                        values.append(text)
                        if first == nil { first = id }
                    } else {
                        collect(member, id)
                    }
                }
            case .array(let items): items.forEach { collect($0, id) }
            default: break
            }
        }
        for id in Self.writeOrder { if let answer = answer(id) { collect(answer, id) } }
        guard let entry = first, !values.isEmpty else { return nil }
        let shown = "has counter steps " + values.joined(separator: " ")
        if values.allSatisfy({ $0 == "0" || $0 == "+0" }) { return (.text("zero"), 1, entry, shown) }
        // The first counter a probe sees is kept as 0 or nonzero, not as a step.
        let steps = values.filter { $0.hasPrefix("+") || $0.hasPrefix("-") }.compactMap { Int($0) }
        guard !steps.isEmpty, steps.allSatisfy({ $0 > 0 }), let largest = steps.max() else { return nil }
        return (.text(Set(steps).count == 1 ? "global" : "randomStep"), largest, entry, shown)
    }
}
