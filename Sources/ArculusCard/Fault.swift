/// A fault to inject into an emulated card: what it does, to which commands, and whether it
/// goes away after it has acted once.
///
/// ```swift
/// try card.injectFault(.ctapError(0x2E), on: .ctap(.getAssertion))        // until cleared
/// try card.injectFault(.bogusSignature, on: .ctap(.getAssertion), once: true)
/// try card.injectFault(.failNextWrite)                                       // one-shot by default
/// ```
public struct Fault: Hashable, Sendable, CustomStringConvertible {
    /// What the fault does.
    public var effect: FaultEffect
    /// The commands it applies to.
    public var scope: FaultScope
    /// Whether it is removed after acting once (else it acts until removed).
    public var once: Bool

    /// A fault; `once` defaults to the effect's ``FaultEffect/isOneShotByDefault``.
    public init(_ effect: FaultEffect, on scope: FaultScope = .any, once: Bool? = nil) {
        self.effect = effect
        self.scope = scope
        self.once = once ?? effect.isOneShotByDefault
    }

    /// Throws when the fault could never act: an effect the scoped command cannot have (a CTAP
    /// error on U2F, a bogus signature on getInfo, …), a CTAP "error" of 0, a leave-field
    /// absence outside 0…3600 s.
    public func validate() throws(FaultError) {
        if case .leaveField(let away) = effect, away < .zero || away > .seconds(3600) {
            throw .notApplicable("the card can stay away between 0 and 3600 s, not \(away)")
        }
        if case .delay(let extra) = effect, extra <= .zero || extra > .seconds(3600) {
            throw .notApplicable("a delay is more than 0 and at most 3600 s, not \(extra)")
        }
        if case .command(let command) = scope, let why = effect.impossibility(in: command) {
            throw .notApplicable(why)
        }
        if case .ctapError(0) = effect { throw .notApplicable("0x00 is CTAP2_OK, not an error") }
        if case .flags(nil, nil) = effect { throw .notApplicable("no flag to change (give up and/or uv)") }
    }

    public var description: String {
        "\(effect) on \(scope)" + (once ? ", once" : "")
    }
}
