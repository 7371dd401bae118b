import ArculusCard
import Testing
import Transcript

@Test func tmpDump() throws {
    let transcript = try Sessions.webAuthnAndU2F(card: try VirtualCard(entropy: .seeded(testSeed)))
    try transcript.write(toFile: "/tmp/session.transcript")
    let t2 = try Sessions.webAuthnAndU2F(card: try VirtualCard())
    try t2.write(toFile: "/tmp/session-unseeded.transcript")
}
