import CBOR
import FIDOWire
import Testing

@testable import CTAP2

/// Every request is read by one reader, the pull reader, straight into its message; it must
/// answer exactly what a reading through a CBOR tree answers (``TreeReading``): the same request
/// or the same status, for requests as platforms send them and for every cut and mutation of them.
@Suite("Requests read by the pull reader, held to the tree's reading")
struct MessageReadingTests {
    /// Requests of every command the card reads, generated from a seed.
    static let requests: [[UInt8]] = {
        var generator = MessageGenerator(seed: 1)
        return (0..<42).map { _ in generator.request() }
    }()

    @Test("generated requests: the card reads what the tree reads, on every profile")
    func generated() {
        var read = 0
        for request in Self.requests {
            for profile in CardProfile.builtIn {
                #expect(TreeReading.disagreement(request, profile: profile) == nil, "request \(Hex.string(request))")
            }
            if (try? GetAssertionRequest(decoding: request.dropFirst())) != nil || request.first != CTAPCommand.getAssertion.rawValue {
                read += 1
            }
        }
        #expect(read > 30)
    }

    @Test("every strict prefix of a request is INVALID_CBOR, for both readings", arguments: 0..<42)
    func everyPrefix(index: Int) {
        let request = Self.requests[index]
        for length in 1..<request.count {
            let cut = Array(request.prefix(length))
            #expect(TreeReading.disagreement(cut, profile: .reference) == nil, "prefix \(Hex.string(cut))")
            let status = Result { () throws(CTAPStatus) in try GetAssertionRequest(decoding: cut.dropFirst()) }
            #expect(status == .failure(.invalidCBOR), "prefix of length \(length)")
        }
    }

    @Test("mutated requests: both readings agree, whatever the byte changed", arguments: 0..<14)
    func mutations(index: Int) {
        // The card's own seeded stream, so a failing mutation repeats.
        var generator = MessageGenerator(seed: UInt8(index), 0x9E)
        var differences: [String] = []
        for request in Self.requests[(index * 3)..<(index * 3 + 3)] {
            for _ in 0..<400 {
                var mutated = request
                for _ in 0..<(1 + Int(generator.number(below: 3))) {
                    let position = 1 + Int(generator.number(below: UInt64(mutated.count - 1)))
                    switch generator.number(below: 4) {
                    case 0: mutated[position] ^= UInt8(1 << generator.number(below: 8))
                    case 1: mutated[position] = UInt8(truncatingIfNeeded: generator.number(below: 256))
                    case 2: mutated.insert(UInt8(truncatingIfNeeded: generator.number(below: 256)), at: position)
                    default: mutated.remove(at: position)
                    }
                    if mutated.count < 2 { mutated = [request[0], 0xA0] }
                }
                let profile = CardProfile.builtIn[Int(generator.number(below: 3))]
                if let difference = TreeReading.disagreement(mutated, profile: profile) { differences.append(difference) }
            }
        }
        #expect(differences.isEmpty, "\(differences.prefix(3))")
    }

    /// Written as given, in the order given: the reading sees the order.
    static func map(_ members: [(Int, CBORValue)]) -> [UInt8] {
        var writer = CBORWriter()
        var map = writer.openMap()
        for (key, value) in members {
            writer.key(key, of: &map)
            writer.value(value)
        }
        writer.close(map)
        return writer.bytes
    }

    static let hash = [UInt8](repeating: 1, count: 32)

    /// {"uvm": true, 1: 0, "credBlob": h'01', "x": 2, "hmac-secret": {}}, in that order (not
    /// canonical: "x" and the integer key come before "uvm" there).
    static let unorderedExtensions: [UInt8] = [0xA5, 0x63] + Array("uvm".utf8) + [0xF5, 0x01, 0x00, 0x68] + Array("credBlob".utf8)
        + [0x41, 0x01, 0x61, 0x78, 0x02, 0x6B] + Array("hmac-secret".utf8) + [0xA0]

    @Test("the extensions map is read with its request: the members the card knows, in the order sent, values as sent")
    func extensionMembers() throws {
        let body = Self.map([(1, "rp"), (2, .bytes(Self.hash))]).replacing([0xA2], with: [0xA3], maxReplacements: 1)
            + [0x04] + Self.unorderedExtensions
        let extensions = try #require(try GetAssertionRequest(decoding: body[...]).extensions)
        #expect(extensions.encoded == Self.unorderedExtensions)
        #expect(extensions.values.map(\.key) == [.uvm, .credBlob, .hmacSecret])
        #expect(extensions.values.map { Array($0.value) } == [[0xF5], [0x41, 0x01], [0xA0]])
        // The inputs are read from those members alone: credBlob's, bytes where getAssertion takes a
        // boolean, is CBOR_UNEXPECTED_TYPE where it is offered, ignored where it is not.
        #expect(throws: CTAPStatus.cborUnexpectedType) { try GetAssertionExtensionInputs(extensions, profile: .reference) }
        let inputs = try GetAssertionExtensionInputs(extensions, profile: .arculusFIDO21)
        #expect(inputs.hmacSecret == [0xA0] && !inputs.getCredBlob && !inputs.uvm)
    }

