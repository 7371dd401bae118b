import CBOR
import FIDOWire

extension AsyncCTAPClient {
    /// getPINRetries (CTAP 2.1 §6.5.5.2), as ``CTAPClient/pinRetries()``.
    public func pinRetries() async throws(CTAPClientError) -> (retries: Int, powerCycleRequired: Bool?) {
        try CTAPClient.pinRetries(from: try await clientPIN(.getPINRetries, CTAPClient.pinRetriesMembers(info)))
    }

    /// getKeyAgreement (§6.5.5.4).
    public func keyAgreement(_ pinProtocol: any PlatformPINUVAuthProtocol) async throws(CTAPClientError) -> COSEPublicKey {
        try CTAPClient.keyAgreement(from: try await clientPIN(.getKeyAgreement, [.pinUvAuthProtocol: .int(pinProtocol.version)]))
    }

    /// setPIN (§6.5.5.5), as ``CTAPClient/setPIN(_:)``, then getInfo again.
    public func setPIN(_ pin: String) async throws(CTAPClientError) {
        let paddedPIN = try CTAPClient.padded(pin, role: "new PIN", info: info)
        let pinProtocol = try self.pinProtocol
        let agreed = try pinProtocol.encapsulate(peer: try await keyAgreement(pinProtocol))
        _ = try await clientPIN(.setPIN, try CTAPClient.setPINMembers(paddedPIN, pinProtocol, agreed))
        try await refreshInfo()
    }

    /// changePIN (§6.5.5.6), as ``CTAPClient/changePIN(from:to:)``.
    public func changePIN(from currentPIN: String, to newPIN: String) async throws(CTAPClientError) {
        let paddedPIN = try CTAPClient.padded(newPIN, role: "new PIN", info: info)
        let pinProtocol = try self.pinProtocol
        let agreed = try pinProtocol.encapsulate(peer: try await keyAgreement(pinProtocol))
        _ = try await clientPIN(.changePIN, try CTAPClient.changePINMembers(currentPIN, paddedPIN, pinProtocol, agreed))
    }

    /// A pinUvAuthToken from the PIN, as ``CTAPClient/pinToken(pin:permissions:rpID:)``.
    public func pinToken(pin: String, permissions: TokenPermissions, rpID: String? = nil) async throws(CTAPClientError) -> PINUVAuthToken {
        let request = try PINTokenRequest(pin: pin, permissions: permissions, rpID: rpID, info: info, forcedProtocol: nil)
        let agreed = try request.pinProtocol.encapsulate(peer: try await keyAgreement(request.pinProtocol))
        return try request.token(from: try await clientPIN(request.subcommand, try request.members(agreed)), agreed)
    }

    private func clientPIN(_ subcommand: ClientPINSubcommand,
                           _ members: KeyValuePairs<ClientPINKey, CBORValue?>) async throws(CTAPClientError) -> CBORMap {
        try await send(.clientPIN, CTAPClient.clientPINParameters(subcommand, members), subcommand: "\(subcommand)")
    }
}
