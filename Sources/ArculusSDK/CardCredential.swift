import CTAPClient
import JSONSupport

/// A discoverable credential on the card, as ``ArculusFido/listCredentials(pin:rpId:)`` reports it.
public struct CardCredential: Equatable, Sendable {
    /// The credential ID, base64url (the `id` of its registration response).
    public let credentialId: String
    /// The relying party.
    public let rpId: String
    /// The user handle, base64url.
    public let userHandle: String
    /// The account name, when stored.
    public let username: String?
    /// The display name, when stored.
    public let displayName: String?

    init(_ stored: StoredCredential) {
        credentialId = Base64URL.encode(stored.credential.id)
        rpId = stored.relyingParty.id
        userHandle = Base64URL.encode(stored.user.id)
        username = stored.user.name
        displayName = stored.user.displayName
    }

    /// The credential as JSON (`credentialId`, `rpId`, `userHandle`, `username`, `displayName`).
    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "credentialId": .string(credentialId), "rpId": .string(rpId), "userHandle": .string(userHandle),
        ]
        if let username { members["username"] = .string(username) }
        if let displayName { members["displayName"] = .string(displayName) }
        return .object(members)
    }
}
