import ArculusCard
import ArculusFidoSDKFramework
import ArculusSDK
import CardProbe
import CTAPClient
import Foundation
import PCSC
import Transcript
import VirtualReader

// Uses every library product of the emulator as a dependent package can, and runs the Swift
// examples of README.md and Docs/*.md. Exits 0 when every check passed, 1 otherwise.

let checks = Checks()
let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("arculus-consumer-\(getpid())")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }
// The README's examples name files relative to the working directory.
guard FileManager.default.changeCurrentDirectoryPath(scratch.path) else { fatalError("cannot work in \(scratch.path)") }

checks.part("README examples are held here") { try checkReadmeExamplesAreHeld(checks) }
checks.part("README: Using the card from Swift") { try usingTheCardFromSwift(checks) }
try? FileManager.default.removeItem(atPath: "card.img")
checks.part("README: State without CTAP") { try stateWithoutCTAP(checks) }
checks.part("README: Faults") { try faults(checks) }
checks.part("README: Reader and timing") { try timing(checks) }
checks.part("README: The card's clock") { try clock(checks) }
checks.part("README: Transcripts") { try transcripts(checks) }
checks.part("README: Is the emulator my card?") { try probing(checks) }

// CTAPClient against an in-process card: getInfo, a PIN, a registration and an authentication
// whose signature verifies with the registered key.
checks.part("CTAPClient") {
    let client = try CTAPClient(transport: VirtualCardTransport(card: try VirtualCard()))
    checks.expect(client.info.versions.contains("FIDO_2_1") && client.info.isPINSet == false, "getInfo of a blank card")
    try client.setPIN("123456")
    checks.expect(client.info.isPINSet == true, "getInfo says clientPin after setPIN")
    let clientDataHash = Array(repeating: UInt8(0x5A), count: 32)
    let registration = try client.makeCredential(
        MakeCredentialRequest(clientDataHash: clientDataHash, relyingParty: RelyingPartyEntity(id: "example.com"),
                              user: UserEntity(id: Array("alice".utf8), name: "alice")),
        token: try client.pinToken(pin: "123456", permissions: .makeCredential, rpID: "example.com"))
    let key = try require(registration.authenticatorData.attestedCredential?.publicKey.publicKey, "an attested key")
    let assertion = try client.getAssertion(GetAssertionRequest(rpID: "example.com", clientDataHash: clientDataHash),
                                            token: try client.pinToken(pin: "123456", permissions: .getAssertion, rpID: "example.com"))
    checks.expect(assertion.credential.id == registration.credentialID && assertion.authenticatorData.userVerified,
                  "the assertion names the new credential, user verified")
    checks.expect(key.isValidSignature(assertion.signature, for: assertion.authenticatorData.bytes + clientDataHash),
                  "the assertion's signature verifies with the registered key")
}

// ArculusSDK's card-only operations against an in-process card.
await checks.part("ArculusSDK") {
    let card = try VirtualCard()
    let sdk = ArculusFido(card: VirtualCardConnector(card: card))
    let challenge = Base64URL.encode((0..<32).map { UInt8($0) })
    checks.expect(await sdk.setPin(pin: "123456") == "PIN set", "setPin answers as the samples show it")
    let registration = try JSONValue(parsing: try await sdk.registerCardOnly(
        pin: "123456", username: "alice@example.com", displayName: "Alice", rpId: "example.com",
        challenge: challenge, origin: "https://example.com"))
    let id = try require(registration["id"]?.stringValue, "a registration id")
    checks.expect(card.credentialRecords.map { Base64URL.encode($0.id) } == [id], "the card holds the registered credential")
    let assertion = try JSONValue(parsing: try await sdk.authenticateCardOnly(
        pin: "123456", username: "alice@example.com", rpId: "example.com", challenge: challenge, origin: "https://example.com"))
    let response = try require(assertion["response"], "an assertion response")
    let authenticatorData = try require(response["authenticatorData"]?.stringValue.flatMap(Base64URL.decode), "authenticatorData")
    let clientData = try require(response["clientDataJSON"]?.stringValue.flatMap(Base64URL.decode), "clientDataJSON")
    let signature = try require(response["signature"]?.stringValue.flatMap(Base64URL.decode), "a signature")
    checks.expect(card.credentialRecords[0].publicKey.isValidSignature(signature, for: authenticatorData + SHA256.hash(clientData)),
                  "the SDK's assertion verifies with the card's credential key")
}

// A VPCD bridge for a card, built and stopped without connecting (no vpcd needed), and a PC/SC
// context when pcscd answers.
checks.part("VirtualReader and PCSC") {
    let bridge = VPCDBridge(card: try VirtualCard(), endpoint: VPCDEndpoint(host: "127.0.0.1", port: 35963))
    bridge.stop()
    checks.expect(VPCDEndpoint(parsing: "localhost:35964")?.port == 35964, "a vpcd endpoint parses")
    do {
        let context = try PCSCContext()
        let readers = try context.readers()
        print("pcscd answers: \(readers.count) reader(s)")
    } catch {
        print("pcscd is not reachable (\(error)); the PC/SC call is skipped")
    }
}

print("\(checks.passed) checks passed, \(checks.failures.count) failed")
exit(checks.failures.isEmpty ? 0 : 1)
