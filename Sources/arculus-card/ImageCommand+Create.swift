import ArculusCard
import JSONSupport
import VirtualReader

/// `image create`: a new image with the options' PIN, retries, counter and credentials; if any
/// of them is refused, no image is left behind.
extension ImageCommand {
    static func create(path: String, options: CommandLineOptions) throws -> Int32 {
        let cardOptions = try CardOptions(options)
        let pin = options.value("--pin")
        let retries = try options.integer("--retries")
        let counter = try options.counter("--counter")
        let credentials = try CredentialOption.parameters(options)

        // Created as a new file (O_EXCL|O_NOFOLLOW): nothing already at the path, a symbolic
        // link included, is opened or written through.
        let storage: CardImageFile
        do {
            storage = try CardImageFile(path: path, opening: .createNew)
        } catch let error where error.reason == .alreadyExists {
            return fail("\(path) already exists; change it with 'image pin', 'image credentials add' …, or delete it first")
        } catch {
            return fail("\(error)")
        }
        let card: VirtualCard
        do {
            card = try VirtualCard(profile: cardOptions.profile ?? .default, storage: storage, entropy: cardOptions.entropy)
        } catch {
            return fail("cannot create \(path): \(error)")
        }
        reportCompactionFailures(of: card)
        var added: [CredentialListing] = []
        do {
            if let pin { try card.setPIN(pin) }
            if let retries { try card.setPINRetries(retries) }
            if let counter { try card.setSignatureCounter(counter) }
            for credential in credentials { added.append(try card.add(credential)) }
        } catch {
            storage.removeImage()
            return fail("\(error); no image was created")
        }
        let summary: JSONValue = [
            "ok": true, "card": .string(path), "profile": .string(card.profile.name),
            "pin": ControlResponse.PINStatus(card: card).json, "counter": .int(card.pinState.signatureCounter),
            "credentials": .array(added.map { $0.counted(on: card).json }),
        ]
        Console.output(summary.text)
        return ExitStatus.success
    }
}
