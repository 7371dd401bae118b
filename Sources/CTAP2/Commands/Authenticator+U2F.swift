import CardCrypto
import FIDOWire

/// The outcome of a CTAP1/U2F operation: response data, or the U2F status word to answer.
public enum U2FResult: Equatable, Sendable {
    case success([UInt8])
    /// SW_CONDITIONS_NOT_SATISFIED (6985): test of user presence required / check-only answer.
    case conditionsNotSatisfied
    /// SW_WRONG_DATA (6A80): the key handle is not this card's for this application.
    case wrongData
}

extension Authenticator {
    /// U2F REGISTER (FIDO U2F Raw Message Formats §4). The key handle is a credential ID in the
    /// same self-contained format as CTAP2 non-discoverable credentials, so a U2F registration
    /// works with CTAP2 getAssertion and vice versa, as on a real dual-mode card. The attestation
    /// certificate and the signature counter are the CTAP2 ones.
    public func u2fRegister(challenge: [UInt8], application: [UInt8]) -> U2FResult {
        _ = faultInjector?.commandWillStart(.u2fRegister, request: [])
        defer { faultInjector?.commandDidEnd() }
        guard profile.supportsU2F, challenge.count == 32, application.count == 32 else { return .wrongData }
        guard isUserPresent() else { return .conditionsNotSatisfied }
        let key = newPrivateKey()
        let contents = CredentialWrapper.Contents(privateKey: key.rawScalar, discoverable: false,
                                                  hmacSecret: false, credProtect: 1)
        let keyHandle = wrapper.wrap(contents, rpIdHash: application, iv: randomBytes(16))
        let publicKey = key.publicKey.x962
        let signed = [0x00] + application + challenge + keyHandle + publicKey
        guard let signature = try? sign(signed, with: attestation.privateKey) else { return .wrongData }
        var response: [UInt8] = [0x05]
        response += publicKey
        response.append(UInt8(keyHandle.count))
        response += keyHandle
        response += attestation.certificate.der
        response += signature
        return .success(response)
    }

    /// U2F AUTHENTICATE with control byte 0x03 (enforce user presence and sign), 0x07 (check
    /// only) or 0x08 (don't enforce user presence and sign).
    public func u2fAuthenticate(control: UInt8, challenge: [UInt8], application: [UInt8], keyHandle: [UInt8]) -> U2FResult {
        _ = faultInjector?.commandWillStart(.u2fAuthenticate, request: [])
        defer { faultInjector?.commandDidEnd() }
        guard profile.supportsU2F, challenge.count == 32, application.count == 32 else { return .wrongData }
        guard let contents = credential(id: keyHandle, rpIdHash: application) else { return .wrongData }
        switch control {
        case 0x07:
            return .conditionsNotSatisfied
        case 0x03:
            guard isUserPresent() else { return .conditionsNotSatisfied }
        case 0x08:
            break
        default:
            return .wrongData
        }
        // A credProtect level-3 credential needs user verification, which U2F cannot give.
        if contents.credProtect == 3 { return .wrongData }
        guard (try? persist(.setSignatureCounter(state.signatureCounter &+ 1))) != nil,
              let key = try? signingKey(id: keyHandle, scalar: contents.privateKey) else {
            return .wrongData
        }
        let userPresent: UInt8 = injectedFlags(control == 0x03 ? .userPresent : []).contains(.userPresent) ? 0x01 : 0x00
        let counter = state.signatureCounter
        let counterBytes: [UInt8] = [UInt8(counter >> 24), UInt8(counter >> 16 & 0xFF),
                                     UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF)]
        let signed = application + [userPresent] + counterBytes + challenge
        guard let signature = try? sign(signed, with: key) else { return .wrongData }
        return .success([userPresent] + counterBytes + signature)
    }
}
