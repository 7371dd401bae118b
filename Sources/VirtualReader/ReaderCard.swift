/// A card the reader bridge can put on a virtual reader: it answers to the reader's power
/// and reset signals and to command APDUs.
///
/// The bridge calls these from its own thread only, one call at a time.
public protocol ReaderCard: AnyObject {
    /// The Answer To Reset the reader reports for the card.
    var atr: [UInt8] { get }
    /// The reader powered the card (the card entered the field).
    func powerOn()
    /// The reader cut the power, or the card left the field: volatile state is lost.
    func powerOff()
    /// A warm reset; for a contactless card the field is cycled, so it is off then on.
    func reset()
    /// One command APDU in, the response APDU (data + SW1 SW2) out.
    func transmit(_ apdu: [UInt8]) -> [UInt8]
}
