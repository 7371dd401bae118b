import ArculusCard
import ArculusFidoConnectors
import CardProbe
import Transcript

// The Swift examples of README.md and Docs/*.md, each as written there between the `// README`
// markers (the lines a reader is told to write, in a function so that the consumer can check what
// they did). When an example stops compiling or running here, the documentation is wrong: fix both
// together. (extract-blocks also compiles each block alone, with its imports.)

/// "Using the card from Swift".
func usingTheCardFromSwift(_ checks: Checks) throws {
    // README: Using the card from Swift
    let card = try VirtualCard()                                    // a blank FIDO 2.1 card, in memory
    let stored = try VirtualCard(imageAt: "card.img")               // or one whose memory is a file
    let old = try VirtualCard(profile: .arculusFIDO2)               // the CTAP 2.0 + U2F model

    let info = card.send(.getInfo)                                  // typed CTAP2: status + CBOR
    let versions = info.map[GetInfoKey.versions]                    // ["U2F_V2", "FIDO_2_0", "FIDO_2_1"]
    let raw = card.ctap2([0x04])                                    // raw CTAP2 bytes
    let sw = card.transmit(NFCBinding.selectFIDOApplet)             // APDUs
    card.powerCycle()                                               // off the reader and back
    let credentials = card.credentials                              // discoverable credentials
    let pin = card.pinState                                         // PIN set? retries? counter?
    card.userPresence = { false }                                   // the user declines
    // README end

    checks.expect(info.status == .ok, "getInfo answers CTAP2_OK")
    checks.expect(versions == ["U2F_V2", "FIDO_2_0", "FIDO_2_1"], "getInfo lists the FIDO 2.1 card's versions")
    checks.expect(raw.first == CTAPStatus.ok.rawValue && raw.count > 1, "raw getInfo answers 00 + CBOR")
    checks.expect(sw.suffix(2) == [0x90, 0x00] && sw.dropLast(2).elementsEqual(NFCBinding.selectResponseFIDO2.utf8),
                  "SELECT answers FIDO_2_0 9000")
    checks.expect(stored.profile.name == "arculus-fido21", "a new image holds the default card")
    checks.expect(old.profile.name == "arculus-fido2" && old.send(.getInfo).map[GetInfoKey.versions] == ["U2F_V2", "FIDO_2_0"],
                  "the CTAP 2.0 model")
    checks.expect(credentials.isEmpty && !pin.isSet && pin.retries == 8 && pin.signatureCounter == 0, "a blank card")
    let declined = card.u2fRegister(challenge: [UInt8](repeating: 1, count: 32), application: [UInt8](repeating: 2, count: 32))
    checks.expect(declined == .conditionsNotSatisfied, "with presence declined, U2F REGISTER answers 6985")
}

/// "State without CTAP" (Docs/TestDouble.md).
func stateWithoutCTAP(_ checks: Checks) throws {
    // README: State without CTAP
    let pem = try P256PrivateKey().pemPKCS8                 // a key of yours, as PKCS #8 PEM
    let card = try VirtualCard(imageAt: "card.img")
    try card.setPIN("123456")                          // PIN set, 8 retries left
    try card.setPINRetries(2)
    try card.setSignatureCounter(41)                   // the next assertion reports 42
    let alice = try card.addCredential(rpId: "example.com", user: CredentialUser("alice"))   // discoverable
    let bob = try card.addCredential(rpId: "example.com", user: CredentialUser("bob"),
                                     discoverable: false, privateKey: try P256PrivateKey(pemPKCS8: pem))
    let key = alice.publicKey                          // and alice.id, alice.publicKeyPEM: verify the card's signatures
    let records = card.credentialRecords               // discoverable credentials, with public keys
    try card.removeCredential(id: alice.id)
    let state = card.pinState                          // isSet, retries, signatureCounter
    // README end

    checks.expect(state.isSet && state.retries == 2 && state.signatureCounter == 41, "PIN, retries and counter as set")
    checks.expect(records.map(\.id) == [alice.id] && records[0].publicKey == key, "alice was listed with her key")
    checks.expect(card.credentialRecords.isEmpty, "alice was removed")
    let bobKey = try P256PrivateKey(pemPKCS8: pem).publicKey
    checks.expect(!bob.discoverable && bob.publicKey == CredentialPublicKey(bobKey), "bob's ID wraps the given key")
    checks.expect(alice.publicKeyPEM.hasPrefix("-----BEGIN PUBLIC KEY-----\n"), "the public key as PEM")
}

