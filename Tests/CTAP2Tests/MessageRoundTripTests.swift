import CBOR
import FIDOWire
import Testing

@testable import CTAP2

/// Every message that reads and writes itself: what it writes is canonical CBOR and reads back
/// as the same message, for generated messages with every member present or absent; and every
/// strict prefix of what it writes is INVALID_CBOR.
@Suite("Messages: reading is the inverse of writing")
struct MessageRoundTripTests {
    enum Message: String, CaseIterable, CustomTestStringConvertible {
        case getAssertionRequest, makeCredentialRequest, clientPINRequest, credentialManagementRequest, configRequest
        case largeBlobsRequest, setMinPINLengthParameters, hmacSecretSalts
        case getAssertionResponse, makeCredentialResponse, clientPINResponse, credentialManagementResponse
        case authenticatorInfo, largeBlobsResponse
        case descriptor, user, relyingParty, credentialParameters

        var testDescription: String { rawValue }
    }

    /// The generated messages of `kind` whose bytes are not canonical, do not read back as the
    /// message, or have a prefix that reads.
    static func failures(_ kind: Message) -> [String] {
        var generator = MessageGenerator(seed: UInt8(Message.allCases.firstIndex(of: kind) ?? 0), 0x52)
        func check<M: CTAPMessage & Equatable>(_ make: (inout MessageGenerator) -> M) -> [String] {
            var failures: [String] = []
            for _ in 0..<150 {
                let message = make(&generator)
                let bytes = message.encoded()
                let canonical = (try? CBORDecoder.decode(bytes)).map { CBOREncoder.encode($0) }
                if canonical != bytes { failures.append("not canonical: \(Hex.string(bytes))") }
                let read = Result { () throws(CTAPStatus) in try M(decoding: bytes[...]) }
                if read != .success(message) { failures.append("\(message) read back as \(read)") }
                for length in 0..<bytes.count where (Result { () throws(CTAPStatus) in try M(decoding: bytes[..<length]) })
                    != .failure(.invalidCBOR) {
                    failures.append("the prefix of \(length) bytes of \(Hex.string(bytes)) is read")
                }
            }
            return failures
        }
        switch kind {
        case .getAssertionRequest: return check { $0.getAssertionRequest() }
        case .makeCredentialRequest: return check { $0.makeCredentialRequest() }
        case .clientPINRequest: return check { $0.clientPINRequest() }
        case .credentialManagementRequest: return check { $0.subcommandRequest(CredentialManagementKey.self) }
        case .configRequest: return check { $0.subcommandRequest(ConfigKey.self) }
        case .largeBlobsRequest: return check { $0.largeBlobsRequest() }
        case .setMinPINLengthParameters: return check { $0.setMinPINLengthParameters() }
        case .hmacSecretSalts: return check { $0.hmacSecretSalts() }
        case .getAssertionResponse: return check { $0.getAssertionResponse() }
        case .makeCredentialResponse: return check { $0.makeCredentialResponse() }
        case .clientPINResponse: return check { $0.clientPINResponse() }
        case .credentialManagementResponse: return check { $0.credentialManagementResponse() }
        case .authenticatorInfo: return check { $0.authenticatorInfo() }
        case .largeBlobsResponse: return check { LargeBlobsResponse(config: $0.bytes()) }
        case .descriptor: return check { $0.descriptor() }
        case .user: return check { $0.user() }
        case .relyingParty: return check { $0.relyingParty() }
        case .credentialParameters: return check { CredentialParameters(type: $0.text(), algorithm: $0.count() - 35_000) }
        }
    }

    @Test("read(write(message)) == message, canonically written, no prefix read", arguments: Message.allCases)
    func roundTrip(kind: Message) {
        let failures = Self.failures(kind)
        #expect(failures.isEmpty, "\(failures.count) failures, the first: \(failures.prefix(2))")
    }

    @Test("a CTAP 2.0 card reads makeCredential without enterpriseAttestation, as an unknown member")
    func ctap20MakeCredential() throws {
        var generator = MessageGenerator(seed: 20)
        var request = generator.makeCredentialRequest()
        request.enterpriseAttestation = .unsigned(2)
        let bytes = request.encoded()
        #expect(try MakeCredentialRequest(decoding: bytes[...], ctap21: true) == request)
        request.enterpriseAttestation = nil
        #expect(try MakeCredentialRequest(decoding: bytes[...], ctap21: false) == request)
    }
}
