import CardTestSupport
import CBOR
import CTAP2
import Testing
import FIDOWire

/// Review defect 5: enterpriseAttestation is checked in its own step of makeCredential (CTAP 2.1
/// §6.1.2 step 9, after the options and the PIN-requirement steps) — so an earlier step's error
/// wins — and a CTAP 2.0 card, which has no such member, ignores it like any unknown key.
@Suite("Defect 5: enterpriseAttestation in its own step, ignored on CTAP 2.0")
struct Defect05EnterpriseAttestationStepTests {
    static func request(enterpriseAttestation: Int, options: CBORMap? = nil, algorithms: [Int] = [-7]) -> CBORMap {
        var request = TestClient.makeCredentialRequest(algorithms: algorithms, options: options)
        request[int: 0x0A] = .int(enterpriseAttestation)
        return request
    }

    @Test("CTAP 2.1 §6.1.2 step 9: on a card without enterprise attestation the member alone → INVALID_PARAMETER",
          arguments: [1, 2])
    func alone(mode: Int) throws {
        let client = try TestClient()
        #expect(client.makeCredential(Self.request(enterpriseAttestation: mode)).status == .invalidParameter)
    }

    @Test("CTAP 2.1 §6.1.2 steps 3 and 5 come before step 9: an unsupported algorithm → UNSUPPORTED_ALGORITHM, up=false → INVALID_OPTION")
    func earlierStepsFirst() throws {
        let client = try TestClient()
        #expect(client.makeCredential(Self.request(enterpriseAttestation: 1, algorithms: [-999])).status == .unsupportedAlgorithm)
        #expect(client.makeCredential(Self.request(enterpriseAttestation: 1, options: ["up": false])).status == .invalidOption)
        #expect(client.makeCredential(Self.request(enterpriseAttestation: 1, options: ["uv": true])).status == .invalidOption)
    }

    @Test("CTAP 2.1 §6.1.2 step 7 comes before step 9: PIN set, rk without a pinUvAuthParam → PUAT_REQUIRED")
    func puatRequiredFirst() throws {
        let client = try TestClient()
        try client.setPIN()
        #expect(client.makeCredential(Self.request(enterpriseAttestation: 2, options: ["rk": true])).status == .puatRequired)
    }

    @Test("CTAP 2.1 §6.1.2 step 9 comes before step 11: a pinUvAuthParam that does not verify is not looked at → INVALID_PARAMETER")
    func beforeTokenCheck() throws {
        let client = try TestClient()
        try client.setPIN()
        var request = Self.request(enterpriseAttestation: 1)
        request[int: 8] = .bytes([UInt8](repeating: 0x22, count: 32))
        request[int: 9] = 2
        #expect(client.makeCredential(request).status == .invalidParameter)
    }

    @Test("CTAP 2.0 §5.1 (no enterpriseAttestation member; unknown keys are ignored): the 2.0 card makes the credential with no epAtt",
          arguments: [1, 2, 3])
    func ignoredOnCTAP20(mode: Int) throws {
        let client = try TestClient(profile: .arculusFIDO2)
        let body = try client.makeCredential(Self.request(enterpriseAttestation: mode)).body()
        #expect(body[int: 4] == nil, "no epAtt")
        let made = try MadeCredential(body, clientDataHash: Fixture.clientDataHash())
        #expect(made.format == "packed")
    }
}
