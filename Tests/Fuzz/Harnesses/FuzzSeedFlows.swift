import ArculusCard
import CardCrypto
import FIDOWire
import TestSupport

// The scripted flows the seed corpora are recorded from (FuzzSeeds.swift): what python-fido2 and
// the Arculus app do with a card, plus misuse. Compiled into the `card` target only.

/// A client that talks to a card in APDUs as python-fido2 does (short APDUs chained in
/// 250-byte pieces, GET RESPONSE while 61xx) and records every command APDU it sends.
final class RecordingNFCClient {
    private let box: FuzzCardBox
    /// The APDUs sent, an empty one for each power cycle.
    private(set) var apdus: [[UInt8]] = []
    /// The CTAP requests sent, an empty one for each power cycle.
    private(set) var requests: [[UInt8]] = []

    init(card: FuzzCard) { box = FuzzCardBox(card) }

    func transmit(_ apdu: [UInt8]) -> [UInt8] {
        apdus.append(apdu)
        return box.card.transmit(apdu).response
    }

    func powerCycle() {
        apdus.append([])
        requests.append([])
        box.card.powerCycle()
    }

    func select() { _ = transmit([0x00, 0xA4, 0x04, 0x00, 0x08] + NFCBinding.fidoAID + [0x00]) }

    /// NFCCTAP_MSG with command chaining and GET RESPONSE, as python-fido2 sends it.
    func ctap(_ request: [UInt8], extended: Bool = false) -> [UInt8] {
        requests.append(request)
        var response: [UInt8]
        if extended {
            response = transmit([0x80, 0x10, 0x00, 0x00, 0x00, UInt8(request.count >> 8), UInt8(request.count & 0xFF)] + request + [0x00, 0x00])
        } else {
            var rest = request[...]
            while rest.count > 250 {
                _ = transmit([0x90, 0x10, 0x00, 0x00, 250] + rest.prefix(250))
                rest = rest.dropFirst(250)
            }
            response = transmit([0x80, 0x10, 0x00, 0x00, UInt8(rest.count)] + rest + [0x00])
        }
        var data = Array(response.dropLast(2))
        while response.count >= 2, response[response.count - 2] == 0x61 {
            response = transmit([0x00, 0xC0, 0x00, 0x00, response[response.count - 1]])
            data += response.dropLast(2)
        }
        return data
    }
}

extension SeedWriter {
    struct Flow {
        let name: String
        let baseline: FuzzBaseline
        var selectorBits: UInt8 = 0
        let run: (RecordingNFCClient) throws -> Void
    }

