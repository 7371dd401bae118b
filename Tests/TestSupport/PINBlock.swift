import CardCrypto

/// The 64-byte zero-padded PIN block of setPIN and changePIN (CTAP 2.1 §6.5.5.5); a PIN of more
/// than 64 bytes is left whole, for tests of what the card does with it.
public func paddedPIN(_ pin: String) -> [UInt8] {
    let bytes = Array(pin.utf8)
    return bytes + [UInt8](repeating: 0, count: max(0, 64 - bytes.count))
}

/// LEFT(SHA-256(pin), 16): the PIN hash a platform encrypts into pinHashEnc.
public func pinHash(_ pin: String) -> [UInt8] {
    Array(SHA256.hash(Array(pin.utf8)).prefix(16))
}
