import Foundation

/// A vpcd reader of pcscd that a suite serves its card on: the slot (from the suite's own
/// environment variable, so that suites run side by side on slots of their own), the reader's
/// name, and whether the suite runs.
public struct VPCDReader: Sendable {
    /// The vpcd slot.
    public let slot: Int
    /// The reader's name in pcscd: "Virtual PCD 00 NN", NN the slot in hex.
    public let name: String
    /// Whether pcscd answered and listed the reader when this was made.
    public let reachable: Bool

    /// The slot `variable` names, else `defaultSlot`; `readers` lists pcscd's readers (nil when
    /// pcscd does not answer), asked once here.
    public init(slotFrom variable: String, default defaultSlot: Int, readers: () -> [String]?) {
        slot = ProcessInfo.processInfo.environment[variable].flatMap { Int($0) } ?? defaultSlot
        name = "Virtual PCD 00 " + (slot < 16 ? "0" : "") + String(slot, radix: 16, uppercase: true)
        reachable = readers()?.contains(name) == true
    }

    /// Run when pcscd is there, and in CI always (where an unreachable pcscd must fail the
    /// suite, not skip it).
    public var shouldRun: Bool { reachable || ProcessInfo.processInfo.environment["CI"]?.lowercased() == "true" }

    /// Why the suite cannot run.
    public var unavailable: String {
        "pcscd is not reachable or has no reader '\(name)' (install pcscd + vsmartcard-vpcd and start pcscd)"
    }
}
