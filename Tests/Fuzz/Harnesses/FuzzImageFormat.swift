import CardCrypto

// The card-image layout the `image` target builds inputs in (shared with the seed writer).

/// `ARCIMG\0` + the format version + each piece as a record with its length and checksum: in
/// version 3 (the current one) also the length again and the end mark A5; in version 2 (which
/// the loader still reads) without them.
func imageWithChecksums(_ body: ArraySlice<UInt8>, rawTail: Bool, version: UInt8 = 3) -> [UInt8] {
    var image: [UInt8] = Array("ARCIMG".utf8) + [0x00, version]
    var consumed = 0
    var pieces = LengthPrefixedPieces(body)
    while let piece = pieces.next() {
        consumed += 2 + piece.count
        guard let kind = piece.first else { continue }
        let payload = piece.dropFirst()
        let length: [UInt8] = [UInt8(payload.count >> 24 & 0xFF), UInt8(payload.count >> 16 & 0xFF),
                               UInt8(payload.count >> 8 & 0xFF), UInt8(payload.count & 0xFF)]
        var record = length + [kind]
        record += payload
        record += SHA256.hash(record).prefix(16)
        if version >= 3 { record += length + [0xA5] }
        image += record
    }
    if rawTail { image += body.dropFirst(min(consumed, body.count)) }
    return image
}

/// The records of a version 3 image as the pieces of a mode-1 input (for seeds).
func checksumModePieces(of image: [UInt8]) -> [[UInt8]] {
    var pieces: [[UInt8]] = []
    var offset = 8
    while image.count - offset >= 5 {
        let length = image[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
        let end = offset + 5 + length + 16 + 5
        guard end <= image.count else { break }
        pieces.append([image[offset + 4]] + image[(offset + 5)..<(offset + 5 + length)])
        offset = end
    }
    return pieces
}
