import CBOR
import CardCrypto
import ISO7816
import FIDOWire

/// What a structural replay carries from one message to the next, and the checks that need
/// it: credential IDs the card issued during the replay (substituted for the recorded ones
/// in later requests), their public keys (to verify assertions), the last signature counter
/// (which must keep increasing) and the last getAssertion's clientDataHash (which
/// getNextAssertion signs over).
struct StructuralVerifier {
    /// Recorded credential ID (or U2F key handle) → the one the card gave in the replay.
    private(set) var substitutions: [[UInt8]: [UInt8]] = [:]
    /// Public keys of credentials made during the replay, by their (replayed) ID.
    private var keys: [[UInt8]: P256PublicKey] = [:]
    private var lastCounter: UInt32?
    private var lastClientDataHash: [UInt8]?
    /// Checks that could not be made, for the result's notes.
    private(set) var notes: [String] = []

    /// `request` with every recorded credential ID replaced by the replay's.
    func substituted(_ request: [UInt8]) -> [UInt8] {
        var bytes = request
        for (recorded, replayed) in substitutions where recorded != replayed && recorded.count >= 16 {
            bytes = Self.replacing(recorded, with: replayed, in: bytes)
        }
        return bytes
    }

    /// The ID expected in a response where the transcript has `recorded`.
    func expectedID(_ recorded: [UInt8]) -> [UInt8] {
        substitutions[recorded] ?? recorded
    }

    // MARK: - CTAP2

    /// Checks a CTAP2 response the card gave (`actual`) against the recorded one, for
    /// `request` as sent. Returns the first difference.
    mutating func check(ctap request: [UInt8], recorded: CBORValue?, actual: CBORValue?, line: Int,
                        card: any TranscriptCard) -> FieldDifference? {
        let command = request.first.flatMap(CTAPCommand.init(rawValue:))
        let names = ComparisonRules.fieldNames(command: command, isRequest: false)
        switch (recorded, actual) {
        case (nil, nil):
            return nil
        case (let expected?, nil):
            return FieldDifference(path: FieldPath("response"), expected: CBORRendering.render(expected), actual: "no CBOR", reason: "missing")
        case (nil, let got?):
            return FieldDifference(path: FieldPath("response"), expected: "no CBOR", actual: CBORRendering.render(got), reason: "unexpected CBOR")
        case (let expected?, let got?):
            var comparison = CBORComparison(rule: ComparisonRules.structuralResponse(command: command), credentialID: expectedID)
            comparison.fieldNames = names
            if let difference = comparison.firstDifference(expected, got, at: FieldPath("response")) { return difference }
            let requestMap = request.count > 1 ? (try? CBORDecoder.decode(request.dropFirst()))?.mapValue : nil
            switch command {
            case .makeCredential: return checkAttestation(request: requestMap, recorded: expected, actual: got, names: names)
            case .getAssertion, .getNextAssertion:
                return checkAssertion(command: command, request: requestMap, actual: got, line: line, card: card, names: names)
            default: return nil
            }
        }
    }

    private mutating func checkAttestation(request: CBORMap?, recorded: CBORValue, actual: CBORValue,
                                           names: @escaping (Int) -> String?) -> FieldDifference? {
        typealias Key = MakeCredentialResponseKey
        guard let response = actual.mapValue, let authBytes = response[Key.authData]?.bytesValue,
              let authData = AuthenticatorDataView(authBytes) else { return nil }
        if let difference = checkCounter(authData.signCount, at: Self.path(Key.authData, names).appending(.key(.text("signCount"), name: nil))) {
            return difference
        }
        if let replayed = authData.credentialId {
            if let recordedBytes = recorded.mapValue?[Key.authData]?.bytesValue,
               let recordedID = AuthenticatorDataView(recordedBytes)?.credentialId {
                substitutions[recordedID] = replayed
            }
            if let key = authData.publicKey { keys[replayed] = key }
        }
        guard let fmt = response[Key.fmt]?.textValue, fmt != "none" else { return nil }
        let statement = response[Key.attStmt]?.mapValue
        let sigPath = Self.path(Key.attStmt, names).appending(.key(.text("sig"), name: nil))
        guard let signature = statement?[text: "sig"]?.bytesValue,
              let clientDataHash = request?[MakeCredentialKey.clientDataHash]?.bytesValue else {
            return FieldDifference(path: sigPath, expected: "a signature", actual: "nothing", reason: "missing")
        }
        let key: P256PublicKey?
        let keyName: String
        if let certificate = statement?[text: "x5c"]?.arrayValue?.first?.bytesValue {
            key = try? X509Certificate(der: certificate).publicKey
            keyName = "x5c[0]"
        } else {
            key = authData.publicKey
            keyName = "the credential key (self attestation)"
        }
        guard let key, key.isValidSignature(signature, for: authBytes + clientDataHash) else {
            return FieldDifference(path: sigPath, expected: "a signature over authData‖clientDataHash by \(keyName)",
                                   actual: CBORRendering.render(.bytes(signature)), reason: "attestation signature does not verify")
        }
        return nil
    }

