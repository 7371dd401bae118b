import ArculusCard
import CardCrypto
import Testing
import FIDOWire
import TestSupport

/// APDUs and CTAP requests the control tests send, as python-fido2 sends them.
enum ControlAPDU {
    static let select: [UInt8] = NFCBinding.selectFIDOApplet
    static let pollResult: [UInt8] = [0x80, 0x11, 0x00, 0x00]
    static let cancel: [UInt8] = [0x80, 0x11, 0x11, 0x00]

    /// NFCCTAP_MSG carrying `request` in one short APDU.
    static func ctap(_ request: [UInt8], p1: UInt8 = 0x00) -> [UInt8] {
        precondition(!request.isEmpty && request.count <= 255)
        return [0x80, 0x10, p1, 0x00, UInt8(request.count)] + request + [0x00]
    }

    /// The request bytes of a typed CTAP command.
    static func request(_ command: CTAPCommand, _ parameters: CBORMap? = nil) -> [UInt8] {
        [command.rawValue] + (parameters.map { CBOREncoder.encode(.map($0)) } ?? [])
    }

    static let clientDataHash = SHA256.hash(Array("control tests".utf8))

    /// getAssertion for `rpId`, with an allow list when `allow` is given.
    static func getAssertion(rpId: String = "example.com", allow: [UInt8]? = nil, up: Bool? = nil) -> CBORMap {
        var parameters: CBORMap = [.int(1): .text(rpId), .int(2): .bytes(clientDataHash)]
        if let allow { parameters[int: 3] = .array([.map(["id": .bytes(allow), "type": "public-key"])]) }
        if let up { parameters[int: 5] = .map(["up": .bool(up)]) }
        return parameters
    }
}

extension VirtualCard {
    /// One APDU, its whole response (GET RESPONSE followed), as (data, status word).
    func exchangeWhole(_ apdu: [UInt8]) -> (data: [UInt8], sw: UInt16) {
        var response = transmit(apdu)
        var data: [UInt8] = []
        while response.count >= 2 {
            data += response.dropLast(2)
            let sw1 = response[response.count - 2]
            let sw2 = response[response.count - 1]
            guard sw1 == 0x61 else { return (data, UInt16(sw1) << 8 | UInt16(sw2)) }
            response = transmit([0x00, 0xC0, 0x00, 0x00, sw2])
        }
        return (data, 0)
    }

    /// SELECT then a CTAP request through NFCCTAP_MSG (P1 00); the CTAP response.
    func ctapThroughFront(_ command: CTAPCommand, _ parameters: CBORMap? = nil) throws -> CTAPResponse {
        let selected = exchangeWhole(ControlAPDU.select)
        guard selected.sw == 0x9000 else { throw TestFailure("SELECT answered \(String(selected.sw, radix: 16))") }
        let reply = exchangeWhole(ControlAPDU.ctap(ControlAPDU.request(command, parameters)))
        guard reply.sw == 0x9000 else { throw TestFailure("NFCCTAP_MSG answered \(String(reply.sw, radix: 16))") }
        return CTAPResponse(bytes: reply.data)
    }
}

/// The parts of a getAssertion response a test checks.
struct Assertion {
    let credentialId: [UInt8]
    let authenticatorData: [UInt8]
    let signature: [UInt8]
    let userId: [UInt8]?

    init(_ response: CTAPResponse) throws {
        let body = try response.okBody()
        guard let id = body[int: 1]?.mapValue?[text: "id"]?.bytesValue, let authData = body[int: 2]?.bytesValue,
              let signature = body[int: 3]?.bytesValue else {
            throw TestFailure("incomplete assertion")
        }
        credentialId = id
        authenticatorData = authData
        self.signature = signature
        userId = body[int: 4]?.mapValue?[text: "id"]?.bytesValue
    }

    var flags: UInt8 { authenticatorData[32] }
    var counter: UInt32 { authenticatorData[33..<37].reduce(0) { $0 << 8 | UInt32($1) } }

    func verifies(with key: P256PublicKey) -> Bool {
        key.isValidSignature(signature, for: authenticatorData + ControlAPDU.clientDataHash)
    }

    /// Whether the signature verifies with a credential's key of any algorithm.
    func verifies(with key: CredentialPublicKey) -> Bool {
        key.isValidSignature(signature, for: authenticatorData + ControlAPDU.clientDataHash)
    }
}

extension PINState {
    /// isSet, retries, signature counter, for comparisons.
    var values: (isSet: Bool, retries: Int, counter: UInt32) { (isSet, retries, signatureCounter) }
}
