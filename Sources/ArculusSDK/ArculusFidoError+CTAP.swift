import CTAPClient
import FIDOWire

extension ArculusFidoError {
    /// The SDK error for a client error during `operation` (e.g. "registerCardOnly").
    ///
    /// | client error | code |
    /// | --- | --- |
    /// | the transport lost the card | 600 Tag Lost |
    /// | any other transport failure, an unexpected status word, a garbled answer, endless 9100 | 607 Transmit Failed |
    /// | `CTAP2_ERR_NO_CREDENTIALS` | 602 No Credentials |
    /// | `CTAP2_ERR_KEY_STORE_FULL` | 606 Keystore Full |
    /// | `CTAP2_ERR_PIN_INVALID`, `_PIN_BLOCKED`, `_PIN_AUTH_BLOCKED`, `_PIN_NOT_SET`, `_UNAUTHORIZED_PERMISSION` while getting a token | 608 Get PIN Token Failed |
    /// | `CTAP2_ERR_PIN_AUTH_INVALID`, or any refusal of getKeyAgreement | 609 PIN Verification Failed |
    /// | authenticatorReset refused | 605 Device Reset Failed |
    /// | everything else | 601 Unknown |
    ///
    /// - Parameter pinRetries: the retry counter read after a PIN failure, for the message.
    public init(_ error: CTAPClientError, during operation: String, pinRetries: Int? = nil) {
        switch error {
        case .transport(.cardRemoved(let reason)):
            self.init(.tagLost, "the card left the reader during \(operation) (\(reason)); hold it on the reader and try again")
        case .transport(let failure):
            self.init(.transmitFailed, "\(operation) could not reach the card: \(failure)")
        case .unexpectedStatusWord, .malformedResponse, .stillProcessing:
            self.init(.transmitFailed, "\(operation): \(error)")
        case .appletNotFound, .ctap2NotSupported:
            self.init(.unknown, "\(operation): \(error); this is not a FIDO2 card")
        case .unsupported(let reason), .invalidArgument(let reason):
            self.init(.unknown, "\(operation): \(reason)")
        case .ctap(let refusal):
            self.init(refusal, during: operation, pinRetries: pinRetries)
        }
    }

    private init(_ refusal: CTAPError, during operation: String, pinRetries: Int?) {
        let status = refusal.status
        let left = pinRetries.map { "\($0) attempt\($0 == 1 ? "" : "s") left before the card blocks its PIN" }
        if refusal.command == .reset {
            self.init(.deviceResetFailed, Self.resetMessage(status), ctapStatus: status)
            return
        }
        if refusal.subcommand == "getKeyAgreement" {
            self.init(.pinVerificationFailed,
                      "\(operation): the card did not give its key agreement key (\(status.name)), so the PIN cannot be sent",
                      ctapStatus: status)
            return
        }
        switch status {
        case .noCredentials:
            self.init(.noCredentials, "\(operation): the card holds no matching credential (\(status.name)); it was deleted, or registered on another card or for another relying party",
                      ctapStatus: status)
        case .keyStoreFull:
            self.init(.keystoreFull, "\(operation): the card has no room for another credential (\(status.name)); delete one with deleteCredentialByCredentialId",
                      ctapStatus: status)
        case .pinInvalid:
            self.init(.getPINTokenFailed, "\(operation): the PIN is wrong (\(status.name))\(left.map { "; " + $0 } ?? "")",
                      ctapStatus: status, pinRetries: pinRetries)
        case .pinAuthBlocked:
            self.init(.getPINTokenFailed, "\(operation): three wrong PINs in a row (\(status.name)); take the card off the reader and tap it again before the next try\(left.map { "; " + $0 } ?? "")",
                      ctapStatus: status, pinRetries: pinRetries)
        case .pinBlocked:
            self.init(.getPINTokenFailed, "\(operation): the PIN is blocked (\(status.name)), no attempts left; only resetDevice, which erases every credential on the card, makes it usable again",
                      ctapStatus: status, pinRetries: 0)
        case .pinNotSet:
            self.init(.getPINTokenFailed, "\(operation): the card has no PIN yet (\(status.name)); set one with setPin first",
                      ctapStatus: status)
        case .unauthorizedPermission:
            self.init(.getPINTokenFailed, "\(operation): the card does not grant the PIN token permission this needs (\(status.name))",
                      ctapStatus: status)
        case .pinAuthInvalid:
            self.init(.pinVerificationFailed, "\(operation): the card rejected the PIN authentication (\(status.name)); the PIN token expired or does not cover this",
                      ctapStatus: status)
        case .pinPolicyViolation:
            self.init(.unknown, "\(operation): the card's PIN policy refuses the new PIN (\(status.name)); choose a longer one",
                      ctapStatus: status)
        case .credentialExcluded:
            self.init(.unknown, "\(operation): this card is already registered for this account (\(status.name))",
                      ctapStatus: status)
        default:
            self.init(.unknown, "\(operation): the card refused \(refusal.command.name)\(refusal.subcommand.map { " " + $0 } ?? "") with \(status)",
                      ctapStatus: status)
        }
    }

    private static func resetMessage(_ status: CTAPStatus) -> String {
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
