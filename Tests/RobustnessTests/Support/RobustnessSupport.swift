import FIDOWire
import ArculusCard
import CardCrypto
import Foundation
import Testing

func readFile(_ path: String) throws -> [UInt8] {
    Array(try Data(contentsOf: URL(fileURLWithPath: path)))
}

func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// The entropy seed of the deterministic cards these tests use.
let testSeed: [UInt8] = Array("robustness tests".utf8)

/// APDUs as python-fido2 sends them (CTAP 2.1 §11.3, README "CTAP over NFC").
enum APDU {
    static let select: [UInt8] = NFCBinding.selectFIDOApplet
    static let getInfo: [UInt8] = [0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x00]

    /// NFCCTAP_MSG with `data` in one short APDU (P1 00), Le 00.
    static func ctap(_ data: [UInt8], p1: UInt8 = 0x00) -> [UInt8] {
        precondition(!data.isEmpty && data.count <= 255)
        return [0x80, 0x10, p1, 0x00, UInt8(data.count)] + data + [0x00]
    }
}

extension VirtualCard {
    /// A CTAP2 request through the front as python-fido2 sends it: NFCCTAP_MSG chained in 250-byte
    /// pieces, the response collected with GET RESPONSE. Returns status byte + CBOR.
    func ctapThroughFront(_ request: [UInt8]) -> [UInt8] {
        var rest = request[...]
        while rest.count > 250 {
            _ = transmit([0x90, 0x10, 0x00, 0x00, 250] + rest.prefix(250))
            rest = rest.dropFirst(250)
        }
        var response = transmit([0x80, 0x10, 0x00, 0x00, UInt8(rest.count)] + rest + [0x00])
        var data = Array(response.dropLast(2))
        while response.count >= 2, response[response.count - 2] == 0x61 {
            response = transmit([0x00, 0xC0, 0x00, 0x00, response[response.count - 1]])
            data += response.dropLast(2)
        }
        return data
    }

    /// Whether the card answers normally: SELECT → the applet's version + 9000, then getInfo
    /// through NFCCTAP_MSG → CTAP2_OK + 9000. No power cycle in between: a bad input must not
    /// leave the card needing one.
    func answersNormally() -> Bool {
        let select = transmit(APDU.select)
        guard select.suffix(2) == [0x90, 0x00], select.count > 2 else { return false }
        let info = transmit(APDU.getInfo)
        return info.suffix(2) == [0x90, 0x00] && info.first == 0x00 && info.count > 3
    }
}

/// A deterministic in-memory card, on the machine's clock or on `clock`.
func makeCard(_ profile: CardProfile = .arculusFIDO21, frontOptions: CardFront.Options = .init(),
              clock: @escaping () -> CardInstant = CardInstant.monotonicNow) throws -> VirtualCard {
    try VirtualCard(profile: profile, storage: InMemoryStorage(), frontOptions: frontOptions, entropy: .seeded(testSeed),
                    clock: clock)
}

