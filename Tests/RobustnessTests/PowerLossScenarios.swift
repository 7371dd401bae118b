@testable import ArculusCard
import FIDOWire
import Testing
@testable import CTAP2
import TestSupport

// The state-changing commands PowerLossTests cuts the power in, each with what to prepare and
// what must hold of any state a cut leaves.

/// What a command did, as the host saw it.
struct HostView {
    var reply: CTAPReply
    /// A credential the host saw created (ID), and whether it is discoverable.
    var credential: (id: [UInt8], resident: Bool)?
    /// The signature counter in the authenticator data the host got.
    var counter: UInt32?
}

struct PowerLossScenario: Sendable, CustomTestStringConvertible {
    let name: String
    var pinCheck = false
    let prepare: @Sendable (PowerLossSession) throws -> Void
    let command: @Sendable (PowerLossSession) throws -> HostView
    /// Extra checks of a state a cut left, given the states before and after the command.
    var check: @Sendable (_ loaded: CardState, _ before: CardState, _ after: CardState, _ host: HostView) -> String? = { _, _, _, _ in nil }

    var testDescription: String { name }
}

private let pin = "1234"

enum PowerLossScenarios {
    static func withPIN(_ session: PowerLossSession) throws {
        guard try session.platform.setPIN(pin, protocol: 2).isOK else { throw TestFailure("setPIN") }
    }

    static func withResidentCredentials(_ session: PowerLossSession) throws {
        try withPIN(session)
        for user: UInt8 in 1...3 {
            let token = try session.platform.token(pin, protocol: 2, permissions: PermissionBit.makeCredential).get()
            let reply = session.platform.call(CTAPByte.makeCredential,
                                              PlatformClient.makeCredentialRequest(userId: [user], userName: "user\(user)", rk: true, token: token))
            guard reply.isOK else { throw TestFailure("makeCredential \(user): \(reply)") }
        }
    }

    static func made(_ reply: CTAPReply, resident: Bool) -> HostView {
        let made = PlatformClient.credential(fromMakeCredential: reply)
        return HostView(reply: reply, credential: made.map { ($0.id, resident) }, counter: made?.counter)
    }

    static func cmToken(_ session: PowerLossSession) throws -> PlatformToken {
        try session.platform.token(pin, protocol: 2, permissions: PermissionBit.credentialManagement).get()
    }

