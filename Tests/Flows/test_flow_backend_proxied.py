"""The backend-proxied flow against the seed's servlet (line by line) in front of a FIDO2 server
written from the conformance API's text: phase 1 at the backend, phase 2 on the card only, phase
3 at the backend, with rollback when phase 3 fails; and the ways a backend fails."""

from __future__ import annotations

import json
import urllib.request

import pytest
from fido2.utils import websafe_decode, websafe_encode

from flow_rig import PIN, RP_ID, ConformanceServer, SeedServlet

LEVEL_THREE = {"id", "rawId", "type", "authenticatorAttachment", "clientExtensionResults", "response"}


def backend_args(backend, username, *extra):
    return ("--backend", backend.url, "--pin", PIN, "--username", username, "--rp-id", RP_ID, *extra)


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as error:
        return json.loads(error.read())


def test_register_and_authenticate_via_backend(card, backend, fido_server):
    registered = card.sdk("register-via-backend", *backend_args(backend, "alice", "--display-name", "Alice")).ok()
    assert registered == {"status": "success", "operation": "register-via-backend", "message": "Registration successful",
                          "rpId": RP_ID, "credentialId": websafe_encode(fido_server.registered[0]), "httpStatus": 200,
                          "serverResponse": {"status": "success", "operation": "register",
                                             "message": "Registration completed successfully"}}
    # The servlet's server client asks for no attestation (the conformance API's default is none),
    # and the SDK's own backend flow, which sees the options, honours that as a browser would.
    assert len(fido_server.registered) == 1 and fido_server.formats == ["none"]
    begin, complete = backend.requests[0][1], backend.requests[1][1]
    assert begin == {"operation": "register", "username": "alice", "displayName": "Alice", "rpId": RP_ID}
    assert complete["operation"] == "register" and complete["cookies"].startswith("FIDOSESSION=")
    assert set(complete["cardResponseData"]) == LEVEL_THREE
    assert set(complete["cardResponseData"]["response"]) == {"clientDataJSON", "authenticatorData", "transports",
                                                            "publicKey", "publicKeyAlgorithm", "attestationObject"}
    forwarded = fido_server.requests[1][1]
    assert set(forwarded) == {"username", "type", "id", "rawId", "response"}, "what the servlet forwards"
    listed = card.sdk("list-credentials", "--pin", PIN).ok()["credentials"]
    assert [c["userHandle"] for c in listed] == [websafe_encode(fido_server.accounts["alice"].user_id)], \
        "the SDK's own backend flow sees the options, so it takes the server's user.id"

    signed = card.sdk("authenticate-via-backend", *backend_args(backend, "alice")).ok()
    assert signed == {"status": "success", "operation": "authenticate-via-backend", "message": "Authentication successful",
                      "rpId": RP_ID, "credentialId": registered["credentialId"], "httpStatus": 200,
                      "serverResponse": {"status": "success", "operation": "authenticate",
                                         "message": "Authentication completed successfully"}}
    assert fido_server.authenticated == fido_server.registered
    phase3 = backend.requests[3][1]
    assert phase3["sessionId"] == websafe_encode(fido_server.registered[0])
    assert phase3["cookies"].startswith("FIDOSESSION=")
    assert "userHandle" in phase3["cardResponseData"]["response"]
    assert set(fido_server.requests[3][1]) == {"username", "type", "id", "response"}, "no rawId in phase 3, as the seed writes it"


def test_phase_three_refused_rolls_back(card, backend, fido_server):
    card.sdk("register-via-backend", *backend_args(backend, "keep")).ok()
    fido_server.reject_next_registration = "attestation not trusted (flow test)"
    error = card.sdk("register-via-backend", *backend_args(backend, "alice")).failed(601)
    assert error["message"] == ("sdk register-via-backend: the backend refused the registration: HTTP 500: Registration "
                                "complete failed: attestation not trusted (flow test); the new credential was deleted from "
                                "the card again")
    assert error["httpStatus"] == 500
    assert card.all_views_of_credentials() == [websafe_encode(fido_server.registered[0])]


