import ArculusCard
import Transcript
import TestSupport

/// Whole sessions recorded in-process, for tests that need a realistic transcript.
enum Sessions {
    /// SELECT, getInfo, a non-discoverable and a discoverable credential (the second with a
    /// long user name so the request is chained), assertions with and without allow list,
    /// a power cycle, U2F register and authenticate; returns the recording.
    static func webAuthnAndU2F(card: VirtualCard, style: TestHost.Style = .pythonFIDO2) throws -> Transcript {
        let recorder = try TranscriptRecorder(card: card)
        recorder.powerOn()
        var host = TestHost(card: recorder)
        host.style = style
        _ = host.select()
        _ = try host.ctapBody(.getInfo)
        let made = try host.ctapBody(.makeCredential, Requests.makeCredential())
        let id = try Requests.credentialID(made)
        _ = try host.ctapBody(.getAssertion, Requests.getAssertion(allow: [id]))
        let longName = String(repeating: "long-user-name-", count: 14)
        let resident = try host.ctapBody(.makeCredential, Requests.makeCredential(user: longName, userId: Array("user-bob".utf8), rk: true,
                                                                                  excludeList: [[UInt8](repeating: 7, count: 64)]))
        let residentID = try Requests.credentialID(resident)
        recorder.powerOff()
        recorder.powerOn()
        _ = host.select()
        _ = try host.ctapBody(.getAssertion, Requests.getAssertion(allow: [residentID, id], clientData: "again"))
        _ = try host.ctapBody(.getAssertion, Requests.getAssertion(clientData: "discoverable"))
        let application = [UInt8](repeating: 0xA1, count: 32)
        let registration = host.u2fRegister(challenge: [UInt8](repeating: 0xC1, count: 32), application: application)
        guard registration.suffix(2) == [0x90, 0x00] else { throw TestFailure("U2F register failed") }
        let keyHandle = Array(registration[67..<67 + Int(registration[66])])
        _ = host.u2fAuthenticate(challenge: [UInt8](repeating: 0xC2, count: 32), application: application, keyHandle: keyHandle)
        _ = host.u2fAuthenticate(control: 0x07, challenge: [UInt8](repeating: 0xC3, count: 32), application: application, keyHandle: keyHandle)
        return recorder.transcript
    }
}
