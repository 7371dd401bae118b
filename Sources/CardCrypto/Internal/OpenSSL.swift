internal import COpenSSL

/// Helpers turning OpenSSL's C calling conventions into Swift ones.
enum OpenSSL {
    /// Throws `function`'s OpenSSL error unless `result` is 1, OpenSSL's usual success value.
    static func check(_ result: Int32, _ function: String) throws {
        guard result == 1 else { throw CryptoError.openSSL(function) }
    }

    /// Returns `result` when it is positive (a length or count), otherwise throws `function`'s OpenSSL error.
    @discardableResult
    static func checkPositive(_ result: Int32, _ function: String) throws -> Int {
        guard result > 0 else { throw CryptoError.openSSL(function) }
        return Int(result)
    }

    /// Unwraps a pointer returned by `function`, throwing its OpenSSL error on NULL.
    static func nonNull<T>(_ pointer: T?, _ function: String) throws -> T {
        guard let pointer else { throw CryptoError.openSSL(function) }
        return pointer
    }

    /// Runs `body` and traps with the error's description if it throws.
    ///
    /// Used by the non-throwing primitives (hashes, HMAC, HKDF, encoders) whose
    /// OpenSSL calls can only fail if memory runs out or libcrypto is broken.
    static func mustSucceed<R>(_ body: () throws -> R) -> R {
        do {
            return try body()
        } catch {
            fatalError("CardCrypto: \(error)")
        }
    }

    /// Calls `body` with a non-NULL pointer to `bytes` and their count.
    ///
    /// An empty Swift array may have no storage (a nil base address), but some
    /// OpenSSL calls read NULL as "value absent" rather than "empty value".
    static func withBytes<R>(_ bytes: [UInt8], _ body: (UnsafePointer<UInt8>, Int) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { buffer in
            if let base = buffer.baseAddress {
                return try body(base, buffer.count)
            }
            var placeholder: UInt8 = 0
            return try withUnsafePointer(to: &placeholder) { try body($0, 0) }
        }
    }

    /// Decodes exactly one DER object with a `d2i_*` call: `decode` gets the cursor and the
    /// input's length and returns the object (throwing `function`'s error when it is NULL). Empty
    /// input and bytes after the object throw with `function` ("trailing bytes after `what`").
    static func decodeDER<Object>(_ der: [UInt8], _ function: String, what: String,
                                  _ decode: (UnsafeMutablePointer<UnsafePointer<UInt8>?>, Int) throws -> Object) throws -> Object {
        try der.withUnsafeBufferPointer { buffer in
            guard let start = buffer.baseAddress, !buffer.isEmpty else {
                throw CryptoError.invalidInput(function, "empty input")
            }
            guard buffer.count <= Int(Int32.max) else {
                throw CryptoError.invalidInput(function, "input too large")
            }
            var cursor: UnsafePointer<UInt8>? = start
            let object = try decode(&cursor, buffer.count)
            guard cursor == start + buffer.count else {
                throw CryptoError.invalidInput(function, "trailing bytes after \(what)")
            }
            return object
        }
    }

    /// The DER an `i2d_*` call writes: `encode` is called once with NULL for the length, then
    /// with a cursor into a buffer of that length.
    static func encodeDER(_ function: String,
                          _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32) throws -> [UInt8] {
        let length = try checkPositive(encode(nil), function)
        var out = [UInt8](repeating: 0, count: length)
        try out.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            try checkPositive(encode(&cursor), function)
        }
        return out
    }

    /// Creates an empty in-memory BIO.
    static func makeMemoryBIO() throws -> OpenSSLObject<OpaquePointer> {
        try OpenSSLObject(BIO_new(BIO_s_mem()), "BIO_new", release: { BIO_free_all($0) })
    }

    /// Creates a read-only in-memory BIO over `storage`. OpenSSL copies nothing,
    /// so the returned BIO must not outlive `storage`.
    static func makeReadOnlyBIO(over storage: UnsafeRawBufferPointer, function: String) throws -> OpenSSLObject<OpaquePointer> {
        guard let base = storage.baseAddress, !storage.isEmpty else {
            throw CryptoError.invalidInput(function, "empty input")
        }
        guard storage.count <= Int(Int32.max) else {
            throw CryptoError.invalidInput(function, "input too large")
        }
        return try OpenSSLObject(BIO_new_mem_buf(base, Int32(storage.count)), "BIO_new_mem_buf", release: { BIO_free_all($0) })
    }

    /// Everything written so far to a memory BIO, decoded as UTF-8.
    static func contents(ofMemoryBIO bio: OpaquePointer) -> String {
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = copenssl_BIO_get_mem_data(bio, &data)
        guard let data, length > 0 else { return "" }
        let bytes = UnsafeRawBufferPointer(start: data, count: length)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Copies a BIGNUM into a big-endian buffer of exactly `count` bytes, left-padded with zeros.
    static func bytes(of bigNumber: OpaquePointer, count: Int, function: String) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: count)
        let written = BN_bn2binpad(bigNumber, &out, Int32(count))
        guard written == Int32(count) else {
            throw CryptoError.invalidInput(function, "number does not fit in \(count) bytes")
        }
        return out
    }
}
