import ArculusCard

/// The emulated card goes on the virtual reader as it is; a reader reset cycles the field.
extension VirtualCard: ReaderCard {
    /// Power off then on, as a contactless card sees a field reset.
    public func reset() {
        powerOff()
        powerOn()
    }
}