def three_phases(card, backend, username, register_args=()):
    """What an app in any language does: phases 1 and 3 itself, phase 2 with the command line."""
    begin = post(backend.url + "/fido/register", {"operation": "register", "username": username, "displayName": username.title(),
                                                  "rpId": RP_ID})
    assert begin["status"] == "success", begin
    server = begin["fidoServerResponse"]
    card_response = card.sdk("register-card-only", "--pin", PIN, "--username", username, "--display-name", username.title(),
                             "--rp-id", server["rp"]["id"], "--challenge", server["challenge"],
                             "--origin", begin["fido2ServerOrigin"], *register_args(server)).ok()
    complete = post(backend.url + "/fido/register", {"operation": "register", "username": username,
                                                     "cardResponseData": card_response, "cookies": begin["cookies"]})
    assert complete == {"status": "success", "operation": "register", "message": "Registration completed successfully"}

    begin = post(backend.url + "/fido/authenticate", {"operation": "authenticate", "username": username, "rpId": RP_ID})
    server = begin["fidoServerResponse"]
    card_response = card.sdk("authenticate-card-only", "--pin", PIN, "--username", username, "--rp-id", server["rpId"],
                             "--challenge", server["challenge"], "--origin", begin["fido2ServerOrigin"],
                             "--allow-credentials", begin["sessionId"]).ok()
    return post(backend.url + "/fido/authenticate", {"operation": "authenticate", "username": username,
                                                     "cardResponseData": card_response, "sessionId": begin["sessionId"],
                                                     "cookies": begin["cookies"]})


def test_three_phases_driven_by_the_app_with_the_servers_user_id(card, backend, fido_server):
    complete = three_phases(card, backend, "carol", lambda server: ["--user-id", server["user"]["id"]])
    assert complete == {"status": "success", "operation": "authenticate", "message": "Authentication completed successfully"}
    assert fido_server.authenticated == fido_server.registered


def test_registration_without_a_user_id_needs_a_server_that_accepts_the_username_handle(make_card):
    """registerCardOnly as the sample app calls it passes no user ID, so the credential's user
    handle is the UTF-8 user name. A server that checks userHandle against the user.id it issued
    refuses the authentication; one whose user.id is the user name (README: what a server must
    accept) takes it."""
    card = make_card()
    card.set_pin()
    for user_ids, username in (("random", "dave"), ("username", "erin")):
        server = ConformanceServer(user_ids=user_ids).start()
        backend = SeedServlet(server.url).start()
        try:
            complete = three_phases(card, backend, username, lambda server: [])
            if user_ids == "random":
                assert complete == {"status": "failed", "error": "FIDO2 server communication failed (HTTP 400): userHandle "
                                                                 "is not the user.id this server issued for the credential's user"}
                assert server.authenticated == []
            else:
                assert complete["status"] == "success"
                assert server.authenticated == server.registered
        finally:
            backend.stop()
            server.stop()


def test_phase_three_without_cookies_is_refused(card, backend, fido_server):
    begin = post(backend.url + "/fido/register", {"operation": "register", "username": "dave", "rpId": RP_ID})
    server = begin["fidoServerResponse"]
    card_response = card.sdk("register-card-only", "--pin", PIN, "--username", "dave", "--rp-id", server["rp"]["id"],
                             "--challenge", server["challenge"], "--origin", begin["fido2ServerOrigin"]).ok()
    complete = post(backend.url + "/fido/register", {"operation": "register", "username": "dave", "cardResponseData": card_response})
    assert complete == {"status": "failed", "error": "Registration complete failed: no session for this result (the session "
                                                     "cookie is missing or expired)"}
    card.sdk("delete-credential", "--pin", PIN, "--credential-id", card_response["id"]).ok()  # the app's rollback
    assert card.all_views_of_credentials() == []


def test_authenticate_with_deleted_credential_is_602(card, backend, fido_server):
    card.sdk("register-via-backend", *backend_args(backend, "alice")).ok()
    card.sdk("delete-credential", "--pin", PIN, "--credential-id", websafe_encode(fido_server.registered[0])).ok()
    error = card.sdk("authenticate-via-backend", *backend_args(backend, "alice")).failed(602)
    assert error["ctapStatus"] == "CTAP2_ERR_NO_CREDENTIALS"
    assert error["message"] == ("sdk authenticate-via-backend: the card holds no matching credential (CTAP2_ERR_NO_CREDENTIALS); "
                                "it was deleted, or registered on another card or for another relying party")


def test_wrong_pin_in_phase_two_is_608(card, backend, fido_server):
    error = card.sdk("register-via-backend", "--backend", backend.url, "--pin", "999999", "--username", "alice",
                     "--rp-id", RP_ID).failed(608)
    assert error["ctapStatus"] == "CTAP2_ERR_PIN_INVALID"
    assert fido_server.registered == []


