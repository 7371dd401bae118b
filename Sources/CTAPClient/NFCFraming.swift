import FIDOWire

/// The command APDUs that carry one CTAP message in NFCCTAP_MSG (CTAP 2.1 §11.3.5): short APDUs,
/// pieces of at most `pieceSize` bytes with the chaining bit (CLA `90`) on all but the last,
/// which ends with Le `00`. The client's channel sends these; the probe sends and records them.
public enum NFCFraming {
    public static func apdus(_ message: [UInt8], p1: UInt8 = NFCBinding.messageSupportsGetResponse,
                             pieceSize: Int = 255) -> [[UInt8]] {
        let ins = FIDOInstruction.nfcctapMessage.rawValue
        var apdus: [[UInt8]] = []
        var offset = 0
        while message.count - offset > pieceSize {
            let piece = message[offset..<(offset + pieceSize)]
            apdus.append([0x90, ins, p1, 0x00, UInt8(piece.count)] + piece)
            offset += pieceSize
        }
        let last = message[offset...]
        apdus.append([0x80, ins, p1, 0x00, UInt8(last.count)] + last + [0x00])
        return apdus
    }
}
