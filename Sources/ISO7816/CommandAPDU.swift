/// A command APDU (ISO/IEC 7816-4 §5.1): a four-byte header, an optional command data
/// field (Lc bytes) and an optional expected response length Le.
///
/// Parsing is strict: every length byte must agree with the number of bytes that follow,
/// so a truncated or padded APDU is an error, never a silently different command. The
/// encodings of §5.1 are distinguished as the standard says:
///
/// | body after the header           | case |
/// | ------------------------------- | ---- |
/// | empty                           | 1    |
/// | `Le`                            | 2S   |
/// | `Lc` (≠ 00) data                | 3S   |
/// | `Lc` (≠ 00) data `Le`           | 4S   |
/// | `00 Le1 Le2`                    | 2E   |
/// | `00 Lc1 Lc2` (≠ 0000) data      | 3E   |
/// | `00 Lc1 Lc2` data `Le1 Le2`     | 4E   |
///
/// The extended form is recognised when the fifth byte is `00` and the APDU is at least
/// seven bytes long. A short Lc of `00` is invalid (§5.1: Lc encodes 1 to 255).
public struct CommandAPDU: Hashable, Sendable {
    /// The class byte, including the command-chaining bit `0x10`.
    public var cla: UInt8
    /// The instruction byte.
    public var ins: UInt8
    /// Parameter 1.
    public var p1: UInt8
    /// Parameter 2.
    public var p2: UInt8
    /// The command data field (Nc = `data.count` bytes; empty when there is no Lc).
    public var data: [UInt8]
    /// Ne, the maximum number of response data bytes expected: 0 when Le is absent,
    /// 256 for a short Le of `00`, 65536 for an extended Le of `0000`.
    public var ne: Int
    /// Whether the length fields use the extended (three-byte Lc, two/three-byte Le) form.
    public var isExtended: Bool

    /// The bit in CLA that says "more pieces of this command follow" (§5.1.1.1).
    public static let chainingBit: UInt8 = 0x10

    /// Why bytes are not a well-formed command APDU. The card front answers every one
    /// of these with `6700` (wrong length).
    public enum ParseError: Error, Hashable, Sendable {
        /// Fewer than the four header bytes.
        case missingHeader(count: Int)
        /// A short APDU whose Lc byte is `00`, which encodes no valid length.
        case zeroShortLc
        /// An extended APDU whose Lc is `0000` but which carries more than an Le.
        case zeroExtendedLc
        /// The body after the header does not match its length fields.
        case lengthMismatch(declared: Int, bodyCount: Int)
    }

    /// Builds a command, choosing the short form when both Nc ≤ 255 and Ne ≤ 256 and the
    /// extended form otherwise (or when `extended` is set).
    ///
    /// - Precondition: `data.count` ≤ 65535 and 0 ≤ `ne` ≤ 65536: larger values have no
    ///   encoding at all, so asking for one is a programming error.
    public init(cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8] = [], ne: Int = 0, extended: Bool = false) {
        precondition(data.count <= 65535, "an APDU carries at most 65535 data bytes")
        precondition(ne >= 0 && ne <= 65536, "Ne is between 0 and 65536")
        self.cla = cla
        self.ins = ins
        self.p1 = p1
        self.p2 = p2
        self.data = data
        self.ne = ne
        self.isExtended = extended || data.count > 255 || ne > 256
    }

    /// Parses the bytes of exactly one command APDU.
    public init(parsing bytes: some Collection<UInt8>) throws(ParseError) {
        let all = ArraySlice(bytes)
        guard all.count >= 4 else { throw .missingHeader(count: all.count) }
        let start = all.startIndex
        cla = all[start]
        ins = all[start + 1]
        p1 = all[start + 2]
        p2 = all[start + 3]
        let body = all.dropFirst(4)
        let b = body.startIndex
        let n = body.count

        if n == 0 {
            // Case 1.
            (data, ne, isExtended) = ([], 0, false)
        } else if n == 1 {
            // Case 2S: a lone Le byte; 00 means 256.
            let le = Int(body[b])
            (data, ne, isExtended) = ([], le == 0 ? 256 : le, false)
        } else if body[b] != 0 {
            // Cases 3S and 4S.
            let lc = Int(body[b])
            if n == 1 + lc {
                (data, ne, isExtended) = (Array(body.dropFirst()), 0, false)
            } else if n == 2 + lc {
                let le = Int(body[b + 1 + lc])
                (data, ne, isExtended) = (Array(body.dropFirst().prefix(lc)), le == 0 ? 256 : le, false)
            } else {
                throw .lengthMismatch(declared: lc, bodyCount: n)
            }
        } else if n == 2 {
            // `00 xx` cannot be short (Lc 00 is invalid) nor extended (needs ≥ 3 bytes).
            throw .zeroShortLc
        } else {
            // Extended form: 00 then two length bytes.
            let length = Int(body[b + 1]) << 8 | Int(body[b + 2])
            if n == 3 {
                // Case 2E: 00 Le1 Le2; 0000 means 65536.
                (data, ne, isExtended) = ([], length == 0 ? 65536 : length, true)
            } else if length == 0 {
                throw .zeroExtendedLc
            } else if n == 3 + length {
                (data, ne, isExtended) = (Array(body.dropFirst(3)), 0, true)
            } else if n == 3 + length + 2 {
                let le = Int(body[b + 3 + length]) << 8 | Int(body[b + 4 + length])
                (data, ne, isExtended) = (Array(body.dropFirst(3).prefix(length)), le == 0 ? 65536 : le, true)
            } else {
                throw .lengthMismatch(declared: length, bodyCount: n)
            }
        }
    }

    /// The bytes of this command, the exact inverse of ``init(parsing:)``.
    public var encoded: [UInt8] {
        var out: [UInt8] = [cla, ins, p1, p2]
        if isExtended && (!data.isEmpty || ne > 0) {
            out.append(0x00)
            if !data.isEmpty {
                out.append(UInt8(truncatingIfNeeded: data.count >> 8))
                out.append(UInt8(truncatingIfNeeded: data.count))
                out += data
            }
            if ne > 0 {
                // 65536 wraps to 0000 as §5.1 encodes it.
                out.append(UInt8(truncatingIfNeeded: ne >> 8))
                out.append(UInt8(truncatingIfNeeded: ne))
            }
        } else {
            if !data.isEmpty {
                out.append(UInt8(truncatingIfNeeded: data.count))
                out += data
            }
            if ne > 0 {
                // 256 wraps to 00 as §5.1 encodes it.
                out.append(UInt8(truncatingIfNeeded: ne))
            }
        }
        return out
    }

    /// Whether CLA says more pieces of this command follow.
    public var isChained: Bool { cla & Self.chainingBit != 0 }

    /// CLA without the chaining bit: the class the command belongs to (`00` or `80` here).
    public var commandClass: UInt8 { cla & ~Self.chainingBit }

    /// Ne as the card front uses it to cut the response: an absent Le in a short APDU
    /// means "up to 256" (what PC/SC clients expect from a case 1 or 3 command), and in an
    /// extended APDU "up to 65536" (python-fido2's extended path sends no Le and runs no
    /// GET RESPONSE loop).
    public var responseLimit: Int {
        if ne > 0 { return ne }
        return isExtended ? 65536 : 256
    }
}
