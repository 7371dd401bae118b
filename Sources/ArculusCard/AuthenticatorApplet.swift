import CTAP2
import ISO7816

/// Puts the CTAP2 authenticator behind the ISO 7816 card front: the one place where the two
/// modules meet, translating U2F results into status words.
final class AuthenticatorApplet: FIDOApplet {
    let authenticator: Authenticator

    init(authenticator: Authenticator) {
        self.authenticator = authenticator
    }

    var selectResponse: [UInt8] { Array(authenticator.profile.selectResponse.utf8) }
    var supportsCTAP2: Bool { authenticator.profile.supportsCTAP2 }
    var supportsU2F: Bool { authenticator.profile.supportsU2F }
    var maxMessageSize: Int { authenticator.profile.maxMsgSize }

    func processCTAP2(_ request: [UInt8]) -> [UInt8] {
        authenticator.process(request)
    }

    func u2fRegister(challenge: [UInt8], application: [UInt8]) -> U2FOutcome {
        Self.outcome(authenticator.u2fRegister(challenge: challenge, application: application))
    }

    func u2fAuthenticate(control: UInt8, challenge: [UInt8], application: [UInt8], keyHandle: [UInt8]) -> U2FOutcome {
        Self.outcome(authenticator.u2fAuthenticate(control: control, challenge: challenge,
                                                   application: application, keyHandle: keyHandle))
    }

    func powerOff() {
        authenticator.powerOff()
    }

    private static func outcome(_ result: U2FResult) -> U2FOutcome {
        switch result {
        case .success(let data): .success(data)
        case .conditionsNotSatisfied: .failure(.conditionsNotSatisfied)
        case .wrongData: .failure(.wrongData)
        }
    }
}