    static var flows: [Flow] { [
        Flow(name: "select-getinfo", baseline: .blank21) { client in
            client.select()
            _ = client.ctap([CTAPByte.getInfo])
        },
        Flow(name: "select-getinfo-busy", baseline: .blank21, selectorBits: 0x10) { client in
            client.select()
            _ = client.transmit([0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00])
            _ = client.transmit([0x80, 0x11, 0x00, 0x00, 0x00])
            _ = client.transmit([0x80, 0x11, 0x00, 0x00, 0x00])
            _ = client.transmit([0x80, 0x11, 0x00, 0x00, 0x00])
            _ = client.transmit([0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00])
            _ = client.transmit([0x80, 0x11, 0x11, 0x00])
        },
        Flow(name: "setpin-token-makecredential-getassertion", baseline: .blank21) { client in
            client.select()
            let platform = PlatformClient(send: { client.ctap($0) })
            _ = platform.pinRetries()
            _ = try platform.setPIN(fuzzPIN, protocol: 2)
            let token = try platform.token(fuzzPIN, protocol: 2, permissions: 0x03, rpId: "example.com").get()
            var make = PlatformClient.makeCredentialRequest(userId: [7], userName: "alice", rk: true, token: token)
            make[int: 6] = .map(["credProtect": 2, "hmac-secret": true])
            _ = platform.call(CTAPByte.makeCredential, make)
            let token2 = try platform.token(fuzzPIN, protocol: 2, permissions: 0x02).get()
            _ = platform.call(CTAPByte.getAssertion, PlatformClient.getAssertionRequest(token: token2))
            _ = try platform.changePIN(from: fuzzPIN, to: "56789", protocol: 2)
        },
        Flow(name: "setpin-protocol1-noncredential", baseline: .blank21) { client in
            client.select()
            let platform = PlatformClient(send: { client.ctap($0) })
            _ = try platform.setPIN(fuzzPIN, protocol: 1)
            let token = try platform.token(fuzzPIN, protocol: 1).get()
            let made = platform.call(CTAPByte.makeCredential,
                                     PlatformClient.makeCredentialRequest(userId: [8], rk: false, token: token))
            let id = PlatformClient.credential(fromMakeCredential: made)?.id ?? []
            _ = platform.call(CTAPByte.getAssertion, PlatformClient.getAssertionRequest(allow: [id, [1, 2, 3]]))
            _ = platform.call(CTAPByte.selection)
        },
        Flow(name: "discoverable-getnextassertion-credmgmt", baseline: .populated21) { client in
            client.select()
            let platform = PlatformClient(send: { client.ctap($0) })
            let token = try platform.token(fuzzPIN, protocol: 2, permissions: 0x06).get()
            _ = platform.call(CTAPByte.getAssertion, PlatformClient.getAssertionRequest(token: token))
            _ = platform.call(CTAPByte.getNextAssertion)
            let cm = try platform.token(fuzzPIN, protocol: 2, permissions: 0x04).get()
            _ = platform.call(CTAPByte.credentialManagement, PlatformClient.credentialManagementRequest(1, token: cm))
            _ = platform.call(CTAPByte.credentialManagement, PlatformClient.credentialManagementRequest(2, token: cm))
            _ = platform.call(CTAPByte.credentialManagement, [.int(1): 3])
            let rpIdHash = PlatformClient.clientDataHash("example.com")
            let listed = platform.call(CTAPByte.credentialManagement,
                                       PlatformClient.credentialManagementRequest(4, [.int(1): .bytes(rpIdHash)], token: cm))
            _ = platform.call(CTAPByte.credentialManagement, [.int(1): 5])
            if let descriptor = listed.map?[int: 7] {
                let user: CBORValue = listed.map?[int: 6] ?? .map([:])
                var renamed = user.mapValue ?? CBORMap()
                renamed["name"] = "renamed"
                _ = platform.call(CTAPByte.credentialManagement, PlatformClient.credentialManagementRequest(
                    7, [.int(2): descriptor, .int(3): .map(renamed)], token: cm))
                _ = platform.call(CTAPByte.credentialManagement,
                                  PlatformClient.credentialManagementRequest(6, [.int(2): descriptor], token: cm))
            }
        },
        Flow(name: "wrong-pins-power-cycle", baseline: .populated21) { client in
            client.select()
            let platform = PlatformClient(send: { client.ctap($0) })
            for _ in 0..<3 { _ = try platform.token("0000", protocol: 1) }
            _ = platform.pinRetries()
            client.powerCycle()
            client.select()
            _ = try platform.token(fuzzPIN, protocol: 1)
        },
        Flow(name: "last-retry-blocked-reset", baseline: .lastRetry21) { client in
            client.select()
            let platform = PlatformClient(send: { client.ctap($0) })
            _ = try platform.token("9999", protocol: 2)
            _ = platform.pinRetries()
            _ = platform.call(CTAPByte.reset)
            _ = platform.pinRetries()
        },
        Flow(name: "u2f-register-authenticate", baseline: .blank20) { client in
            client.select()
            _ = client.transmit([0x00, 0x03, 0x00, 0x00])
            let challenge = PlatformClient.clientDataHash("challenge")
            let application = PlatformClient.clientDataHash("https://example.com")
            let registered = client.transmit([0x00, 0x01, 0x03, 0x00, 64] + challenge + application + [0x00])
            var handle: [UInt8] = []
            if registered.count > 67 {
                let length = Int(registered[66])
                handle = Array(registered[67..<min(registered.count, 67 + length)])
            }
            for control: UInt8 in [0x07, 0x03, 0x08] {
                _ = client.transmit([0x00, 0x02, control, 0x00, UInt8(65 + handle.count)] + challenge + application
                                    + [UInt8(handle.count)] + handle + [0x00])
            }
            _ = client.ctap([CTAPByte.getInfo])
        },
        Flow(name: "extended-and-chained", baseline: .blank21) { client in
            client.select()
            _ = client.ctap([CTAPByte.getInfo], extended: true)
            var long = PlatformClient.makeCredentialRequest(userId: Array(repeating: 0x55, count: 64),
                                                            userName: String(repeating: "n", count: 300), rk: false)
            long[int: 5] = .array((0..<4).map { .map(["id": .bytes(Array(repeating: UInt8($0), count: 81)), "type": "public-key"]) })
            _ = client.ctap(PlatformClient.request(CTAPByte.makeCredential, long))
            _ = client.ctap(PlatformClient.request(CTAPByte.makeCredential, long), extended: true)
        },
        Flow(name: "bad-apdus", baseline: .blank21) { client in
            for apdu: [UInt8] in [[0x00, 0xA4], [0x00, 0xA4, 0x04, 0x00, 0x08, 0xA0], [0xA0, 0xA4, 0x04, 0x00],
                                  [0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x00], [0x00, 0xC0, 0x00, 0x00, 0x00],
                                  [0x00, 0xA4, 0x00, 0x00, 0x02, 0x3F, 0x00]] {
                _ = client.transmit(apdu)
            }
            client.select()
            _ = client.transmit([0x90, 0x10, 0x00, 0x00, 0x02, 0x01, 0xA5])
            _ = client.transmit([0x00, 0xA4, 0x04, 0x00, 0x08] + NFCBinding.fidoAID)
            _ = client.transmit([0x80, 0x10, 0x00, 0x00, 0x03, 0x02, 0xA1, 0x01])
            _ = client.transmit([0x80, 0x11, 0x00, 0x00])
        },
    ] }
}
