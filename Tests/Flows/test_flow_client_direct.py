"""The client-direct flow: `sdk register-user` / `authenticate-user` against the FIDO2 server of
the rig (vendor REST API, python-fido2 verification, session cookies)."""

from __future__ import annotations

from fido2.utils import websafe_encode

from flow_rig import PIN, RP_ID


def server_args(fido_server, *extra):
    return ("--server", fido_server.url, "--pin", PIN, "--rp-id", RP_ID, *extra)


def test_register_then_authenticate(card, fido_server):
    result = card.sdk("register-user", *server_args(fido_server, "--username", "alice", "--display-name", "Alice",
                                                    "--registration-info", "flow test device")).ok()
    assert result["status"] == "ok"
    assert len(fido_server.registered) == 1
    assert fido_server.verifier.checked == 1, "attestation verified against the emulator root"
    assert fido_server.users["alice"].registration_info == ["flow test device"]
    assert result["credentialId"] == websafe_encode(fido_server.registered[0])
    assert card.all_views_of_credentials() == [result["credentialId"]]

    paths = [(path, cookies) for path, _, cookies in fido_server.requests]
    assert paths[0] == ("/fidoapi/certify/attestation/options", {})
    assert paths[1][0] == "/fidoapi/certify/attestation/result" and "FIDOSESSION" in paths[1][1], "the session cookie came back"

    signed = card.sdk("authenticate-user", *server_args(fido_server, "--username", "alice")).ok()
    assert signed["status"] == "ok"
    assert fido_server.authenticated == fido_server.registered
    assert [p for p, _, _ in fido_server.requests][2:] == ["/fidoapi/certify/assertion/options", "/fidoapi/certify/assertion/result"]


def test_configurable_endpoints(card, fido_server):
    card.sdk("register-user", *server_args(fido_server, "--username", "bob", "--begin-endpoint", "/fidoapi/register/begin",
                                           "--complete-endpoint", "fidoapi/register/complete")).ok()
    card.sdk("authenticate-user", *server_args(fido_server, "--username", "bob", "--begin-endpoint", "fidoapi/authenticate/begin",
                                               "--complete-endpoint", "/fidoapi/authenticate/complete")).ok()
    assert [p for p, _, _ in fido_server.requests] == [
        "/fidoapi/register/begin", "/fidoapi/register/complete", "/fidoapi/authenticate/begin", "/fidoapi/authenticate/complete"]
    assert len(fido_server.authenticated) == 1


def test_server_refuses_result_rolls_back(card, fido_server):
    card.sdk("register-user", *server_args(fido_server, "--username", "keep")).ok()
    fido_server.reject_next_registration = "rejected by the flow test"
    error = card.sdk("register-user", *server_args(fido_server, "--username", "alice")).failed(601)
    assert "rejected by the flow test" in error["message"]
    assert "deleted from the card again" in error["message"]
    assert error["httpStatus"] == 400
    assert card.all_views_of_credentials() == [websafe_encode(fido_server.registered[0])], "only the first one is left"


def test_unknown_user_is_603(card, fido_server):
    error = card.sdk("authenticate-user", *server_args(fido_server, "--username", "nobody")).failed(603)
    assert "User does not exist" in error["message"]


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
    assert fido_server.registered == []


def test_reset_device_before_registering(card, fido_server):
    card.sdk("register-user", *server_args(fido_server, "--username", "old")).ok()
    card.retap()  # reset is allowed only right after a tap
    card.sdk("register-user", *server_args(fido_server, "--username", "new", "--reset-device")).ok()
    assert card.all_views_of_credentials() == [websafe_encode(fido_server.registered[1])]


def test_card_taken_away_mid_flow_is_600(make_card, fido_server):
    """The card is tapped (SELECT, getInfo), then taken away while the FIDO2 server prepares its
    options: pcsc: SIGUSR1 to serve with a long --tap-delay from the server's options handler;
    image: the card leaves the field after those two APDUs (--remove-card-after 2)."""
    card = make_card(tap_delay=6)
    card.set_pin()
    card_args = card.args
    if card.mode == "pcsc":
        def take_card_away(kind):
            card.served.remove()
            card.served.wait_absent()
        fido_server.before_options = take_card_away
    else:
        card_args = card_args + ["--remove-card-after", "2"]
    result = card.sdk("register-user", *server_args(fido_server, "--username", "alice"), card_args=card_args)
    error = result.failed(600)
    assert error["message"].startswith("sdk register-user: the card left the reader ("), error["message"]
    if card.mode == "pcsc":
        assert "SCARD_W_REMOVED_CARD" in error["message"] or "SCARD_E_NO_SMARTCARD" in error["message"], error["message"]
    assert [p for p, _, _ in fido_server.requests] == ["/fidoapi/certify/attestation/options"], "no result was sent"
    if card.mode == "pcsc":
        fido_server.before_options = None
        card.served.wait_back(2)
    assert card.credential_ids() == []