/// The "Faults" table's Swift column, each effect injected as the table writes it.
func faults(_ checks: Checks) throws {
    let card = try VirtualCard()
    // README: Faults
    try card.injectFault(.ctapError(0x2E), on: .ctap(.getAssertion))
    try card.injectFault(.statusWord(StatusWord(rawValue: 0x6A82)))
    try card.injectFault(.bogusSignature)
    try card.injectFault(.flags(userPresent: false, userVerified: nil))
    try card.injectFault(.leaveField(away: .seconds(1)))
    try card.injectFault(.failNextWrite)
    try card.injectFault(.declinePresence)
    try card.injectFault(.delay(.milliseconds(300)))
    try card.injectFault(.statusWord(StatusWord(rawValue: 0x6A80)), on: .apdu([0x00, 0x99, 0x00, 0x00]))
    let log = card.faultLog
    card.clearFaults()
    // README end

    checks.expect(log.isEmpty && card.control.faults.isEmpty, "faults injected and cleared before acting")
    try card.injectFault(.statusWord(StatusWord(rawValue: 0x6A82)), on: .select)
    checks.expect(card.transmit(NFCBinding.selectFIDOApplet) == [0x6A, 0x82], "a status-word fault answers instead")
    checks.expect(card.faultLog.count == 1, "the fault log names it")
}

/// "Reader and timing" (Docs/TestDouble.md).
func timing(_ checks: Checks) throws {
    // README: Reader and timing
    let card = try VirtualCard()
    card.timing = .realistic                // ~110 ms per signature, ~200 ms per key generation, ~55 ms PIN, ~4 ms per APDU
    // README end
    checks.expect(card.timing.signature == .milliseconds(110) && card.timing.apdu == .milliseconds(4), "realistic timing")
    // README: Reader and timing, waits
    let clock = ManualCardClock()
    let timed = try VirtualCard(clock: clock.read)
    timed.use(clock)                        // reads the time there and waits there
    timed.timing = .realistic
    _ = timed.send(.getInfo)
    let waited = clock.waited               // how long the card made its host wait
    // README end
    checks.expect(waited == .zero && clock.waits.isEmpty, "getInfo takes no simulated time")
}

/// "Reader and timing" (Docs/TestDouble.md): the card on the test's clock.
func clock(_ checks: Checks) throws {
    // README: The card's clock
    var now = CardInstant.origin                                // the test's clock
    let card = try VirtualCard(clock: { now })                  // powered up at the origin
    now = now.advanced(by: .seconds(11))                        // 11 s later: past the 10 s reset window
    let reset = card.send(.reset)                               // CTAP2_ERR_NOT_ALLOWED
    // README end
    checks.expect(reset.status == .notAllowed, "authenticatorReset 11 s after power-up answers CTAP2_ERR_NOT_ALLOWED")
    now = now.advanced(by: .seconds(1))
    card.powerCycle()
    checks.expect(card.send(.reset).status == .ok, "right after a power-up on the test's clock, authenticatorReset is allowed")
}

/// "Transcripts" (Docs/Transcripts.md), from Swift.
func transcripts(_ checks: Checks) throws {
    // README: Transcripts
    let seed = Array("my test's seed".utf8)                              // any bytes: the card's every random value
    let apdu = NFCBinding.selectFIDOApplet                               // what the host sends
    let card = try VirtualCard()
    let recorder = try TranscriptRecorder(card: try VirtualCard(entropy: .seeded(seed)))
    _ = recorder.transmit(apdu)                                          // … the session
    try recorder.transcript.write(toFile: "session.transcript")
    let live = try TranscriptRecorder(card: card, recordingTo: "all.transcript",
                                      fileMode: .appendSession)          // written as it goes, as session N
    try TranscriptReplay.verify(fileAt: "session.transcript")            // throws ReplayMismatch (the report)
    let standIn = try TranscriptStandIn(fileAt: "session.transcript")    // transmit/powerOn/powerOff; .mismatches
    // README end

    _ = live.transmit(apdu)
    checks.expect(live.transcript.exchanges.count == 1, "the live recorder recorded its exchange")
    checks.expect(standIn.transmit(apdu).suffix(2) == [0x90, 0x00] && standIn.mismatches.isEmpty,
                  "the stand-in answers the recorded SELECT")
}

/// "Is the emulator my card?", from Swift: the battery against an in-process card, written, read
/// back and diffed.
func probing(_ checks: Checks) throws {
    // README: Is the emulator my card?
    let card = try VirtualCard()
    let transport = VirtualCardTransport(card: card)
    let atr = try card.profile.atrBytes
    let fingerprint = try CardProber(includeWrites: false).run(on: transport, atr: atr, source: "my reader")
    try fingerprint.text.write(toFile: "card.fingerprint.json", atomically: true, encoding: .utf8)
    let kept = try Fingerprint(path: "card.fingerprint.json")
    let diff = try FingerprintDiff(kept, fingerprint, rules: try DiffRules(text: "ignore timing\n", name: "rules"))
    for difference in diff.differences { print(difference.sentence(("your card", "the emulator"))) }
    // README end
    checks.expect(diff.isEmpty && fingerprint.probes["getInfo"]?.answer["ctap"] == "CTAP2_OK", "a card's fingerprint diffs empty against itself")
}
