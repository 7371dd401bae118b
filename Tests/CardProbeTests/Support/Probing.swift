import ArculusCard
import ArculusFidoConnectors
import CardProbe
import Foundation

/// The probe run in process: the emulated card through the connectors' in-process transport (the tests
/// join card and host side; the probe library never does).
enum Probing {
    /// The fingerprint of `card`, probed in process.
    static func fingerprint(of card: VirtualCard, writes: Bool = false, timing: Bool = false,
                            pins: ProbePINs? = nil) throws -> Fingerprint {
        var prober = CardProber(includeWrites: writes, measuresTiming: timing)
        prober.pins = pins
        return try prober.run(on: VirtualCardTransport(card: card), atr: try card.profile.atrBytes,
                              source: "the emulator (in process), profile \(card.profile.name)")
    }

    /// The fingerprint of a fresh card of `profile`.
    static func fingerprint(_ profile: CardProfile, writes: Bool = true) throws -> Fingerprint {
        try fingerprint(of: try VirtualCard(profile: profile), writes: writes)
    }
}
