import FIDOWire
import JSONSupport
import VirtualReader

/// `ctl credentials list|add|remove`.
extension CtlCommand {
    /// `credentials remove --id ID` sends the ID as the user wrote it (`idHex` or `id`), so that
    /// the card's "no such credential" echoes the user's own text.
    static func credentialsRemoveJSON(_ line: CtlWords) throws(UsageError) -> JSONValue {
        guard case .removeCredential(let id) = try credentialsRequest(line), let text = line.options.value("--id") else {
            throw UsageError("credentials remove needs --id ID")
        }
        let asHex = [UInt8](hex: text) == id
        return ["op": "credentials.remove", (asHex ? "idHex" : "id"): .string(text)]
    }

    static func credentialsRequest(_ line: CtlWords) throws(UsageError) -> ControlRequest {
        switch line.words.dropFirst().first {
        case "list":
            return try line.only([], words: 2, .listCredentials)
        case "add":
            try line.only(["--credential"], words: 2)
            let credentials = try CredentialOption.parameters(line.options)
            guard credentials.count == 1, let credential = credentials.first else {
                throw UsageError(credentials.isEmpty ? "credentials add needs --credential SPEC"
                                                     : "ctl adds one credential per call: give one --credential")
            }
            return .addCredential(credential)
        case "remove":
            try line.only(["--id"], words: 2)
            guard let id = line.options.value("--id") else { throw UsageError("credentials remove needs --id ID") }
            return .removeCredential(id: try CredentialOption.id(id))
        default:
            throw UsageError("credentials wants list, add or remove")
        }
    }
}
