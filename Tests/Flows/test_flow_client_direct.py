"""The client-direct flow: `sdk register-user` / `authenticate-user` against a FIDO2 server written
from the conformance API's text (strict about its members, py_webauthn verification, session
cookies), including the ways a real server fails: HTTP 5xx, bodies that are not JSON or empty,
answers that never come."""

from __future__ import annotations

import json

import cbor2
from fido2.utils import websafe_decode, websafe_encode

from flow_rig import PIN, RP_ID

#: What the conformance API's text names, and nothing else (plus the vendor's registrationInfo).
CREATION_REQUEST = {"username", "displayName", "authenticatorSelection", "attestation"}
RESULT = {"id", "type", "response", "getClientExtensionResults"}


def server_args(fido_server, *extra):
    return ("--server", fido_server.url, "--pin", PIN, "--rp-id", RP_ID, *extra)


def bodies(server, path_end: str) -> list[dict]:
    return [body for path, body, _ in server.requests if path.endswith(path_end)]


def test_register_then_authenticate(card, fido_server):
    result = card.sdk("register-user", *server_args(fido_server, "--username", "alice", "--display-name", "Alice",
                                                    "--registration-info", "flow test device")).ok()
    assert result == {"status": "success", "operation": "register-user", "message": "Registration successful",
                      "rpId": RP_ID, "credentialId": websafe_encode(fido_server.registered[0]), "httpStatus": 200,
                      "serverResponse": {"status": "ok", "errorMessage": ""}}
    assert fido_server.formats == ["packed"], "the packed attestation chained to the emulator root"
    account = fido_server.accounts["alice"]
    assert account.registration_info == ["flow test device"]

    options, = bodies(fido_server, "/attestation/options")
    assert options == {"username": "alice", "displayName": "Alice", "attestation": "direct",
                       "authenticatorSelection": {"authenticatorAttachment": "cross-platform", "residentKey": "required",
                                                  "requireResidentKey": True, "userVerification": "required"}}
    registration, = bodies(fido_server, "/attestation/result")
    assert set(registration) == RESULT | {"registrationInfo"}, "the text's member names, not WebAuthn L3's"
    assert set(registration["response"]) == {"clientDataJSON", "attestationObject"}
    assert registration["getClientExtensionResults"] == {}
    assert fido_server.requests[1][2].get("FIDOSESSION"), "the session cookie came back"
    listed = card.sdk("list-credentials", "--pin", PIN).ok()["credentials"]
    assert [(c["credentialId"], c["userHandle"]) for c in listed] == [(result["credentialId"], websafe_encode(account.user_id))], \
        "the card's user handle is the user.id the server issued"
    assert card.all_views_of_credentials() == [result["credentialId"]]

    signed = card.sdk("authenticate-user", *server_args(fido_server, "--username", "alice", "--display-name", "Alice")).ok()
    assert signed == {"status": "success", "operation": "authenticate-user", "message": "Authentication successful",
                      "rpId": RP_ID, "credentialId": result["credentialId"], "httpStatus": 200, "serverResponse": {"status": "ok", "errorMessage": ""}}
    assert fido_server.authenticated == fido_server.registered
    assert bodies(fido_server, "/assertion/options") == [{"username": "alice", "userVerification": "required"}], \
        "no displayName in the assertion options request"
    assertion, = bodies(fido_server, "/assertion/result")
    assert set(assertion) == RESULT
    assert set(assertion["response"]) == {"clientDataJSON", "authenticatorData", "signature", "userHandle"}
    assert websafe_decode(assertion["response"]["userHandle"]) == account.user_id


def test_configurable_endpoints(card, fido_server):
    card.sdk("register-user", *server_args(fido_server, "--username", "bob", "--begin-endpoint", "/fidoapi/register/begin",
                                           "--complete-endpoint", "fidoapi/register/complete")).ok()
    card.sdk("authenticate-user", *server_args(fido_server, "--username", "bob", "--begin-endpoint", "fidoapi/authenticate/begin",
                                               "--complete-endpoint", "/fidoapi/authenticate/complete")).ok()
    assert fido_server.paths() == [
        "/fidoapi/register/begin", "/fidoapi/register/complete", "/fidoapi/authenticate/begin", "/fidoapi/authenticate/complete"]
    assert len(fido_server.authenticated) == 1


