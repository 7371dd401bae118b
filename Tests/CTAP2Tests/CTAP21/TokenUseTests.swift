import CardTestSupport
import CBOR
import CTAP2
import Testing
import FIDOWire
import TestSupport

/// What collecting user presence does to the pinUvAuthToken in use (CTAP 2.1 §6.1.2 step 14,
/// §6.2.2 step 9): clearUserPresentFlag(), clearUserVerifiedFlag() and
/// clearPinUvAuthTokenPermissionsExceptLbw() — whether or not the request carried the token.
@Suite("The token after user presence (CTAP 2.1 §6.1.2 step 14.4, §6.2.2 step 9.4)")
struct TokenUseTests {
    static let allThree = PermissionBit.makeCredential | PermissionBit.getAssertion | PermissionBit.largeBlobWrite

    /// A 2.1 card with large blobs, a credential made before the PIN, then the PIN.
    static func card() throws -> (TestClient, MadeCredential) {
        let client = try TestClient()
        let made = try client.makeCredential()
        try client.setPIN()
        return (client, made)
    }

    static func largeBlobWrite(_ client: TestClient, token: PlatformToken) -> CTAPStatus? {
        client.writeLargeBlobArray(TestClient.serializedLargeBlobArray([]), fragmentSize: 1000, token: token).status
    }

    @Test("CTAP 2.1 §6.1.2 step 14.4: a makeCredential with user presence and no pinUvAuthParam consumes the token in use too (mc/ga gone, lbw kept)")
    func makeCredentialWithoutTokenConsumes() throws {
        let (client, made) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .two, permissions: Self.allThree, rpId: Fixture.rpID)
        _ = try client.makeCredential(userId: [9])  // non-discoverable: makeCredUvNotRqd, no token needed
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id], token: token)).status == .pinAuthInvalid)
        #expect(client.makeCredential(TestClient.makeCredentialRequest(token: token)).status == .pinAuthInvalid)
        #expect(Self.largeBlobWrite(client, token: token) == .ok, "lbw is kept")
    }

    @Test("CTAP 2.1 §6.2.2 step 9.4: a getAssertion with user presence and no pinUvAuthParam consumes the token in use too")
    func getAssertionWithoutTokenConsumes() throws {
        let (client, made) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .one, permissions: Self.allThree, rpId: Fixture.rpID)
        _ = try client.assert(allowList: [made.id])
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id], token: token)).status == .pinAuthInvalid)
        #expect(Self.largeBlobWrite(client, token: token) == .ok, "lbw is kept")
    }

    @Test("CTAP 2.1 §6.2.2 step 9: up=false collects no presence and consumes nothing, with or without the token")
    func silentAssertionKeepsToken() throws {
        let (client, made) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .two, permissions: Self.allThree, rpId: Fixture.rpID)
        _ = try client.assert(allowList: [made.id], options: ["up": false])
        _ = try client.assert(allowList: [made.id], options: ["up": false], token: token)
        #expect(try client.assert(allowList: [made.id], token: token).authData.uv)
    }

    @Test("CTAP 2.1 §6.1.2 step 14.4: after a use with presence the token keeps lbw: a large-blob write with it still works")
    func lbwSurvivesItsOwnUse() throws {
        let (client, made) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .two, permissions: Self.allThree, rpId: Fixture.rpID)
        #expect(try client.assert(allowList: [made.id], token: token).authData.uv)
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id], token: token)).status == .pinAuthInvalid)
        #expect(Self.largeBlobWrite(client, token: token) == .ok)
    }

    @Test("CTAP 2.1 §6.2.2 step 9.1: presence declined → OPERATION_DENIED, and the token in use keeps its permissions")
    func declinedPresenceConsumesNothing() throws {
        let (client, made) = try Self.card()
        let token = try client.token(Fixture.shortPIN, .two, permissions: Self.allThree, rpId: Fixture.rpID)
        client.authenticator.userPresence = { false }
        #expect(client.getAssertion(TestClient.getAssertionRequest(allowList: [made.id])).status == .operationDenied)
        client.authenticator.userPresence = { true }
        #expect(try client.assert(allowList: [made.id], token: token).authData.uv)
    }
}