    private mutating func checkAssertion(command: CTAPCommand?, request: CBORMap?, actual: CBORValue, line: Int,
                                         card: any TranscriptCard, names: @escaping (Int) -> String?) -> FieldDifference? {
        typealias Key = GetAssertionResponseKey
        guard let response = actual.mapValue, let authBytes = response[Key.authData]?.bytesValue,
              let authData = AuthenticatorDataView(authBytes) else { return nil }
        if let difference = checkCounter(authData.signCount, at: Self.path(Key.authData, names).appending(.key(.text("signCount"), name: nil))) {
            return difference
        }
        if command == .getAssertion { lastClientDataHash = request?[GetAssertionKey.clientDataHash]?.bytesValue }
        let allowList = request?[GetAssertionKey.allowList]?.arrayValue ?? []
        let credentialID = response[Key.credential]?.mapValue?[text: "id"]?.bytesValue
            ?? (allowList.count == 1 ? allowList[0].mapValue?[text: "id"]?.bytesValue : nil)
        let sigPath = Self.path(Key.signature, names)
        guard let signature = response[Key.signature]?.bytesValue, let clientDataHash = lastClientDataHash else {
            return FieldDifference(path: sigPath, expected: "a signature", actual: "nothing", reason: "missing")
        }
        guard let credentialID, let key = keys[credentialID] ?? card.credentialPublicKey(id: credentialID) else {
            notes.append("line \(line): assertion signature not checked: the credential's public key is unknown "
                         + "(not made in this transcript, and the card does not reveal it)")
            return nil
        }
        guard key.isValidSignature(signature, for: authBytes + clientDataHash) else {
            return FieldDifference(path: sigPath, expected: "a signature over authData‖clientDataHash by the credential key",
                                   actual: CBORRendering.render(.bytes(signature)), reason: "assertion signature does not verify")
        }
        return nil
    }

    /// `response.<member>{key}`: the path of a top-level response member.
    private static func path<Member: RawRepresentable>(_ member: Member, _ names: (Int) -> String?) -> FieldPath where Member.RawValue == Int {
        FieldPath("response", [.key(.int(member.rawValue), name: names(member.rawValue))])
    }

    private mutating func checkCounter(_ counter: UInt32, at path: FieldPath) -> FieldDifference? {
        defer { lastCounter = counter }
        guard let previous = lastCounter, counter <= previous else { return nil }
        return FieldDifference(path: path, expected: "more than \(previous)", actual: "\(counter)",
                               reason: "signature counter did not increase")
    }

    // MARK: - U2F

    /// Checks a U2F response (`9000` on both sides) for the request data as sent.
    mutating func check(u2f instruction: FIDOInstruction, requestData: [UInt8], recorded: [UInt8], actual: [UInt8],
                        card: any TranscriptCard) -> FieldDifference? {
        switch instruction {
        case .u2fRegister:
            let parsed = parse(requestData, recorded, actual, as: "registration", U2FMessageView.RegisterRequest.init,
                               U2FMessageView.RegisterResponse.init)
            guard let (request, expected, got) = parsed.messages else { return parsed.difference }
            return checkRegistration(request, expected: expected, got: got)
        case .u2fAuthenticate:
            let parsed = parse(requestData, recorded, actual, as: "authentication", U2FMessageView.AuthenticateRequest.init,
                               U2FMessageView.AuthenticateResponse.init)
            guard let (request, expected, got) = parsed.messages else { return parsed.difference }
            return checkAuthentication(request, expected: expected, got: got, card: card)
        default:
            return recorded == actual ? nil : bytesDifference("response", recorded, actual)
        }
    }

