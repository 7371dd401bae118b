import CTAPClient
import FIDOWire

extension ArculusFidoError {
    /// The SDK error for a client error during `operation` (e.g. ``ArculusFidoOperation/registerCardOnly``).
    ///
    /// | client error | code |
    /// | --- | --- |
    /// | the transport lost the card | 600 Tag Lost (no card was there to connect to, or none was presented in time: ``init(connecting:during:)``) |
    /// | the task was cancelled | 701 Cancelled |
    /// | the card did not answer in time | 607 Transmit Failed |
    /// | any other transport failure, an unexpected status word, a garbled answer, endless 9100 | 607 Transmit Failed |
    /// | `CTAP2_ERR_NO_CREDENTIALS` | 602 No Credentials |
    /// | `CTAP2_ERR_KEY_STORE_FULL` | 606 Keystore Full |
    /// | `CTAP2_ERR_PIN_INVALID`, `_PIN_BLOCKED`, `_PIN_AUTH_BLOCKED`, `_PIN_NOT_SET`, `_UNAUTHORIZED_PERMISSION` while getting a token | 608 Get PIN Token Failed |
    /// | `CTAP2_ERR_PIN_AUTH_INVALID`, or any refusal of getKeyAgreement | 609 PIN Verification Failed |
    /// | authenticatorReset refused | 605 Device Reset Failed |
    /// | everything else | 601 Unknown |
    ///
    /// - Parameter pinRetries: the retry counter read after a PIN failure, for the message.
    public init(_ error: CTAPClientError, during operation: ArculusFidoOperation, pinRetries: Int? = nil) {
        switch error {
        case .transport(.cardRemoved(let reason)):
            self.init(.tagLost, during: operation, "the card left the reader (\(reason)); hold it on the reader and try again")
        case .transport(.cancelled):
            self.init(.cancelled, during: operation, "cancelled; the SDK stopped waiting for the card")
        case .transport(.timedOut(let reason)):
            self.init(.transmitFailed, during: operation, "\(reason); hold the card still on the reader and try again")
        case .transport(let failure):
            self.init(.transmitFailed, during: operation, "the card cannot be reached: \(failure)")
        case .unexpectedStatusWord, .malformedResponse, .stillProcessing:
            self.init(.transmitFailed, during: operation, "\(error)")
        case .appletNotFound, .ctap2NotSupported:
            self.init(.unknown, during: operation, "\(error); this is not a FIDO2 card")
        case .unsupported(let reason), .invalidArgument(let reason):
            self.init(.unknown, during: operation, "\(reason)")
        case .ctap(let refusal):
            self.init(refusal, during: operation, pinRetries: pinRetries)
        }
    }

    /// The SDK error for a tap that found no card to connect to: a card that was never there did
    /// not "leave", so 600 says there is none (``CardTransportError/cardRemoved(_:)`` at connect);
    /// any other failure is as ``init(_:during:pinRetries:)`` maps it.
    init(connecting error: CardTransportError, during operation: ArculusFidoOperation) {
        guard case .cardRemoved(let reason) = error else {
            self.init(.transport(error), during: operation)
            return
        }
        self.init(.tagLost, during: operation, "no card on the reader (\(reason)); put the card on the reader and try again")
    }

    private init(_ refusal: CTAPError, during operation: ArculusFidoOperation, pinRetries: Int?) {
        let status = refusal.status
        let left = pinRetries.map { "; \($0) attempt\($0 == 1 ? "" : "s") left before the card blocks its PIN" } ?? ""
        if refusal.command == .reset {
            self.init(.deviceResetFailed, during: operation, Self.resetMessage(status), ctapStatus: status)
            return
        }
        if refusal.subcommand == "getKeyAgreement" {
            self.init(.pinVerificationFailed, during: operation,
                      "the card did not give its key agreement key (\(status.name)), so the PIN cannot be sent",
                      ctapStatus: status)
            return
        }
        let message: ArculusFidoMessage
        var code = ArculusFidoErrorCode.unknown
        var retries: Int?
        switch status {
        case .noCredentials:
            code = .noCredentials
            message = "the card holds no matching credential (\(status.name)); it was deleted, or registered on another card or for another relying party"
        case .keyStoreFull:
            code = .keystoreFull
            message = "the card has no room for another credential (\(status.name)); delete one with \(call: .deleteCredentialByCredentialId)"
        case .pinInvalid:
            (code, retries) = (.getPINTokenFailed, pinRetries)
            message = "the PIN is wrong (\(status.name))\(left)"
        case .pinAuthBlocked:
            (code, retries) = (.getPINTokenFailed, pinRetries)
            message = "three wrong PINs in a row (\(status.name)); take the card off the reader and tap it again before the next try\(left)"
        case .pinBlocked:
            (code, retries) = (.getPINTokenFailed, 0)
            message = "the PIN is blocked (\(status.name)), no attempts left; only \(call: .resetDevice), which erases every credential on the card, makes it usable again"
        case .pinNotSet:
            code = .getPINTokenFailed
            message = "the card has no PIN yet (\(status.name)); set one with \(call: .setPin) first"
        case .unauthorizedPermission:
            code = .getPINTokenFailed
            message = "the card does not grant the PIN token permission this needs (\(status.name))"
        case .pinAuthInvalid:
            code = .pinVerificationFailed
            message = "the card rejected the PIN authentication (\(status.name)); the PIN token expired or does not cover this"
        case .pinPolicyViolation:
            message = "the card's PIN policy refuses the new PIN (\(status.name)); choose a longer one"
        case .credentialExcluded:
            message = "this card is already registered for this account (\(status.name))"
        default:
            message = "the card refused \(refusal.command.name)\(refusal.subcommand.map { " " + $0 } ?? "") with \(status)"
        }
        self.init(code, during: operation, message, ctapStatus: status, pinRetries: retries)
    }

    private static func resetMessage(_ status: CTAPStatus) -> ArculusFidoMessage {
        switch status {
        case .notAllowed:
            "the card allows a reset only within seconds of being tapped (\(status.name)); take it off the reader, tap it again and reset at once"
        case .operationDenied, .userActionTimeout:
            "the reset was not confirmed on the card (\(status.name)); tap the card again and retry"
        default:
            "the card refused the reset with \(status)"
        }
    }
}
