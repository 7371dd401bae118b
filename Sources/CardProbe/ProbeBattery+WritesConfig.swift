import CBOR
import CardCrypto
import FIDOWire
import JSONSupport

extension ProbeBattery {
    /// Large-blob writes (CTAP 2.1 §6.10.2): without a token, whole, read back, in two fragments,
    /// interrupted between them, with a wrong hash, longer than the card keeps.
    static var writesLargeBlobs: [ProbeEntry] {
        let lbw = Int(PINUVAuthPermissions.largeBlobWrite.rawValue)
        /// A set request for `fragment` at `offset` (`length` with the first), authenticated with `token`.
        func set(_ fragment: [UInt8], offset: Int, length: Int?, token: ProbeToken?) -> CBORMap {
            var request: CBORMap = [.int(LargeBlobsKey.set.rawValue): .bytes(fragment), .int(LargeBlobsKey.offset.rawValue): .int(offset)]
            if let length { request[int: LargeBlobsKey.length.rawValue] = .int(length) }
            if let token {
                let offsetBytes = (0..<4).map { UInt8(truncatingIfNeeded: offset >> (8 * $0)) }
                let message = [UInt8](repeating: 0xFF, count: 32) + [0x0C, 0x00] + offsetBytes + SHA256.hash(fragment)
                request[int: LargeBlobsKey.pinUvAuthParam.rawValue] = .bytes(token.authenticate(message))
                request[int: LargeBlobsKey.pinUvAuthProtocol.rawValue] = .int(token.pinProtocol.version)
            }
            return request
        }
        /// Runs `steps` with an lbw token; every step's answer kept.
        func withLargeBlobToken(_ session: ProbeSession, _ what: JSONValue,
                                _ steps: (ProbeToken) throws(ProbeInterruption) -> [JSONValue]) throws(ProbeInterruption) -> ProbeRecord {
            let (record, token) = try session.token(pin: session.carried.pin, version: 2, permissions: lbw)
            guard let token else { return ProbeRecord(request: record.request, answer: ["token refused": record.answer]) }
            let answers = try steps(token)
            return ProbeRecord(request: what, answer: answers.count == 1 ? answers[0] : .array(answers))
        }
        func sent(_ session: ProbeSession, _ request: CBORMap) throws(ProbeInterruption) -> JSONValue {
            try session.kept(.largeBlobs, request).0.answer
        }
        let array = LargeBlobValues.array
        let half = array.count / 2
        return [
            write("largeBlobs.set-without-token", "largeBlobs set of a whole array without a pinUvAuthParam") { session throws(ProbeInterruption) in
                try session.ctap(.largeBlobs, set(array, offset: 0, length: array.count, token: nil))
            },
            write("largeBlobs.set", "largeBlobs set of a whole array (one entry) with an lbw token") { session throws(ProbeInterruption) in
                try withLargeBlobToken(session, ["largeBlobs set": .string("\(array.count) bytes at offset 0")]) { token throws(ProbeInterruption) in
                    [try sent(session, set(array, offset: 0, length: array.count, token: token))]
                }
            },
            write("largeBlobs.get-after-set", "largeBlobs get of 512 bytes after the set") { session throws(ProbeInterruption) in
                try session.ctap(.largeBlobs, [.int(LargeBlobsKey.get.rawValue): 512, .int(LargeBlobsKey.offset.rawValue): 0])
            },
            write("largeBlobs.get-first-part", "largeBlobs get of 512 bytes after the set, as one APDU: the first part of the answer") {
                session throws(ProbeInterruption) in
                try session.apdu(ISOValues.shortMessage(CTAPMessage.bytes(.largeBlobs, [.int(LargeBlobsKey.get.rawValue): 512,
                                                                                        .int(LargeBlobsKey.offset.rawValue): 0])))
            },
            write("largeBlobs.set-in-two", "largeBlobs set in two fragments") { session throws(ProbeInterruption) in
                try withLargeBlobToken(session, ["largeBlobs set": .string("\(half) bytes at 0, \(array.count - half) at \(half)")]) {
                    token throws(ProbeInterruption) in
                    [try sent(session, set(Array(array[..<half]), offset: 0, length: array.count, token: token)),
                     try sent(session, set(Array(array[half...]), offset: half, length: nil, token: token))]
                }
            },
            write("largeBlobs.set-interrupted", "largeBlobs set in two fragments with getInfo between them") { session throws(ProbeInterruption) in
                try withLargeBlobToken(session, ["largeBlobs set": "first fragment, getInfo, second fragment"]) { token throws(ProbeInterruption) in
                    let first = try sent(session, set(Array(array[..<half]), offset: 0, length: array.count, token: token))
                    _ = try session.exchange(.getInfo, nil)
                    return [first, try sent(session, set(Array(array[half...]), offset: half, length: nil, token: token))]
                }
            },
            write("largeBlobs.set-bad-hash", "largeBlobs set of an array whose trailing hash is wrong") { session throws(ProbeInterruption) in
                try withLargeBlobToken(session, ["largeBlobs set": "an array with a wrong hash"]) { token throws(ProbeInterruption) in
                    [try sent(session, set(LargeBlobValues.arrayWithBadHash, offset: 0, length: array.count, token: token))]
                }
            },
            // 8192: more than any card here keeps (the most, ctap-reference's, is 4096), and a
            // number a JavaCard reads as a 16-bit short.
            write("largeBlobs.set-too-long", "largeBlobs set announcing 8192 bytes") { session throws(ProbeInterruption) in
                try withLargeBlobToken(session, ["largeBlobs set": "a first fragment of 8192 announced"]) { token throws(ProbeInterruption) in
                    [try sent(session, set(Array(array[..<half]), offset: 0, length: 8192, token: token))]
                }
            },
        ]
    }

