import FIDOWire

extension [UInt8] {
    /// A 16-byte AAGUID as a UUID string: 8-4-4-4-12 lower-case hex digits (`3f59672f-20aa-…`).
    var aaguidText: String {
        var text = hexString
        for index in [20, 16, 12, 8] where text.count > index {
            text.insert("-", at: text.index(text.startIndex, offsetBy: index))
        }
        return text
    }
}