def test_server_asking_for_no_attestation_gets_none(card, fido_server):
    """A server whose options say attestation "none": the SDK sends what a browser sends (WebAuthn
    §5.1.3 step 20.2): format none, an empty statement, the AAGUID zeroed."""
    fido_server.attestation_policy = "none"
    card.sdk("register-user", *server_args(fido_server, "--username", "alice")).ok()
    assert fido_server.formats == ["none"]
    registration, = bodies(fido_server, "/attestation/result")
    attestation = cbor2.loads(websafe_decode(registration["response"]["attestationObject"]))
    assert attestation["fmt"] == "none" and attestation["attStmt"] == {}
    assert attestation["authData"][37:53] == bytes(16), "the AAGUID is zeroed"
    card.sdk("authenticate-user", *server_args(fido_server, "--username", "alice")).ok()
    assert fido_server.authenticated == fido_server.registered


def test_server_refuses_result_rolls_back(card, fido_server):
    card.sdk("register-user", *server_args(fido_server, "--username", "keep")).ok()
    fido_server.reject_next_registration = "rejected by the flow test"
    error = card.sdk("register-user", *server_args(fido_server, "--username", "alice")).failed(601)
    assert error["message"] == ("sdk register-user: the FIDO2 server refused the registration: HTTP 400: rejected by the "
                                "flow test; the new credential was deleted from the card again")
    assert error["httpStatus"] == 400
    assert card.all_views_of_credentials() == [websafe_encode(fido_server.registered[0])], "only the first one is left"


def test_unknown_user_is_603(card, fido_server):
    error = card.sdk("authenticate-user", *server_args(fido_server, "--username", "nobody")).failed(603)
    assert error["message"] == ("sdk authenticate-user: the FIDO2 server refused to start an authentication for 'nobody': "
                                "HTTP 400: User does not exists!")
    assert error["httpStatus"] == 400


def test_deleted_credential_is_602(card, fido_server):
    registered = card.sdk("register-user", *server_args(fido_server, "--username", "alice")).ok()
    card.sdk("delete-credential", "--pin", PIN, "--credential-id", registered["credentialId"]).ok()
    error = card.sdk("authenticate-user", *server_args(fido_server, "--username", "alice")).failed(602)
    assert error["ctapStatus"] == "CTAP2_ERR_NO_CREDENTIALS"
    assert error["message"] == ("sdk authenticate-user: the card holds no matching credential (CTAP2_ERR_NO_CREDENTIALS); "
                                "it was deleted, or registered on another card or for another relying party")
    assert fido_server.authenticated == []


def test_wrong_pin_is_608_and_nothing_registered(card, fido_server):
    error = card.sdk("register-user", "--server", fido_server.url, "--pin", "999999", "--rp-id", RP_ID,
                     "--username", "alice").failed(608)
    assert error["pinRetries"] == 7
    assert error["message"] == ("sdk register-user: the PIN is wrong (CTAP2_ERR_PIN_INVALID); 7 attempts left before "
                                "the card blocks its PIN")
    assert fido_server.registered == []


def test_reset_device_before_registering(card, fido_server):
    card.sdk("register-user", *server_args(fido_server, "--username", "old")).ok()
    card.retap()  # reset is allowed only right after a tap
    card.sdk("register-user", *server_args(fido_server, "--username", "new", "--reset-device")).ok()
    assert card.all_views_of_credentials() == [websafe_encode(fido_server.registered[1])]


