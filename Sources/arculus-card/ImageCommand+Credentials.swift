import ArculusCard
import VirtualReader

/// `image credentials list|add|remove`: straight on the image's card.
extension ImageCommand {
    static func credentials(_ action: String, path: String, options: CommandLineOptions) throws -> Int32 {
        switch action {
        case "list":
            try options.allow(["--card"], words: 2, what: "image credentials list")
            return withImage(path) { card in ControlResponse.credentials(card.credentialListings).answer() }
        case "add":
            try options.allow(["--card", "--credential"], words: 2, what: "image credentials add")
            let credentials = try CredentialOption.parameters(options)
            guard !credentials.isEmpty else { throw UsageError("credentials add needs --credential SPEC") }
            return withImage(path) { card in
                let added = try credentials.map { try card.add($0) }
                return ControlResponse.credentials(added.map { $0.counted(on: card) }).answer()
            }
        default:
            try options.allow(["--card", "--id"], words: 2, what: "image credentials remove")
            guard let text = options.value("--id") else { throw UsageError("credentials remove needs --id ID") }
            let id = try CredentialOption.id(text)
            return withImage(path) { card in
                try card.removeCredential(id: id)
                return ControlResponse.done.answer()
            }
        }
    }
}

extension CredentialListing {
    /// The listing with the card's counter as it is now (a later credential's `signCount` may
    /// have raised it since this one was added).
    func counted(on card: VirtualCard) -> CredentialListing {
        var listing = self
        listing.signCount = card.pinState.signatureCounter
        return listing
    }
}
