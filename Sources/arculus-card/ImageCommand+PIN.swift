import ArculusCard
import VirtualReader

/// `image pin` and `image counter`: read, or set through the card's state controls.
extension ImageCommand {
    static func pinOrCounter(_ command: String, path: String, options: CommandLineOptions) throws -> Int32 {
        if command == "pin" {
            try options.allow(["--card", "--set", "--retries"], words: 1, what: "image pin")
            let pin = options.value("--set")
            let retries = try options.integer("--retries")
            return withImage(path) { card in
                if let pin { try card.setPIN(pin) }
                if let retries { try card.setPINRetries(retries) }
                return ControlResponse.pin(ControlResponse.PINStatus(card: card)).answer()
            }
        }
        try options.allow(["--card", "--set"], words: 1, what: "image counter")
        let counter = try options.counter("--set")
        return withImage(path) { card in
            if let counter { try card.setSignatureCounter(counter) }
            return ControlResponse.counter(card.pinState.signatureCounter).answer()
        }
    }
}
