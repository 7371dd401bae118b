import CardCrypto

/// What follows the last valid record of an image: an append a crash cut short, or damage.
extension CardImageFormat {
    enum Tail: Equatable {
        /// What an interrupted append leaves: dropped, as that change was never acknowledged.
        case torn
        /// Anything else: the image is refused with this reason.
        case damaged(String)
    }

    /// What the bytes from `offset` (where no valid record starts) to the end of `bytes`, an
    /// image of `version`, are. Torn only in the shapes an append cut short leaves: a prefix of
    /// the record, or the record's length with zeros from some byte on, never longer than
    /// ``maximumAppendLength``. A record whose last byte is there but whose checksum fails, a
    /// whole record further on, or anything longer or of another shape is damage. Looks at each
    /// byte a bounded number of times, hashing at most twice: linear in the tail's length.
    static func tail(of bytes: [UInt8], at offset: Int, version: UInt8, afterSnapshot: Bool) -> Tail {
        let count = bytes.count - offset
        // What to do: drop the bad part and keep the records before it (none before the snapshot).
        let keep = afterSnapshot ? "; truncating the file to \(offset) bytes keeps every record before it" : ""
        // The image ends in a whole record: if it starts here, only its leading length is wrong.
        let whole = startOfWholeRecord(endingWith: bytes, notBefore: offset, version: version)
        if whole == offset {
            return .damaged("the length field of the record at byte \(offset) is damaged" + keep)
        }
        // The record's last byte was written (an append cut short never has it): damage.
        if count >= recordHeaderLength {
            let length = lengthField(in: bytes, at: offset)
            let size = recordLength(payloadLength: length, version: version)
            if size <= count, bytes[offset + size - 1] != 0 {
                let what = if version >= 3 && bytes[offset + size - 1] != endMark {
                    "has a damaged end mark"
                } else if version >= 3 && lengthField(in: bytes, at: offset + size - 5) != length {
                    "has two different lengths"
                } else {
                    "fails its checksum"
                }
                return .damaged("the record at byte \(offset) \(what)" + keep)
            }
        }
        // A whole record further on: the record here is damaged, whatever its length says.
        if let whole {
            return .damaged("the record at byte \(offset) is damaged, and a whole record follows at byte \(whole)" + keep)
        }
        // Only a snapshot can stand here, and a snapshot is never appended: the caller says none is complete.
        guard afterSnapshot else { return .torn }
        let notATornAppend = "the \(count) bytes after the last whole record (at byte \(offset)) are not what an interrupted write leaves" + keep
        guard count <= maximumAppendLength else {
            return .damaged("\(count) bytes follow the last whole record (at byte \(offset)), more than an interrupted write leaves" + keep)
        }
        // `written`: the bytes up to the last nonzero one (zeros after it: data that did not land).
        var written = count
        while written > 0 && bytes[offset + written - 1] == 0 { written -= 1 }
        guard written > 0 else { return .torn }
        // An append is below 64 KiB (its length's first two bytes are 0) and holds changes (`M`).
        guard bytes[offset] == 0, count < 2 || bytes[offset + 1] == 0,
              written <= 4 || bytes[offset + 4] == RecordKind.mutations.rawValue else {
            return .damaged(notATornAppend)
        }
        guard count >= recordHeaderLength else { return .torn }  // cut inside the length field
        let size = recordLength(payloadLength: lengthField(in: bytes, at: offset), version: version)
        // Cut before the record's end; or its length written, and zeros to its end; or only part
        // of the length written (a 0 byte in its place reads as a shorter record), zeros after it.
        if size > count || size == count || written < 4 { return .torn }
        return .damaged(notATornAppend)
    }

    /// Where a valid record that ends at the end of `bytes` starts, if it starts at `offset` or
    /// later; its own leading length is not trusted (version 3 records carry it at both ends;
    /// a version 2 one can only be tried as starting at `offset`).
    private static func startOfWholeRecord(endingWith bytes: [UInt8], notBefore offset: Int, version: UInt8) -> Int? {
        let trailer = trailerLength(version: version)
        let length: Int
        if version >= 3 {
            guard bytes.count - offset >= recordLength(payloadLength: 0, version: version),
                  bytes[bytes.count - 1] == endMark else { return nil }
            length = lengthField(in: bytes, at: bytes.count - 5)
        } else {
            length = bytes.count - offset - recordHeaderLength - trailer
        }
        let start = bytes.count - recordLength(payloadLength: length, version: version)
        guard length >= 0, start >= offset else { return nil }
        let payloadEnd = start + recordHeaderLength + length
        let digest = SHA256.hash(bigEndian(UInt32(length)) + bytes[(start + 4)..<payloadEnd]).prefix(digestLength)
        return digest.elementsEqual(bytes[payloadEnd..<payloadEnd + digestLength]) ? start : nil
    }
}
