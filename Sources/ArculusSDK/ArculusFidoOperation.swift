/// The SDK's operations, as messages name them. An error carries the operation it came from, and
/// its advice ("set one with setPin(pin:) first") refers to operations and their parameters by
/// these values, not by their spelling: each layer spells them its own way (Swift API names here,
/// `sdk set-pin` and `--pin` on the command line; see ``ArculusFidoNaming``).
public enum ArculusFidoOperation: String, CaseIterable, Sendable {
    case setPin, changePin, registerCardOnly, authenticateCardOnly, deleteCredentialByCredentialId
    case listCredentials, resetDevice, cardInfo, registerUser, authenticateUser
    case registerViaBackend, authenticateViaBackend

    /// The Swift call, e.g. `changePin(oldPin:newPin:)`: how advice names it.
    public var signature: String {
        switch self {
        case .setPin: "setPin(pin:)"
        case .changePin: "changePin(oldPin:newPin:)"
        case .registerCardOnly: "registerCardOnly(pin:username:displayName:rpId:challenge:origin:userId:allowRPIDMismatch:)"
        case .authenticateCardOnly: "authenticateCardOnly(pin:username:rpId:challenge:origin:allowCredentials:allowRPIDMismatch:)"
        case .deleteCredentialByCredentialId: "deleteCredentialByCredentialId(pin:credentialId:)"
        case .listCredentials: "listCredentials(pin:rpId:)"
        case .resetDevice: "resetDevice(pin:)"
        case .cardInfo: "cardInfo()"
        case .registerUser: "registerUser(fidoServer:pin:username:displayName:relyingParty:resetDevice:registrationInfo:allowRPIDMismatch:strictRP:)"
        case .authenticateUser: "authenticateUser(fidoServer:pin:username:displayName:relyingParty:allowRPIDMismatch:strictRP:)"
        case .registerViaBackend: "registerViaBackend(backend:pin:username:displayName:rpId:allowRPIDMismatch:strictRP:)"
        case .authenticateViaBackend: "authenticateViaBackend(backend:pin:username:rpId:allowRPIDMismatch:strictRP:)"
        }
    }

    /// The parameter that gives the caller's RP ID: `relyingParty` of the client-direct flows,
    /// `rpId` of the others.
    var relyingPartyParameter: ArculusFidoParameter {
        self == .registerUser || self == .authenticateUser ? .relyingParty : .rpId
    }
}

/// A parameter of an SDK operation, as messages name it; its raw value is the Swift label
/// (`optionsResponse.challenge` for a property of the options an operation takes).
public enum ArculusFidoParameter: String, CaseIterable, Sendable {
    case pin, oldPin, newPin, username, displayName, rpId, relyingParty, challenge, origin
    case allowCredentials, credentialId, allowRPIDMismatch, strictRP, fidoServer, backend, optionsResponse, userId
    case fidoServerTimeout = "fidoServer.timeout"
    case backendTimeout = "backend.timeout"
    case optionsRpId = "optionsResponse.rpId"
    case optionsChallenge = "optionsResponse.challenge"
    case optionsOrigin = "optionsResponse.origin"
    case optionsAllowList = "optionsResponse.allowList"
    case optionsClientDataJSON = "optionsResponse.clientDataJSONbase64"
    case optionsClientHash = "optionsResponse.clienthash"
    case optionsRpIdHash = "optionsResponse.rpIdHash"
}
