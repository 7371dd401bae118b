import CardCrypto

/// U2F (CTAP1) messages taken apart (FIDO U2F Raw Message Formats §4.3, §5.4).
enum U2FMessageView {
    /// A REGISTER request's data: challenge parameter, application parameter.
    struct RegisterRequest {
        var challenge: [UInt8]
        var application: [UInt8]

        init?(_ data: [UInt8]) {
            guard data.count == 64 else { return nil }
            challenge = Array(data[0..<32])
            application = Array(data[32..<64])
        }
    }

    /// An AUTHENTICATE request's data: challenge, application, key handle.
    struct AuthenticateRequest {
        var challenge: [UInt8]
        var application: [UInt8]
        var keyHandle: [UInt8]

        init?(_ data: [UInt8]) {
            guard data.count >= 65, data.count == 65 + Int(data[64]) else { return nil }
            challenge = Array(data[0..<32])
            application = Array(data[32..<64])
            keyHandle = Array(data[65...])
        }
    }

    /// A REGISTER response: reserved byte `05`, user public key, key handle, attestation
    /// certificate, signature.
    struct RegisterResponse {
        var reserved: UInt8
        var publicKey: [UInt8]
        var keyHandle: [UInt8]
        var certificate: [UInt8]
        var signature: [UInt8]

        init?(_ data: [UInt8]) {
            guard data.count > 67 else { return nil }
            reserved = data[0]
            publicKey = Array(data[1..<66])
            let handleLength = Int(data[66])
            var rest = data[67...]
            guard rest.count >= handleLength else { return nil }
            keyHandle = Array(rest.prefix(handleLength))
            rest = rest.dropFirst(handleLength)
            guard let certificateLength = Self.derLength(rest), rest.count >= certificateLength else { return nil }
            certificate = Array(rest.prefix(certificateLength))
            signature = Array(rest.dropFirst(certificateLength))
        }

        /// The bytes the attestation signature covers (§4.3).
        func signedData(_ request: RegisterRequest) -> [UInt8] {
            [0x00] + request.application + request.challenge + keyHandle + publicKey
        }

        /// Length of the DER SEQUENCE at the front of `bytes`, header included.
        private static func derLength(_ bytes: ArraySlice<UInt8>) -> Int? {
            let start = bytes.startIndex
            guard bytes.count >= 2, bytes[start] == 0x30 else { return nil }
            let first = Int(bytes[start + 1])
            if first < 0x80 { return 2 + first }
            let count = first & 0x7F
            guard (1...3).contains(count), bytes.count >= 2 + count else { return nil }
            var length = 0
            for index in 0..<count { length = length << 8 | Int(bytes[start + 2 + index]) }
            return 2 + count + length
        }
    }

    /// An AUTHENTICATE response: user presence byte, counter, signature.
    struct AuthenticateResponse {
        var userPresence: UInt8
        var counter: UInt32
        var signature: [UInt8]

        init?(_ data: [UInt8]) {
            guard data.count > 5 else { return nil }
            userPresence = data[0]
            counter = data[1..<5].reduce(0) { $0 << 8 | UInt32($1) }
            signature = Array(data[5...])
        }

        /// The bytes the signature covers (§5.4).
        func signedData(_ request: AuthenticateRequest) -> [UInt8] {
            request.application + [userPresence] + withUnsafeBytes(of: counter.bigEndian, Array.init) + request.challenge
        }
    }
}
