import ArculusCard
import ArculusFidoConnectors
import CBOR
import CTAPClient
import FIDOWire
import Foundation
import PCSC
import POSIXSupport

/// `pcsc capture-profile`: a card's public identity (ATR, SELECT answer, getInfo), read with
/// the host-side CTAP2 client, written as a profile the emulator can serve.
extension PCSCCommand {
    static func captureProfile(_ arguments: [String]) throws -> Int32 {
        let options = try declaration.parse(arguments, action: "capture-profile")
        guard options.positionals.isEmpty else { throw UsageError("unexpected argument '\(options.positionals[0])'") }
        guard let output = options.value("--output") else { throw UsageError("capture-profile needs --output FILE") }
        let base = try options.profile("--base") ?? .default

        let (reader, card) = try connect(options)
        try card.beginTransaction()
        defer { try? card.endTransaction() }
        let (capture, dropped, clamped) = try capturedProfile(of: card, in: reader, base: base, strict: options.flag("--strict"))
        try NewFile.replace(output, with: Array(capture.profile.jsonData()), mode: 0o644)
        _ = try CardProfile.load(path: output)
        for feature in dropped { Console.error("dropped: \(DisplayText.escaped(feature))") }
        for field in clamped { Console.error("clamped: \(DisplayText.escaped(field))") }
        if !capture.fromBase.isEmpty {
            Console.error("not reported by the card, taken from \(DisplayText.escaped(base.name)): \(capture.fromBase.joined(separator: ", "))")
        }
        let versions = DisplayText.escaped(capture.profile.versions.joined(separator: ", "))
        Console.output("wrote profile \(capture.profile.name) (\(versions), AAGUID \(capture.profile.aaguid)) to \(output)")
        Console.error("the profile holds the card's identity only (getInfo, SELECT answer, ATR): for its behaviour too, "
                      + "'arculus-card pcsc probe' then 'arculus-card probe profile'")
        return ExitStatus.success
    }

    /// The profile of the card in `reader` (ATR, SELECT answer, getInfo over `base`): servable,
    /// with what was dropped and clamped to make it so (in its description too), or, with
    /// `strict`, refused when anything would be.
    static func capturedProfile(of card: PCSCCard, in reader: String, base: CardProfile,
                                strict: Bool) throws -> (capture: ProfileCapture, dropped: [String], clamped: [String]) {
        let atr = try card.atr
        let (selectAnswer, info, reported) = try identity(of: card, in: reader)
        var capture = ProfileCapture(base: base)
        try capture.apply(info, reported: reported)
        capture.profile.selectResponse = selectAnswer
        capture.profile.atr = Hex.string(atr)
        capture.profile.name = "captured-" + capture.profile.aaguid.prefix(8)
        capture.profile.description = "Captured from \(reader)"
        var (dropped, clamped): ([String], [String]) = ([], [])
        do {
            if strict {
                try capture.profile.validate()
            } else {
                (dropped, clamped) = try capture.makeServable(reported: reported)
            }
        } catch {
            throw PCSCCommandError("the card's answers do not make a profile the emulator can serve: \(error)")
        }
        if !dropped.isEmpty {
            capture.profile.description += "; dropped (the emulator cannot serve them): " + dropped.joined(separator: "; ")
        }
        if !clamped.isEmpty {
            capture.profile.description += "; clamped to what the emulator serves: " + clamped.joined(separator: "; ")
        }
        return (capture, dropped, clamped)
    }

    /// SELECT's answer and getInfo, typed and as the card sent it: ``AuthenticatorInfo`` keeps
    /// neither which members were absent nor `algorithms` (0x0A), which a profile needs.
    private static func identity(of card: PCSCCard, in reader: String) throws -> (String, AuthenticatorInfo, CBORMap) {
        do throws(CTAPClientError) {
            let client = try CTAPClient(transport: PCSCCardTransport(card: card))
            let reported = try client.send(.getInfo)
            return (client.selectAnswer, try AuthenticatorInfo(reported), reported)
        } catch {
            switch error {
            case .appletNotFound(let word):
                throw PCSCCommandError("the card in \(reader) refused SELECT of the FIDO applet (SW \(Hex.word(word))): not a FIDO card?")
            case .ctap2NotSupported:
                throw PCSCCommandError("the card in \(reader) speaks U2F only (SELECT answered U2F_V2): a U2F-only card has no CTAP2 profile")
            case .ctap(let refusal):
                throw PCSCCommandError("authenticatorGetInfo failed: \(DisplayText.escaped("\(refusal)"))")
            default:
                throw PCSCCommandError("cannot read the card's authenticatorGetInfo: \(error)")
            }
        }
    }
}
