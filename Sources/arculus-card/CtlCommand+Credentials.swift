import VirtualReader

/// `ctl credentials list|add|remove`.
extension CtlCommand {
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