def test_card_taken_away_mid_flow_is_600(make_card, fido_server):
    """The server is asked first, then the card is tapped. pcsc: the card is taken away while the
    FIDO2 server prepares its options (SIGUSR1 to serve, with a long --tap-delay, from the
    server's options handler), and the SDK, told not to wait, finds no card on the reader; image:
    the card leaves the field after SELECT and getInfo (--remove-card-after 2), mid-registration."""
    card = make_card(tap_delay=6)
    card.set_pin()
    card_args = card.taken_away_at_options(fido_server, waits=False)
    result = card.sdk("register-user", *server_args(fido_server, "--username", "alice"), card_args=card_args)
    error = result.failed(600)
    if card.mode == "pcsc":
        assert error["message"].startswith("sdk register-user: no card on the reader ("), error["message"]
        assert "SCARD_E_NO_SMARTCARD" in error["message"] or "SCARD_W_REMOVED_CARD" in error["message"], error["message"]
    else:
        assert error["message"] == ("sdk register-user: the card left the reader (the card left the field); hold it on "
                                    "the reader and try again")
    assert fido_server.paths() == ["/fidoapi/certify/attestation/options"], "no result was sent"
    if card.mode == "pcsc":
        fido_server.before_options = None
        card.served.wait_back(2)
    assert card.credential_ids() == []


# -- a server that fails: each with its exact code and message, the card left as it was


def test_server_error_5xx(card, fido_server):
    fido_server.misbehave["register-options"] = (503, json.dumps({"status": "failed", "errorMessage": "down for maintenance"}).encode(), 0)
    error = card.sdk("register-user", *server_args(fido_server, "--username", "alice")).failed(601)
    assert error["message"] == "sdk register-user: the FIDO2 server refused the registration options: HTTP 503: down for maintenance"
    assert error["httpStatus"] == 503
    fido_server.misbehave["assert-options"] = (500, b'{"status": "failed", "errorMessage": "database unavailable"}', 0)
    error = card.sdk("authenticate-user", *server_args(fido_server, "--username", "alice")).failed(601)
    assert error["message"] == ("sdk authenticate-user: the FIDO2 server refused to start an authentication for 'alice': "
                                "HTTP 500: database unavailable"), "a server error is not an unknown user"
    assert card.credential_ids() == []


def test_server_error_on_the_result_rolls_back(card, fido_server):
    fido_server.misbehave["register-result"] = (502, b"<html><body>Bad Gateway</body></html>", 0)
    error = card.sdk("register-user", *server_args(fido_server, "--username", "alice")).failed(601)
    assert error["message"] == ("sdk register-user: the FIDO2 server refused the registration: HTTP 502, not JSON: "
                                "<html><body>Bad Gateway</body></html>; the new credential was deleted from the card again")
    assert error["httpStatus"] == 502
    assert card.credential_ids() == []


def test_server_answer_not_json(card, fido_server):
    fido_server.misbehave["register-options"] = (200, b"<html>maintenance page</html>", 0)
    error = card.sdk("register-user", *server_args(fido_server, "--username", "alice")).failed(601)
    assert error["message"] == ("sdk register-user: the FIDO2 server refused the registration options: HTTP 200, not JSON: "
                                "<html>maintenance page</html>")
    assert card.credential_ids() == []


def test_server_answer_empty(card, fido_server):
    fido_server.misbehave["register-options"] = (200, b"", 0)
    error = card.sdk("register-user", *server_args(fido_server, "--username", "alice")).failed(601)
    assert error["message"] == ("sdk register-user: the FIDO2 server refused the registration options: HTTP 200 with an "
                                "empty body (no JSON)")


def test_server_that_does_not_answer_in_time(card, fido_server):
    fido_server.misbehave["register-options"] = (200, b"{}", 4)
    error = card.sdk("register-user", *server_args(fido_server, "--username", "alice", "--timeout", "1")).failed(601)
    assert error["message"] == (f"sdk register-user: registration begin: {fido_server.url}/fidoapi/certify/attestation/options "
                                "did not answer within 1 s")
    assert error["urlError"] == -1001, "URLError.timedOut is kept"
    assert card.credential_ids() == []


def test_server_not_there(card, fido_server):
    url = fido_server.url
    fido_server.stop()
    error = card.sdk("register-user", "--server", url, "--pin", PIN, "--rp-id", RP_ID, "--username", "alice").failed(601)
    assert error["message"].startswith(f"sdk register-user: registration begin: cannot reach {url}/fidoapi/certify/attestation/options: ")
    assert error["urlError"] == -1004, "URLError.cannotConnectToHost is kept"
