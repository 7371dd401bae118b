import ArculusFidoConnectors
import CardProbe
import CTAPClient
import Foundation
import PCSC
import POSIXSupport

/// `pcsc probe`: the probe's battery sent to the card in a reader, its fingerprint written.
extension PCSCCommand {
    static func probe(_ arguments: [String]) throws -> Int32 {
        let options = try declaration.parse(arguments, action: "probe")
        guard options.positionals.isEmpty else { throw UsageError("unexpected argument '\(options.positionals[0])'") }
        if options.value("--out") != nil && options.value("--output") != nil { throw UsageError("--out or --output, not both") }
        guard let output = options.value("--out") ?? options.value("--output") else { throw UsageError("probe needs --out FILE") }
        let (reader, card) = try connect(options)
        try card.beginTransaction()
        defer { try? card.endTransaction() }
        let prober = CardProber(includeWrites: options.flag("--allow-writes"), measuresTiming: !options.flag("--no-timing"))
        let clock = ContinuousClock()
        let start = clock.now
        let probed: (fingerprint: Fingerprint, cost: CardProber.Cost)
        do {
            probed = try prober.runCounting(on: ProbeReaderTransport(card: card), atr: try card.atr, source: "PC/SC reader \(reader)")
        } catch {
            throw PCSCCommandError("the card in \(reader): \(error)")
        }
        try NewFile.replace(output, with: Array(probed.fingerprint.text.utf8), mode: 0o644)
        Console.error(ProbeCommand.costLine(probed.fingerprint, probed.cost, took: start.duration(to: clock.now)))
        Console.output("wrote the fingerprint of the card in \(reader) to \(output)")
        return ExitStatus.success
    }
}

/// The card in a reader as the probe's transport: a power cycle leaves the transaction, powers
/// the card off and on (SCardReconnect with SCARD_UNPOWER_CARD) and takes the transaction again.
struct ProbeReaderTransport: CardTransport {
    let card: PCSCCard

    func transmit(_ apdu: [UInt8]) throws(CardTransportError) -> [UInt8] {
        try PCSCCardTransport(card: card).transmit(apdu)
    }

    func powerCycle() throws(CardTransportError) {
        do {
            try? card.endTransaction()
            try card.reconnect(disposition: .unpower)
            try card.beginTransaction()
        } catch {
            throw PCSCCardTransport.transportError(error, reader: card.reader)
        }
    }
}
