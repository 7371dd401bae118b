import ArculusCard
import Foundation
import JSONSupport
import VirtualReader

/// `image create`: a new image with the options' PIN, retries, counter and credentials; if any
/// of them is refused, no image is left behind.
extension ImageCommand {
    static func create(path: String, options: CommandLineOptions) throws -> Int32 {
        guard !FileManager.default.fileExists(atPath: path) else {
            return fail("\(path) already exists; change it with 'image pin', 'image credentials add' …, or delete it first")
        }
        let cardOptions = try CardOptions(options)
        let pin = options.value("--pin")
        let retries = try options.integer("--retries")
        let counter = try options.counter("--counter")
        let credentials = try CredentialOption.parameters(options)

        let card: VirtualCard
        do {
            card = try cardOptions.open()
        } catch {
            return fail("cannot create \(path): \(error)")
        }
        var added: [CredentialListing] = []
        do {
            if let pin { try card.setPIN(pin) }
            if let retries { try card.setPINRetries(retries) }
            if let counter { try card.setSignatureCounter(counter) }
            for credential in credentials { added.append(try card.add(credential)) }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + ".lock")
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
