import ArculusSDK
import CTAPClient
import JSONSupport

/// What `arculus-card sdk` prints on success: JSON on one line.
enum SDKOutput {
    /// `{"status": "success", "operation": …, "message": …}` plus `extra`.
    static func success(operation: String, message: String, _ extra: [String: JSONValue] = [:]) -> String {
        var members: [String: JSONValue] = ["status": "success", "operation": .string(operation), "message": .string(message)]
        members.merge(extra) { _, new in new }
        return JSONValue.object(members).text
    }

    /// A flow's ending: the RP ID the card signed for, the credential, and the server's (or
    /// backend's) answer.
    static func server(_ result: ArculusFidoServerResult) -> [String: JSONValue] {
        ["rpId": .string(result.rpId), "credentialId": .string(result.credentialId), "serverResponse": result.serverResponse,
         "httpStatus": .int(result.httpStatus)]
    }

    /// `{"credentials": [{credentialId, rpId, userHandle, username, displayName}, …]}`.
    static func credentials(_ credentials: [CardCredential]) -> String {
        JSONValue.object(["credentials": .array(credentials.map(\.json))]).text
    }

    /// getInfo as JSON, with what the card answers to getPINRetries: `pinRetries`, or, when it
    /// refuses (a card without a PIN), `pinRetries: null` and the refusal in `pinRetriesStatus`.
    static func info(_ card: CardInfo) -> String {
        let info = card.info
        var members: [String: JSONValue] = [
            "versions": .array(info.versions.map(JSONValue.string)),
            "extensions": .array(info.extensions.map(JSONValue.string)),
            "aaguid": .string(info.aaguid.aaguidText),
            "options": .object(info.options.mapValues(JSONValue.bool)),
            "pinUvAuthProtocols": .array(info.pinUVAuthProtocols.map(JSONValue.int)),
            "minPINLength": .int(info.minPINLength),
            "pinRetries": card.pinRetries.map(JSONValue.int) ?? .null,
        ]
        if let refusal = card.pinRetriesRefusal { members["pinRetriesStatus"] = .string(refusal.name) }
        if let remaining = info.remainingDiscoverableCredentials { members["remainingDiscoverableCredentials"] = .int(remaining) }
        if let size = info.maxMessageSize { members["maxMsgSize"] = .int(size) }
        return JSONValue.object(members).text
    }
}
