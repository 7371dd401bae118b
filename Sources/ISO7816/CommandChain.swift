import FIDOWire
/// The pieces of a chained command collected so far (ISO/IEC 7816-4 §5.1.1.1).
///
/// The buffer is bounded: once the assembled data would exceed `limit` the pieces are
/// dropped and only the fact that the command was too large is kept, so a client that
/// chains forever costs no memory. The front still answers `9000` to every piece and
/// reports the error once, when the last piece arrives.
struct CommandChain: Sendable, Equatable {
    /// CLA without the chaining bit.
    let commandClass: UInt8
    let instruction: FIDOInstruction
    let p1: UInt8
    let p2: UInt8
    /// Largest assembled data field that is buffered.
    let limit: Int
    private(set) var data: [UInt8] = []
    private(set) var overflowed = false

    init(first piece: CommandAPDU, instruction: FIDOInstruction, limit: Int) {
        commandClass = piece.commandClass
        self.instruction = instruction
        p1 = piece.p1
        p2 = piece.p2
        self.limit = limit
    }

    /// Whether `piece` belongs to this chain: same class, INS, P1 and P2.
    func isContinued(by piece: CommandAPDU) -> Bool {
        piece.commandClass == commandClass && piece.ins == instruction.rawValue && piece.p1 == p1 && piece.p2 == p2
    }

    /// Adds a piece's data, or marks the chain overflowed once the bound is crossed.
    mutating func append(_ piece: [UInt8]) {
        guard !overflowed else { return }
        if piece.count > limit - data.count {
            overflowed = true
            data = []
        } else {
            data += piece
        }
    }
}
