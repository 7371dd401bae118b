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

    /// A client-direct flow's ending: the credential and the server's answer.
    static func server(_ result: ArculusFidoServerResult) -> [String: JSONValue] {
        ["credentialId": .string(result.credentialId), "serverResponse": result.serverResponse, "httpStatus": .int(result.httpStatus)]
    }

    /// `{"credentials": [{credentialId, rpId, userHandle, username, displayName}, …]}`.
    static func credentials(_ credentials: [CardCredential]) -> String {
        JSONValue.object(["credentials": .array(credentials.map(\.json))]).text
    }

    /// getInfo as JSON, with the PIN retry counter when the card has a PIN.
    static func info(_ info: AuthenticatorInfo, pinRetries: Int?) -> String {
        var members: [String: JSONValue] = [
            "versions": .array(info.versions.map(JSONValue.string)),
            "extensions": .array(info.extensions.map(JSONValue.string)),
            "aaguid": .string(info.aaguid.aaguidText),
            "options": .object(info.options.mapValues(JSONValue.bool)),
            "pinUvAuthProtocols": .array(info.pinUVAuthProtocols.map(JSONValue.int)),
            "minPINLength": .int(info.minPINLength),
        ]
        if let pinRetries { members["pinRetries"] = .int(pinRetries) }
        if let remaining = info.remainingDiscoverableCredentials { members["remainingDiscoverableCredentials"] = .int(remaining) }
        if let size = info.maxMessageSize { members["maxMsgSize"] = .int(size) }
        return JSONValue.object(members).text
    }
}