    /// A U2F request and both responses parsed as `kind` messages; when they are not, the
    /// outcome instead: a recorded exchange that does not parse is compared byte for byte, an
    /// actual response that does not parse is the difference.
    private func parse<Request, Response>(
        _ requestData: [UInt8], _ recorded: [UInt8], _ actual: [UInt8], as kind: String,
        _ parseRequest: ([UInt8]) -> Request?, _ parseResponse: ([UInt8]) -> Response?
    ) -> (messages: (Request, Response, Response)?, difference: FieldDifference?) {
        guard let request = parseRequest(requestData), let expected = parseResponse(recorded) else {
            return (nil, recorded == actual ? nil : bytesDifference("response", recorded, actual))
        }
        guard let got = parseResponse(actual) else {
            return (nil, bytesDifference("response", recorded, actual, reason: "not a U2F \(kind) response"))
        }
        return ((request, expected, got), nil)
    }

    private mutating func checkRegistration(_ request: U2FMessageView.RegisterRequest, expected: U2FMessageView.RegisterResponse,
                                            got: U2FMessageView.RegisterResponse) -> FieldDifference? {
        if expected.reserved != got.reserved { return bytesDifference("response.reserved", [expected.reserved], [got.reserved]) }
        if expected.keyHandle.count != got.keyHandle.count {
            return FieldDifference(path: FieldPath("response.keyHandleLength"), expected: "\(expected.keyHandle.count)",
                                   actual: "\(got.keyHandle.count)", reason: "different value")
        }
        if expected.certificate != got.certificate {
            return bytesDifference("response.attestationCertificate", expected.certificate, got.certificate)
        }
        guard let certificateKey = try? X509Certificate(der: got.certificate).publicKey,
              certificateKey.isValidSignature(got.signature, for: got.signedData(request)) else {
            return FieldDifference(path: FieldPath("response.signature"), expected: "a signature by the attestation certificate",
                                   actual: CBORRendering.render(.bytes(got.signature)), reason: "registration signature does not verify")
        }
        substitutions[expected.keyHandle] = got.keyHandle
        keys[got.keyHandle] = try? P256PublicKey(x962: got.publicKey)
        return nil
    }

    private mutating func checkAuthentication(_ request: U2FMessageView.AuthenticateRequest,
                                              expected: U2FMessageView.AuthenticateResponse,
                                              got: U2FMessageView.AuthenticateResponse, card: any TranscriptCard) -> FieldDifference? {
        if expected.userPresence != got.userPresence {
            return bytesDifference("response.userPresence", [expected.userPresence], [got.userPresence])
        }
        if let difference = checkCounter(got.counter, at: FieldPath("response.counter")) { return difference }
        guard let key = keys[request.keyHandle] ?? card.credentialPublicKey(id: request.keyHandle) else {
            notes.append("U2F authentication signature not checked: the key handle's public key is unknown")
            return nil
        }
        guard key.isValidSignature(got.signature, for: got.signedData(request)) else {
            return FieldDifference(path: FieldPath("response.signature"), expected: "a signature by the registered key",
                                   actual: CBORRendering.render(.bytes(got.signature)), reason: "authentication signature does not verify")
        }
        return nil
    }

    private func bytesDifference(_ path: String, _ expected: [UInt8], _ actual: [UInt8], reason: String = "different value") -> FieldDifference {
        FieldDifference(path: FieldPath(path), expected: CBORRendering.render(.bytes(expected)),
                        actual: CBORRendering.render(.bytes(actual)), reason: reason)
    }

    /// `bytes` with every occurrence of `pattern` replaced by `replacement`.
    static func replacing(_ pattern: [UInt8], with replacement: [UInt8], in bytes: [UInt8]) -> [UInt8] {
        guard !pattern.isEmpty, bytes.count >= pattern.count else { return bytes }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if index + pattern.count <= bytes.count, bytes[index..<index + pattern.count].elementsEqual(pattern) {
                result += replacement
                index += pattern.count
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return result
    }
}