    /// authenticatorConfig (CTAP 2.1 §6.11): without a token, toggleAlwaysUv on and off again,
    /// setMinPINLength up, down, and with an RP ID list — each with getInfo after it.
    static var writesConfig: [ProbeEntry] {
        let acfg = Int(PINUVAuthPermissions.authenticatorConfig.rawValue)
        func config(_ subcommand: ConfigSubcommand, _ parameters: CBORMap?, token: ProbeToken?) -> CBORMap {
            var request: CBORMap = [.int(ConfigKey.subCommand.rawValue): .int(subcommand.rawValue)]
            if let parameters { request[int: ConfigKey.subCommandParams.rawValue] = .map(parameters) }
            if let token {
                let signed = [UInt8](repeating: 0xFF, count: 32) + [0x0D, UInt8(subcommand.rawValue)]
                    + (parameters.map { CBOREncoder.encode(.map($0)) } ?? [])
                request[int: ConfigKey.pinUvAuthProtocol.rawValue] = .int(token.pinProtocol.version)
                request[int: ConfigKey.pinUvAuthParam.rawValue] = .bytes(token.authenticate(signed))
            }
            return request
        }
        /// The subcommand with an acfg token, then getInfo (as it differs from the start).
        func configured(_ session: ProbeSession, _ subcommand: ConfigSubcommand,
                        _ parameters: CBORMap? = nil) throws(ProbeInterruption) -> ProbeRecord {
            let (tokenRecord, token) = try session.token(pin: session.carried.pin, version: 2, permissions: acfg)
            guard let token else { return ProbeRecord(request: tokenRecord.request, answer: ["token refused": tokenRecord.answer]) }
            let (record, _) = try session.kept(.config, config(subcommand, parameters, token: token))
            let info = session.getInfoAgain(try session.ctap(.getInfo, nil))
            return ProbeRecord(request: record.request, answer: .array([record.answer, info.answer]))
        }
        let minimum = SetMinPINLengthKey.newMinPINLength.rawValue
        return [
            write("config.without-token", "config toggleAlwaysUv without a pinUvAuthParam") { session throws(ProbeInterruption) in
                try session.ctap(.config, config(.toggleAlwaysUv, nil, token: nil))
            },
            write("config.toggleAlwaysUv", "config toggleAlwaysUv, then getInfo") { session throws(ProbeInterruption) in
                try configured(session, .toggleAlwaysUv)
            },
            write("config.toggleAlwaysUv-again", "config toggleAlwaysUv a second time, then getInfo") { session throws(ProbeInterruption) in
                try configured(session, .toggleAlwaysUv)
            },
            write("config.setMinPINLength", "config setMinPINLength to 6, then getInfo") { session throws(ProbeInterruption) in
                try configured(session, .setMinPINLength, [.int(minimum): 6])
            },
            write("config.setMinPINLength-lower", "config setMinPINLength to 4 after 6, then getInfo") { session throws(ProbeInterruption) in
                try configured(session, .setMinPINLength, [.int(minimum): 4])
            },
            write("config.setMinPINLength-rpids", "config setMinPINLength with minPinLengthRPIDs (the probe RP), then getInfo") {
                session throws(ProbeInterruption) in
                try configured(session, .setMinPINLength,
                               [.int(SetMinPINLengthKey.minPinLengthRPIDs.rawValue): .array([.text(ProbeValues.rpID)])])
            },
        ]
    }
}

/// The serialized large-blob arrays the writing part stores (CTAP 2.1 §6.10.2): a CBOR array of
/// one entry, then the first 16 bytes of its SHA-256. Fixed, so that every run sends the same.
enum LargeBlobValues {
    /// `[{1: ciphertext (600 bytes), 2: nonce (12), 3: origSize 584}]`: longer than one short
    /// response, so that reading it back shows how much one response carries.
    static let entries: [UInt8] = CBOREncoder.encode(.array([.map([
        .int(1): .bytes([UInt8](repeating: 0x4C, count: 600)), .int(2): .bytes([UInt8](repeating: 0x4E, count: 12)), .int(3): 584,
    ])]))
    static let array: [UInt8] = entries + SHA256.hash(entries).prefix(16)
    static let arrayWithBadHash: [UInt8] = entries + [UInt8](repeating: 0, count: 16)
}
