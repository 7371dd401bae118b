import ArculusCard
import Foundation
import Transcript
import FIDOWire
import TestSupport

/// A host side for tests: speaks ISO 7816 / NFCCTAP to a card the way python-fido2 or
/// libfido2 do, so recordings have the framing real clients produce.
struct TestHost {
    /// How a client frames its APDUs.
    struct Style {
        /// Command data per chained piece.
        var chunkSize: Int
        /// CLA of GET RESPONSE.
        var getResponseClass: UInt8
        /// Le of GET RESPONSE: nil for "SW2 of the 61xx", else this byte.
        var getResponseLe: UInt8?

        /// python-fido2's `CtapPcscDevice`: 250-byte pieces, `00 C0 00 00 <SW2>`.
        static let pythonFIDO2 = Style(chunkSize: 250, getResponseClass: 0x00, getResponseLe: nil)
        /// libfido2's `nfc.c`: 240-byte pieces, GET RESPONSE with class `80`.
        static let libfido2 = Style(chunkSize: 240, getResponseClass: 0x80, getResponseLe: 0x00)
    }

    let card: any TranscriptCard
    var style: Style = .pythonFIDO2

    static let selectAPDU: [UInt8] = NFCBinding.selectFIDOApplet

    /// SELECT of the FIDO applet; returns data + SW.
    func select() -> [UInt8] {
        exchange(cla: 0x00, ins: 0xA4, p1: 0x04, p2: 0x00, data: NFCBinding.fidoAID)
    }

    /// One CTAP2 request over NFCCTAP_MSG (P1 `80`: polls `9100`); returns status + CBOR.
    func ctap(_ command: CTAPCommand, _ parameters: CBORMap? = nil) -> [UInt8] {
        var request: [UInt8] = [command.rawValue]
        if let parameters { request += CBOREncoder.encode(.map(parameters)) }
        return ctap(raw: request)
    }

    /// A raw CTAP2 request; returns status + CBOR (or the bytes + SW on an ISO error).
    func ctap(raw request: [UInt8]) -> [UInt8] {
        var response = exchange(cla: 0x80, ins: 0x10, p1: 0x80, p2: 0x00, data: request)
        var polls = 0
        while response.suffix(2) == [0x91, 0x00], polls < 50 {
            response = exchange(cla: 0x80, ins: 0x11, p1: 0x00, p2: 0x00, data: [])
            polls += 1
        }
        guard response.suffix(2) == [0x90, 0x00] else { return response }
        return Array(response.dropLast(2))
    }

    /// The typed body of a CTAP2 response.
    func ctapBody(_ command: CTAPCommand, _ parameters: CBORMap? = nil) throws -> CBORMap {
        let response = ctap(command, parameters)
        guard response.first == 0x00 else { throw TestFailure("\(command.name) failed: \(response.hexString)") }
        return response.count > 1 ? (try CBORDecoder.decode(Array(response.dropFirst()))).mapValue ?? CBORMap() : CBORMap()
    }

    /// U2F REGISTER; returns data + SW.
    func u2fRegister(challenge: [UInt8], application: [UInt8]) -> [UInt8] {
        exchange(cla: 0x00, ins: 0x01, p1: 0x03, p2: 0x00, data: challenge + application)
    }

    /// U2F AUTHENTICATE; returns data + SW.
    func u2fAuthenticate(control: UInt8 = 0x03, challenge: [UInt8], application: [UInt8], keyHandle: [UInt8]) -> [UInt8] {
        exchange(cla: 0x00, ins: 0x02, p1: control, p2: 0x00, data: challenge + application + [UInt8(keyHandle.count)] + keyHandle)
    }

    /// Sends a command with chaining and collects the response through GET RESPONSE.
    func exchange(cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8]) -> [UInt8] {
        var rest = data[...]
        while rest.count > style.chunkSize {
            let piece = rest.prefix(style.chunkSize)
            rest = rest.dropFirst(style.chunkSize)
            let answer = card.transmit([cla | 0x10, ins, p1, p2, UInt8(piece.count)] + piece)
            guard answer.suffix(2) == [0x90, 0x00] else { return answer }
        }
        var apdu: [UInt8] = [cla, ins, p1, p2]
        if !rest.isEmpty { apdu += [UInt8(rest.count)] + rest }
        apdu.append(0x00)
        var response = card.transmit(apdu)
        var collected: [UInt8] = []
        while response.count >= 2, response[response.count - 2] == 0x61 {
            collected += response.dropLast(2)
            let le = style.getResponseLe ?? response[response.count - 1]
            response = card.transmit([style.getResponseClass, 0xC0, 0x00, 0x00, le])
        }
        return collected + response
    }
}

/// Requests the tests send.
enum Requests {
    static let rp: CBORValue = .map(["id": "example.com", "name": "Example"])
    static let es256: CBORValue = .array([.map(["alg": -7, "type": "public-key"])])

    static func user(_ name: String, id: [UInt8]) -> CBORValue {
        .map(["id": .bytes(id), "name": .text(name), "displayName": .text(name.capitalized)])
    }

    static func clientDataHash(_ text: String) -> [UInt8] {
        Array(text.utf8.prefix(32)) + [UInt8](repeating: 0x5A, count: max(0, 32 - text.utf8.count))
    }

    /// makeCredential parameters; `rk` for a discoverable credential.
    static func makeCredential(user name: String = "alice", userId: [UInt8] = Array("user-alice".utf8), rk: Bool = false,
                               excludeList: [[UInt8]] = [], clientData: String = "make") -> CBORMap {
        var map: CBORMap = [1: .bytes(clientDataHash(clientData)), 2: rp, 3: user(name, id: userId), 4: es256]
        if !excludeList.isEmpty { map[int: 5] = .array(excludeList.map { .map(["id": .bytes($0), "type": "public-key"]) }) }
        if rk { map[int: 7] = .map(["rk": true]) }
        return map
    }

    /// getAssertion parameters for `example.com`, with an allow list when IDs are given.
    static func getAssertion(allow: [[UInt8]] = [], clientData: String = "get") -> CBORMap {
        var map: CBORMap = [1: "example.com", 2: .bytes(clientDataHash(clientData))]
        if !allow.isEmpty { map[int: 3] = .array(allow.map { .map(["id": .bytes($0), "type": "public-key"]) }) }
        return map
    }

    /// The credential ID in a makeCredential response's authenticator data.
    static func credentialID(_ body: CBORMap) throws -> [UInt8] {
        guard let authData = body[int: 2]?.bytesValue, authData.count > 55 else { throw TestFailure("no authData") }
        let length = Int(authData[53]) << 8 | Int(authData[54])
        return Array(authData[55..<55 + length])
    }
}

/// The transcript fixtures' folder.
extension Repository {
    static let transcripts = fixtures.appendingPathComponent("transcripts").path

    /// Every transcript fixture, by file name.
    static func fixtureNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: transcripts)) ?? [])
            .filter { $0.hasSuffix(".transcript") }.sorted()
    }
}

/// A fixed seed for deterministic cards in tests.
let testSeed: [UInt8] = Array(0..<32)