    static let cases: [(String, [UInt8], Result<GetAssertionRequest, CTAPStatus>)] = [
        ("extensions, kept as sent", map([(1, "rp"), (2, .bytes(hash)), (4, .map(["hmac-secret": .bool(true)]))]),
         .success(GetAssertionRequest(rpId: "rp", clientDataHash: hash,
                                      extensions: ExtensionsMap(tree: CBOREncoder.encode(["hmac-secret": .bool(true)]))))),
        ("keys out of order", map([(2, .bytes(hash)), (1, "rp")]), .success(GetAssertionRequest(rpId: "rp", clientDataHash: hash))),
        ("extensions out of order, with unknown and integer keys: the known ones kept in the order sent",
         map([(1, "rp"), (2, .bytes(hash))]).replacing([0xA2], with: [0xA3], maxReplacements: 1) + [0x04] + unorderedExtensions,
         .success(GetAssertionRequest(rpId: "rp", clientDataHash: hash, extensions: ExtensionsMap(tree: unorderedExtensions)))),
        ("an extension named twice", map([(1, "rp"), (2, .bytes(hash))]).replacing([0xA2], with: [0xA3], maxReplacements: 1)
            + [0x04, 0xA2, 0x63, 0x75, 0x76, 0x6D, 0xF5, 0x63, 0x75, 0x76, 0x6D, 0xF4], .failure(.invalidCBOR)),
        ("extensions not a map", map([(1, "rp"), (2, .bytes(hash)), (4, ["uvm"])]), .failure(.cborUnexpectedType)),
        ("an unknown key", map([(1, "rp"), (2, .bytes(hash)), (9, 0)]), .success(GetAssertionRequest(rpId: "rp", clientDataHash: hash))),
        ("a text key", map([(1, "rp"), (2, .bytes(hash))]).replacing([0xA2], with: [0xA3], maxReplacements: 1) + [0x61, 0x61, 0x00],
         .success(GetAssertionRequest(rpId: "rp", clientDataHash: hash))),
        ("a duplicate key", map([(1, "rp"), (1, "rp"), (2, .bytes(hash))]), .failure(.invalidCBOR)),
        ("a duplicate key, out of order", map([(2, .bytes(hash)), (1, "rp"), (2, .bytes(hash))]), .failure(.invalidCBOR)),
        ("a duplicate unknown key", map([(1, "rp"), (2, .bytes(hash)), (9, 0), (9, 1)]), .failure(.invalidCBOR)),
        ("rpId of the wrong type", map([(1, 5), (2, .bytes(hash))]), .failure(.cborUnexpectedType)),
        ("no clientDataHash", map([(1, "rp")]), .failure(.missingParameter)),
        ("no rpId, clientDataHash of the wrong type: rpId is judged first", map([(2, "x")]), .failure(.missingParameter)),
        ("a wrong type, then bytes after the map: malformed CBOR wins", map([(1, 5), (2, .bytes(hash))]) + [0x00],
         .failure(.invalidCBOR)),
        ("no clientDataHash, then a tag: malformed CBOR wins", [0xA2, 0x01, 0x62, 0x72, 0x70, 0x09, 0xC0, 0x00],
         .failure(.cborUnexpectedType)),
        ("no clientDataHash, then text that is not UTF-8", [0xA2, 0x01, 0x62, 0x72, 0x70, 0x09, 0x61, 0xFF],
         .failure(.invalidCBOR)),
        ("a descriptor without type", map([(1, "rp"), (2, .bytes(hash)), (3, [.map(["id": .bytes([1])])])]), .failure(.missingParameter)),
        ("a descriptor with id of the wrong type and no type: type is judged first",
         map([(1, "rp"), (2, .bytes(hash)), (3, [.map(["id": 5])])]), .failure(.missingParameter)),
        ("an allow list judged before the options", map([(1, "rp"), (2, .bytes(hash)), (3, [.map([:])]), (5, 7)]), .failure(.missingParameter)),
        ("options out of order", // the encoder would sort them: "uv" then "up" by hand
         map([(1, "rp"), (2, .bytes(hash))]).replacing([0xA2], with: [0xA3], maxReplacements: 1)
            + [0x05, 0xA2, 0x62, 0x75, 0x76, 0xF4, 0x62, 0x75, 0x70, 0xF4],
         .success(GetAssertionRequest(rpId: "rp", clientDataHash: hash, options: ["up": false, "uv": false]))),
        ("an option named twice", map([(1, "rp"), (2, .bytes(hash))]).replacing([0xA2], with: [0xA3], maxReplacements: 1)
            + [0x05, 0xA2, 0x62, 0x75, 0x70, 0xF4, 0x62, 0x75, 0x70, 0xF5], .failure(.invalidCBOR)),
        ("an option not a boolean", map([(1, "rp"), (2, .bytes(hash)), (5, ["up": 1])]), .failure(.cborUnexpectedType)),
        ("a non-shortest head", [0xB8, 0x01, 0x01, 0x62, 0x72, 0x70], .failure(.invalidCBOR)),
        ("trailing bytes", map([(1, "rp"), (2, .bytes(hash))]) + [0x00], .failure(.invalidCBOR)),
        ("not a map", [0x80], .failure(.cborUnexpectedType)),
        ("not a map, and a float inside", [0x81, 0xF9, 0x3C, 0x00], .failure(.cborUnexpectedType)),
        ("nine levels deep", map([(1, "rp"), (2, .bytes(hash)), (9, [[[[[[[[0]]]]]]]])]), .failure(.invalidCBOR)),
    ]

    @Test("the exact answer to each shape, and the tree's", arguments: 0..<cases.count)
    func shapes(index: Int) {
        let (name, body, expected) = Self.cases[index]
        let read = Result { () throws(CTAPStatus) in try GetAssertionRequest(decoding: body[...]) }
        #expect(read == expected, "\(name)")
        #expect(TreeReading.getAssertion(body[...]) == expected, "\(name), through the tree")
    }
}
