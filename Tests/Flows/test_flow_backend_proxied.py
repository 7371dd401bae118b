"""The backend-proxied flow: phase 1 at the backend (servlet contract), phase 2 on the card only,
phase 3 at the backend, with rollback when phase 3 fails."""

from __future__ import annotations

import json
import urllib.request

from fido2.utils import websafe_encode

from flow_rig import PIN, RP_ID


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
    assert registered["status"] == "success" and registered["message"] == "Registration completed successfully"
    assert len(fido_server.registered) == 1 and fido_server.verifier.checked == 1
    begin, complete = backend.requests[0][1], backend.requests[1][1]
    assert begin == {"operation": "register", "username": "alice", "displayName": "Alice", "rpId": RP_ID}
    assert complete["operation"] == "register" and complete["cookies"].startswith("FIDOSESSION=")
    assert set(complete["cardResponseData"]) >= {"id", "rawId", "type", "response"}

    signed = card.sdk("authenticate-via-backend", *backend_args(backend, "alice")).ok()
    assert signed["status"] == "success"
    assert fido_server.authenticated == fido_server.registered
    phase3 = backend.requests[3][1]
    assert phase3["sessionId"] == websafe_encode(fido_server.registered[0])
    assert phase3["cookies"].startswith("FIDOSESSION=")


def test_phase_three_refused_rolls_back(card, backend, fido_server):
    card.sdk("register-via-backend", *backend_args(backend, "keep")).ok()
    fido_server.reject_next_registration = "attestation not trusted (flow test)"
    error = card.sdk("register-via-backend", *backend_args(backend, "alice")).failed(601)
    assert "FIDO2 registration failed: attestation not trusted (flow test)" in error["message"]
    assert "deleted from the card again" in error["message"]
    assert error["httpStatus"] == 400
    # The credential phase 2 made is gone from the card; the first registration is still there.
    assert card.all_views_of_credentials() == [websafe_encode(fido_server.registered[0])]


def test_three_phases_driven_by_the_app(card, backend, fido_server):
    """What an app in any language does: phases 1 and 3 itself, phase 2 with the command line."""
    begin = post(backend.url + "/fido/register", {"operation": "register", "username": "carol", "displayName": "Carol",
                                                  "rpId": RP_ID})
    assert begin["status"] == "success"
    server = begin["fidoServerResponse"]
    card_response = card.sdk("register-card-only", "--pin", PIN, "--username", "carol", "--display-name", "Carol",
                             "--rp-id", server["rp"]["id"], "--challenge", server["challenge"],
                             "--origin", begin["fido2ServerOrigin"]).ok()
    complete = post(backend.url + "/fido/register", {"operation": "register", "username": "carol",
                                                     "cardResponseData": card_response, "cookies": begin["cookies"]})
    assert complete == {"status": "success", "operation": "register", "message": "Registration completed successfully"}

    begin = post(backend.url + "/fido/authenticate", {"operation": "authenticate", "username": "carol", "rpId": RP_ID})
    server = begin["fidoServerResponse"]
    card_response = card.sdk("authenticate-card-only", "--pin", PIN, "--username", "carol", "--rp-id", server["rpId"],
                             "--challenge", server["challenge"], "--origin", begin["fido2ServerOrigin"],
                             "--allow-credentials", begin["sessionId"]).ok()
    complete = post(backend.url + "/fido/authenticate", {"operation": "authenticate", "username": "carol",
                                                         "cardResponseData": card_response, "sessionId": begin["sessionId"],
                                                         "cookies": begin["cookies"]})
    assert complete["status"] == "success"
    assert fido_server.authenticated == fido_server.registered


def test_phase_three_without_cookies_is_refused(card, backend, fido_server):
    begin = post(backend.url + "/fido/register", {"operation": "register", "username": "dave", "rpId": RP_ID})
    server = begin["fidoServerResponse"]
    card_response = card.sdk("register-card-only", "--pin", PIN, "--username", "dave", "--rp-id", server["rp"]["id"],
                             "--challenge", server["challenge"], "--origin", begin["fido2ServerOrigin"]).ok()
    complete = post(backend.url + "/fido/register", {"operation": "register", "username": "dave", "cardResponseData": card_response})
    assert complete["status"] == "failed" and "no registration session" in complete["error"]
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
