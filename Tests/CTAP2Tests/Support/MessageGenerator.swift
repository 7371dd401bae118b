import CBOR
import FIDOWire

@testable import CTAP2

/// Messages made from a seed (the card's own seeded stream, so a failing case repeats): every
/// member present or absent by chance, values of every length class, text beyond ASCII, trees
/// of every kind where a message carries one as it is (COSE keys, attestation statements).
struct MessageGenerator {
    private var stream: CardRandom

    init(seed: UInt8...) { stream = CardRandom(.seeded([0x4D, 0x47] + seed)) }

    mutating func number(below bound: UInt64) -> UInt64 {
        stream.bytes(8).reduce(0) { $0 << 8 | UInt64($1) } % bound
    }

    mutating func chance() -> Bool { number(below: 2) == 0 }

    mutating func maybe<Value>(_ make: (inout MessageGenerator) -> Value) -> Value? { chance() ? make(&self) : nil }

    /// A count of the length classes a head distinguishes: 0, 1–23, 24–255, 256+.
    mutating func length(upTo limit: Int = 300) -> Int {
        switch number(below: 4) {
        case 0: 0
        case 1: Int(number(below: 23)) + 1
        case 2: min(limit, Int(number(below: 232)) + 24)
        default: min(limit, Int(number(below: 64)) + 256)
        }
    }

    mutating func bytes(upTo limit: Int = 300) -> [UInt8] { stream.bytes(length(upTo: limit)) }

    mutating func text() -> String {
        let pieces = ["a", "id", "é", "水", "𐅑", "example.com", "-", "Ä", "z"]
        return (0..<Int(number(below: 6))).map { _ in pieces[Int(number(below: UInt64(pieces.count)))] }.joined()
    }

    mutating func unsigned() -> UInt64 { [0, 23, 24, 255, 256, 65_536, .max][Int(number(below: 7))] &- number(below: 2) }

    /// A small non-negative integer an `Int` member holds.
    mutating func count() -> Int { Int(number(below: 70_000)) }

    mutating func tree(depth: Int = 2) -> CBORValue {
        switch number(below: depth > 0 ? 9 : 7) {
        case 0: return .unsigned(unsigned())
        case 1: return .negative(unsigned())
        case 2: return .bytes(bytes(upTo: 40))
        case 3: return .text(text())
        case 4: return .bool(chance())
        case 5: return .null
        case 6: return .undefined
        case 7: return .array((0..<Int(number(below: 4))).map { _ in tree(depth: depth - 1) })
        default:
            var map = CBORMap()
            for _ in 0..<number(below: 4) { map[tree(depth: 0)] = tree(depth: depth - 1) }
            return .map(map)
        }
    }

    /// A map as a platform sends it, canonical.
    mutating func encodedMap() -> [UInt8] {
        var map = CBORMap()
        for _ in 0..<number(below: 4) { map[.text(text())] = tree() }
        return CBOREncoder.encode(.map(map))
    }

    mutating func options() -> [String: Bool] {
        Dictionary((0..<Int(number(below: 4))).map { _ in (["up", "uv", "rk", text()][Int(number(below: 4))], chance()) },
                   uniquingKeysWith: { first, _ in first })
    }

    mutating func descriptor() -> CredentialDescriptor {
        CredentialDescriptor(type: chance() ? "public-key" : text(), id: bytes(),
                             transports: maybe { $0.chance() ? [.text("nfc"), .text("usb")] : [$0.tree()] })
    }

    mutating func descriptors() -> [CredentialDescriptor] { (0..<Int(number(below: 4))).map { _ in descriptor() } }

    mutating func user() -> CredentialUser {
        CredentialUser(id: bytes(upTo: 64), name: maybe { $0.text() }, displayName: maybe { $0.text() })
    }

    mutating func relyingParty() -> RelyingPartyEntity { RelyingPartyEntity(id: text(), name: maybe { $0.text() }) }
}
