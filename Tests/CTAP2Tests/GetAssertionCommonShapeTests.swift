import CBOR
import FIDOWire
import Testing

@testable import CTAP2

/// getAssertion requests in the common shape are read without a CBOR tree; that reading must
/// give exactly the tree's request wherever it answers, and leave everything else to the tree.
@Suite("getAssertion requests read without a tree")
struct GetAssertionCommonShapeTests {
    /// Requests of every shape platforms send.
    static let requests: [GetAssertionRequest] = {
        let hash = (0..<32).map { UInt8($0) }
        let id = Array(repeating: UInt8(0xC7), count: 100)
        return [
            GetAssertionRequest(rpId: "example.com", clientDataHash: hash),
            GetAssertionRequest(rpId: "example.com", clientDataHash: hash, allowList: [CredentialDescriptor(id: id)]),
            GetAssertionRequest(rpId: "a-rather-long-relying-party.example.org", clientDataHash: hash,
                                allowList: [CredentialDescriptor(id: [1]), CredentialDescriptor(type: "x", id: id),
                                            CredentialDescriptor(id: Array(repeating: 9, count: 300),
                                                                 transports: [.text("nfc"), .text("usb")])],
                                options: ["up": false]),
            GetAssertionRequest(rpId: "bücher.example", clientDataHash: hash, options: ["up": true, "uv": false, "rk": true],
                                pinUvAuthParam: Array(repeating: 0x5A, count: 32), pinUvAuthProtocol: 2),
            GetAssertionRequest(rpId: "", clientDataHash: [], pinUvAuthParam: [], pinUvAuthProtocol: 1),
            GetAssertionRequest(rpId: "example.com", clientDataHash: hash, options: ["a": true, "up": false, "long-name": true]),
        ]
    }()

    @Test("every common request is read directly, and as the tree reads it", arguments: 0..<6)
    func commonShape(index: Int) throws {
        let body = Self.requests[index].encoded()
        let direct = try #require(GetAssertionRequest(commonShape: body[...]))
        #expect(direct == (try GetAssertionRequest(decodingTree: body[...])))
        #expect(direct == Self.requests[index])
    }

    @Test("mutated and cut requests: the direct reading answers only where the tree reads the same", arguments: 0..<6)
    func mutations(index: Int) {
        let body = Self.requests[index].encoded()
        // The card's own seeded stream, so a failing mutation repeats.
        var stream = CardRandom(.seeded([UInt8(index), 0x9E, 0x37]))
        func next() -> UInt64 { stream.bytes(8).reduce(0) { $0 << 8 | UInt64($1) } }
        var inputs: [[UInt8]] = (0..<body.count).map { Array(body.prefix($0)) }
        for _ in 0..<3_000 {
            var mutated = body
            for _ in 0..<(1 + Int(next() % 3)) {
                let position = Int(next() % UInt64(mutated.count))
                switch next() % 4 {
                case 0: mutated[position] ^= UInt8(1 << (next() % 8))
                case 1: mutated[position] = UInt8(truncatingIfNeeded: next())
                case 2: mutated.insert(UInt8(truncatingIfNeeded: next()), at: position)
                default: mutated.remove(at: position)
                }
                if mutated.isEmpty { mutated = [0xA0] }
            }
            inputs.append(mutated)
        }
        var answered = 0
        for input in inputs {
            guard let direct = GetAssertionRequest(commonShape: input[...]) else { continue }
            answered += 1
            let tree = Result { () throws(CTAPStatus) in try GetAssertionRequest(decodingTree: input[...]) }
            #expect(tree == .success(direct), "input \(input.map { String(format: "%02x", $0) }.joined())")
        }
        #expect(answered > 0, "some mutations keep the common shape")
    }

    @Test("outside the common shape the tree answers, with its own errors")
    func otherShapes() throws {
        let hash = [UInt8](repeating: 1, count: 32)
        func map(_ members: [(Int, CBORValue)]) -> [UInt8] {
            // Written in the order given, not sorted: the direct reading sees the order.
            var writer = CBORWriter()
            var map = writer.openMap()
            for (key, value) in members {
                writer.key(key, of: &map)
                writer.value(value)
            }
            writer.close(map)
            return writer.bytes
        }
        let cases: [(String, [UInt8], Result<GetAssertionRequest, CTAPStatus>)] = [
            ("extensions", map([(1, "rp"), (2, .bytes(hash)), (4, .map(["hmac-secret": .bool(true)]))]),
             .success(GetAssertionRequest(rpId: "rp", clientDataHash: hash, extensions: ["hmac-secret": .bool(true)]))),
            ("keys out of order", map([(2, .bytes(hash)), (1, "rp")]), .success(GetAssertionRequest(rpId: "rp", clientDataHash: hash))),
            ("an unknown key", map([(1, "rp"), (2, .bytes(hash)), (9, 0)]), .success(GetAssertionRequest(rpId: "rp", clientDataHash: hash))),
            ("a duplicate key", map([(1, "rp"), (1, "rp"), (2, .bytes(hash))]), .failure(.invalidCBOR)),
            ("rpId of the wrong type", map([(1, 5), (2, .bytes(hash))]), .failure(.cborUnexpectedType)),
            ("no clientDataHash", map([(1, "rp")]), .failure(.missingParameter)),
            ("a descriptor without type", map([(1, "rp"), (2, .bytes(hash)), (3, [.map(["id": .bytes([1])])])]),
             .failure(.missingParameter)),
            ("options out of order", // the encoder would sort them: "uv" then "up" by hand
             map([(1, "rp"), (2, .bytes(hash))]).replacing([0xA2], with: [0xA3], maxReplacements: 1)
                + [0x05, 0xA2, 0x62, 0x75, 0x76, 0xF4, 0x62, 0x75, 0x70, 0xF4],
             .success(GetAssertionRequest(rpId: "rp", clientDataHash: hash, options: ["up": false, "uv": false]))),
            ("a non-shortest head", [0xB8, 0x01, 0x01, 0x62, 0x72, 0x70], .failure(.invalidCBOR)),
            ("trailing bytes", map([(1, "rp"), (2, .bytes(hash))]) + [0x00], .failure(.invalidCBOR)),
        ]
        for (name, body, expected) in cases {
            #expect(GetAssertionRequest(commonShape: body[...]) == nil, "\(name) is not the common shape")
            let decoded = Result { () throws(CTAPStatus) in try GetAssertionRequest(decoding: body[...]) }
            #expect(decoded == expected, "\(name)")
        }
    }
}