    static let all: [PowerLossScenario] = [
        PowerLossScenario(name: "makeCredential rk, no PIN", prepare: { _ in }, command: { s in
            made(s.platform.call(CTAPByte.makeCredential, PlatformClient.makeCredentialRequest(userId: [9], rk: true)), resident: true)
        }),
        PowerLossScenario(name: "makeCredential rk with a PIN token", prepare: withResidentCredentials, command: { s in
            let token = try s.platform.token(pin, protocol: 2, permissions: PermissionBit.makeCredential).get()
            return made(s.platform.call(CTAPByte.makeCredential,
                                        PlatformClient.makeCredentialRequest(userId: [9], rk: true, token: token)), resident: true)
        }),
        PowerLossScenario(name: "makeCredential rk replacing the same user's credential", prepare: withResidentCredentials, command: { s in
            let token = try s.platform.token(pin, protocol: 2, permissions: PermissionBit.makeCredential).get()
            return made(s.platform.call(CTAPByte.makeCredential,
                                        PlatformClient.makeCredentialRequest(userId: [2], rk: true, token: token)), resident: true)
        }),
        PowerLossScenario(name: "makeCredential non-rk", prepare: { _ in }, command: { s in
            made(s.platform.call(CTAPByte.makeCredential, PlatformClient.makeCredentialRequest(userId: [9], rk: false)), resident: false)
        }),
        PowerLossScenario(name: "getAssertion (signature counter)", prepare: withResidentCredentials, command: { s in
            let token = try s.platform.token(pin, protocol: 2, permissions: PermissionBit.getAssertion).get()
            let reply = s.platform.call(CTAPByte.getAssertion, PlatformClient.getAssertionRequest(token: token))
            return HostView(reply: reply, counter: reply.map?[int: 2]?.bytesValue.map(PlatformClient.counter))
        }),
        // The next counter value passes the durable ceiling (the state control sets both to 64):
        // the card writes the next ceiling (64 + the reservation) before it answers.
        PowerLossScenario(name: "getAssertion past the counter reservation (the next ceiling)", prepare: { s in
            let reply = s.platform.call(CTAPByte.makeCredential, PlatformClient.makeCredentialRequest(userId: [1], rk: true))
            guard reply.isOK else { throw TestFailure("makeCredential: \(reply)") }
            try s.card.setSignatureCounter(64)
        }, command: { s in
            let reply = s.platform.call(CTAPByte.getAssertion, PlatformClient.getAssertionRequest())
            return HostView(reply: reply, counter: reply.map?[int: 2]?.bytesValue.map(PlatformClient.counter))
        }, check: { loaded, _, _, host in
            guard host.counter == 65 else { return "the host saw counter \(String(describing: host.counter)), not 65" }
            return [64, 64 + 64].contains(loaded.signatureCounter) ? nil : "durable counter \(loaded.signatureCounter): neither the old ceiling nor the next"
        }),
        PowerLossScenario(name: "setPIN", prepare: { _ in }, command: { s in
            HostView(reply: try s.platform.setPIN(pin))
        }, check: { loaded, _, _, _ in
            loaded.pinHash == nil || loaded.pinHash == pinHash(pin) ? nil : "a PIN hash that is neither none nor the new PIN's"
        }),
        PowerLossScenario(name: "changePIN", pinCheck: true, prepare: withPIN, command: { s in
            HostView(reply: try s.platform.changePIN(from: pin, to: "56789", protocol: 2))
        }, check: { loaded, _, _, _ in
            [pinHash(pin), pinHash("56789")].contains(loaded.pinHash ?? []) ? nil : "PIN hash lost"
        }),
        PowerLossScenario(name: "wrong PIN (retry counter)", pinCheck: true, prepare: withPIN, command: { s in
            HostView(reply: try s.platform.call(CTAPByte.clientPIN, s.platform.tokenRequest("0000", protocol: 2).0))
        }),
        PowerLossScenario(name: "wrong PIN with one retry left (blocks)", pinCheck: true, prepare: { s in
            try withPIN(s)
            for attempt in 0..<7 {
                if attempt % 3 == 0 { s.card.powerCycle() }
                _ = try s.platform.token("0000", protocol: 2)
            }
            s.card.powerCycle()
            guard s.state.pinRetries == 1 else { throw TestFailure("retries \(s.state.pinRetries)") }
        }, command: { s in
            HostView(reply: try s.platform.call(CTAPByte.clientPIN, s.platform.tokenRequest("0000", protocol: 2).0))
        }),
        PowerLossScenario(name: "right PIN after a wrong one (retries restored)", pinCheck: true, prepare: { s in
            try withPIN(s)
            _ = try s.platform.token("0000", protocol: 2)
        }, command: { s in
            HostView(reply: try s.platform.call(CTAPByte.clientPIN, s.platform.tokenRequest(pin, protocol: 2).0))
        }),
        PowerLossScenario(name: "reset", prepare: withResidentCredentials, command: { s in
            // Inside the reset window however long the preparation took.
            s.card.clock = { .seconds(100) }
            s.card.powerCycle()
            return HostView(reply: s.platform.call(CTAPByte.reset))
        }, check: { loaded, before, _, _ in
            loaded.signatureCounter >= before.signatureCounter ? nil : "reset took the counter back"
        }),
        PowerLossScenario(name: "deleteCredential", prepare: withResidentCredentials, command: { s in
            let token = try cmToken(s)
            let id = s.state.residentCredentials[1].id
            return HostView(reply: s.platform.call(CTAPByte.credentialManagement, PlatformClient.credentialManagementRequest(
                6, [.int(2): .map(["id": .bytes(id), "type": "public-key"])], token: token)))
        }),
        PowerLossScenario(name: "updateUserInformation", prepare: withResidentCredentials, command: { s in
            let token = try cmToken(s)
            let credential = s.state.residentCredentials[0]
            return HostView(reply: s.platform.call(CTAPByte.credentialManagement, PlatformClient.credentialManagementRequest(
                7, [.int(2): .map(["id": .bytes(credential.id), "type": "public-key"]),
                    .int(3): .map(["id": .bytes(credential.userId), "name": "renamed", "displayName": "Renamed"])], token: token)))
        }, check: { loaded, _, _, _ in
            ["user1", "renamed"].contains(loaded.residentCredentials.first?.userName ?? "") ? nil : "user name neither old nor new"
        }),
    ]
}
