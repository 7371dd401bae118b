import CBOR
import FIDOWire

/// The host-side CTAP 2.1 client of ``CTAPClient``, asynchronous: every APDU is awaited on an
/// ``AsyncCardTransport`` in the calling task, so a platform whose card answers asynchronously
/// (an NFC session, the SDK's connectors) needs no thread that waits for it. The messages, their
/// checks and the reading of the answers are ``CTAPClient``'s own (`CTAPClient+Messages.swift`
/// and the subcommand files); only the order of the exchanges is written here.
///
/// ```swift
/// let client = try await AsyncCTAPClient(transport: connection)
/// let token = try await client.pinToken(pin: "123456", permissions: .makeCredential, rpID: "example.com")
/// let made = try await client.makeCredential(request, token: token)
/// ```
///
/// Not thread-safe, and not `Sendable`: one task talks to one card, one command at a time.
public final class AsyncCTAPClient {
    /// The APDU channel to the card.
    public let channel: AsyncNFCCTAPChannel
    /// What the FIDO applet answered to SELECT (`FIDO_2_0`).
    public let selectAnswer: String
    /// The card's getInfo as read when the client opened (or last refreshed).
    public private(set) var info: AuthenticatorInfo

    /// Selects the FIDO applet on the card behind `transport` and reads getInfo, with the
    /// errors of ``CTAPClient/init(transport:)``.
    public init(transport: any AsyncCardTransport) async throws(CTAPClientError) {
        channel = AsyncNFCCTAPChannel(transport: transport)
        selectAnswer = try await channel.selectFIDOApplet()
        if selectAnswer == "U2F_V2" { throw .ctap2NotSupported(selectAnswer: selectAnswer) }
        info = try CTAPClient.info(from: try await channel.sendCTAPMessage([CTAPCommand.getInfo.rawValue]))
    }

    /// Reads getInfo again.
    @discardableResult
    public func refreshInfo() async throws(CTAPClientError) -> AuthenticatorInfo {
        info = try CTAPClient.info(from: try await channel.sendCTAPMessage([CTAPCommand.getInfo.rawValue]))
        return info
    }

    /// The PIN/UV auth protocol this client uses: 2 if the card lists it, else 1.
    public var pinProtocol: any PlatformPINUVAuthProtocol {
        get throws(CTAPClientError) { try CTAPClient.pinProtocol(info, forced: nil) }
    }

    /// One CTAP command; the decoded response map (empty for a bare `CTAP2_OK`), or the card's
    /// refusal naming `subcommand`.
    public func send(_ command: CTAPCommand, _ parameters: CBORMap? = nil,
                     subcommand: String? = nil) async throws(CTAPClientError) -> CBORMap {
        let response = try await channel.sendCTAPMessage(CTAPClient.message(command, parameters))
        return try CTAPClient.responseMap(response, command: command, subcommand: subcommand)
    }

    /// authenticatorReset (CTAP 2.1 §6.6), then getInfo again.
    public func reset() async throws(CTAPClientError) {
        _ = try await send(.reset)
        try await refreshInfo()
    }

    /// authenticatorMakeCredential (CTAP 2.1 §6.1), as ``CTAPClient/makeCredential(_:token:)``.
    public func makeCredential(_ request: MakeCredentialRequest, token: PINUVAuthToken?) async throws(CTAPClientError) -> AttestationResult {
        try AttestationResult(try await send(.makeCredential, request.parameters(token: token)))
    }

    /// authenticatorGetAssertion (CTAP 2.1 §6.2): the first assertion.
    public func getAssertion(_ request: GetAssertionRequest, token: PINUVAuthToken?) async throws(CTAPClientError) -> AssertionResult {
        try AssertionResult(try await send(.getAssertion, request.parameters(token: token)), allowList: request.allowList)
    }

    /// getAssertion followed by as many getNextAssertion (§6.3) as the card announces.
    public func getAssertions(_ request: GetAssertionRequest, token: PINUVAuthToken?) async throws(CTAPClientError) -> [AssertionResult] {
        var all = [try await getAssertion(request, token: token)]
        while all.count < all[0].numberOfCredentials ?? 1 {
            all.append(try AssertionResult(try await send(.getNextAssertion)))
        }
        return all
    }
}