def test_unknown_user_is_603(card, backend, fido_server):
    error = card.sdk("authenticate-via-backend", *backend_args(backend, "nobody")).failed(603)
    assert error["message"] == ("sdk authenticate-via-backend: the backend could not start: HTTP 500: Authentication begin "
                                "failed: User does not exists!")
    assert error["httpStatus"] == 500


# -- a backend that fails: each with its exact code and message, the card left as it was


@pytest.mark.parametrize("answer, message", [
    ((500, b'{"status": "failed", "error": "Registration begin failed: FIDO2 server communication failed"}', 0),
     "sdk register-via-backend: the backend could not start: HTTP 500: Registration begin failed: FIDO2 server communication failed"),
    ((502, b"<html><body>502 Bad Gateway</body></html>", 0),
     "sdk register-via-backend: registration begin at the backend: the backend answered HTTP 502 without JSON: "
     "<html><body>502 Bad Gateway</body></html>"),
    ((200, b"", 0), "sdk register-via-backend: registration begin at the backend: the backend answered HTTP 200 with an empty body"),
    ((200, b'{"status": "failed", "message": "registrations are closed"}', 0),
     "sdk register-via-backend: the backend could not start: registrations are closed"),
    ((200, b'{"status": "pending"}', 0), "sdk register-via-backend: the backend could not start: status 'pending'"),
], ids=["5xx", "not-json", "empty", "failed-message", "odd-status"])
def test_backend_failures(card, backend, answer, message):
    backend.misbehave["register-begin"] = answer
    error = card.sdk("register-via-backend", *backend_args(backend, "alice")).failed(601)
    assert error["message"] == message
    assert card.credential_ids() == []


def test_backend_that_does_not_answer_in_time(card, backend):
    backend.misbehave["authenticate-begin"] = (200, b"{}", 4)
    error = card.sdk("authenticate-via-backend", *backend_args(backend, "alice", "--timeout", "1")).failed(601)
    assert error["message"] == (f"sdk authenticate-via-backend: authentication begin at the backend: {backend.url}/fido/authenticate "
                                "did not answer within 1 s")
    assert error["urlError"] == -1001


def test_fido_server_down_behind_the_backend(card, backend, fido_server):
    fido_server.stop()
    error = card.sdk("register-via-backend", *backend_args(backend, "alice")).failed(601)
    assert error["message"].startswith("sdk register-via-backend: the backend could not start: HTTP 500: Registration begin "
                                       f"failed: cannot reach {fido_server.url}: "), error["message"]
    assert card.credential_ids() == []


def test_card_response_data_is_level_three_json(card, backend, fido_server):
    """What the SDK hands a backend is WebAuthn Level 3's toJSON(): the server checks that the
    extra members say what the attestation object says (a mismatch would be refused)."""
    card.sdk("register-via-backend", *backend_args(backend, "alice")).ok()
    response = backend.requests[1][1]["cardResponseData"]["response"]
    assert response["transports"] == ["nfc"] and response["publicKeyAlgorithm"] == -7
    assert websafe_decode(response["publicKey"])[:2] == b"\x30\x59", "a P-256 SubjectPublicKeyInfo"


def test_card_taken_away_between_phases_is_600(make_card, backend, fido_server):
    """Phase 1 done, the card taken away before phase 2 reaches it: 600, nothing sent to phase 3.
    pcsc: SIGUSR1 to serve (long --tap-delay) from the FIDO2 server's options handler, and the
    reader asked at once (no --wait-for-card); image: the card leaves the field after SELECT and
    getInfo (--remove-card-after 2)."""
    card = make_card(tap_delay=6)
    card.set_pin()
    card_args = card.taken_away_at_options(fido_server, waits=False)
    error = card.sdk("register-via-backend", *backend_args(backend, "alice"), card_args=card_args).failed(600)
    if card.mode == "pcsc":
        assert error["message"].startswith("sdk register-via-backend: no card on the reader ("), error["message"]
        assert "SCARD_W_REMOVED_CARD" in error["message"] or "SCARD_E_NO_SMARTCARD" in error["message"], error["message"]
        fido_server.before_options = None
        card.served.wait_back(2)
    else:
        assert error["message"] == ("sdk register-via-backend: the card left the reader (the card left the field); hold it "
                                    "on the reader and try again")
    assert [body.get("operation") for _, body, _ in backend.requests] == ["register"], "phase 1 only, no phase 3"
    assert card.credential_ids() == []
