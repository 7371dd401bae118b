"""The card-only operations (phase 2 of the backend-proxied flow, and the PIN/reset operations)
through `arculus-card sdk`, with the registrations checked by python-fido2's Fido2Server."""

from __future__ import annotations

import hashlib
import json

from fido2.server import Fido2Server
from fido2.utils import websafe_encode

from flow_rig import PIN
from flow_rig import challenge, decode
from interop_support import EmulatorRootVerifier

ORIGIN = "https://example.com"
NO_CREDENTIAL = ("sdk {}: the card holds no matching credential (CTAP2_ERR_NO_CREDENTIALS); "
                 "it was deleted, or registered on another card or for another relying party")


def relying_party() -> tuple[Fido2Server, EmulatorRootVerifier]:
    verifier = EmulatorRootVerifier()
    server = Fido2Server({"id": "example.com", "name": "Example"}, attestation="direct",
                         verify_origin=lambda origin: origin == ORIGIN, verify_attestation=verifier)
    return server, verifier


def register(card, username="alice@example.com", display_name="Alice", pin=PIN, rp_id="example.com"):
    server, verifier = relying_party()
    options, state = server.register_begin({"id": username.encode(), "name": username, "displayName": display_name},
                                           user_verification="required")
    result = card.sdk("register-card-only", "--pin", pin, "--username", username, "--display-name", display_name,
                      "--rp-id", rp_id, "--challenge", websafe_encode(options.public_key.challenge), "--origin", ORIGIN)
    return server, verifier, state, result


def test_set_pin_and_info(make_card):
    card = make_card()
    info = card.sdk("info").ok()
    assert info["options"]["clientPin"] is False
    assert info["pinRetries"] is None and info["pinRetriesStatus"] == "CTAP2_ERR_PIN_NOT_SET", \
        "what the card answers to getPINRetries before a PIN is set"
    assert info["pinUvAuthProtocols"] == [2, 1]
    assert card.sdk("set-pin", "--pin", PIN).ok() == {"status": "success", "operation": "set-pin", "message": "PIN set"}
    info = card.sdk("info").ok()
    assert info["options"]["clientPin"] is True
    assert info["pinRetries"] == 8 and "pinRetriesStatus" not in info
    error = card.sdk("set-pin", "--pin", "654321").failed(601)
    assert error["message"] == ("sdk set-pin: the card already has a PIN; change it with sdk change-pin, "
                                "or erase the card with sdk reset-device"), "the advice names the CLI's commands"


def test_register_and_authenticate_card_only_verify_at_a_relying_party(card):
    server, verifier, state, result = register(card)
    response = result.ok()
    assert set(response) >= {"id", "rawId", "type", "response"}
    assert response["id"] == response["rawId"] and response["type"] == "public-key"
    assert set(response["response"]) >= {"clientDataJSON", "attestationObject"}
    for value in (response["id"], response["response"]["clientDataJSON"], response["response"]["attestationObject"]):
        assert "=" not in value and "+" not in value and "/" not in value
    client_data = json.loads(decode(response["response"]["clientDataJSON"]))
    assert client_data == {"type": "webauthn.create", "challenge": state["challenge"], "origin": ORIGIN, "crossOrigin": False}

    auth_data = server.register_complete(state, response)
    assert verifier.checked == 1, "the packed attestation chained to the emulator root"
    assert auth_data.is_user_verified()
    credential = auth_data.credential_data

    options, state = server.authenticate_begin([credential], user_verification="required")
    signed = card.sdk("authenticate-card-only", "--pin", PIN, "--username", "alice@example.com", "--rp-id", "example.com",
                      "--challenge", websafe_encode(options.public_key.challenge), "--origin", ORIGIN,
                      "--allow-credentials", response["id"]).ok()
    assert set(signed["response"]) >= {"clientDataJSON", "authenticatorData", "signature", "userHandle"}
    assert json.loads(decode(signed["response"]["clientDataJSON"]))["type"] == "webauthn.get"
    assert decode(signed["response"]["userHandle"]) == b"alice@example.com"
    assert server.authenticate_complete(state, [credential], signed).credential_id == credential.credential_id
    assert card.all_views_of_credentials() == [response["id"]]


def test_authenticate_card_only_by_username_and_603(card):
    ids = {}
    for name in ("alice", "bob"):
        ids[name] = register(card, username=name, display_name=name.title())[3].ok()["id"]
    for name in ("alice", "bob"):
        signed = card.sdk("authenticate-card-only", "--pin", PIN, "--username", name, "--rp-id", "example.com",
                          "--challenge", challenge(), "--origin", ORIGIN).ok()
        assert signed["id"] == ids[name]
    error = card.sdk("authenticate-card-only", "--pin", PIN, "--username", "carol", "--rp-id", "example.com",
                     "--challenge", challenge(), "--origin", ORIGIN).failed(603)
    assert "none of them for 'carol'" in error["message"]


def test_long_user_names_are_chained(card):
    username = "u" * 60 + "@example.com"
    display_name = "D" * 64
    server, verifier, state, result = register(card, username=username, display_name=display_name)
    response = result.ok()
    server.register_complete(state, response)
    if card.served is not None:
        assert "90 10 80 00" in card.served.stderr(), "a chained NFCCTAP_MSG piece went through pcscd"


def test_wrong_pin_is_608_with_retries(card):
    error = register(card, pin="000000")[3].failed(608)
    assert error["ctapStatus"] == "CTAP2_ERR_PIN_INVALID"
    assert error["pinRetries"] == 7
    assert "the PIN is wrong" in error["message"] and "7 attempts left" in error["message"]
    assert card.sdk("info").ok()["pinRetries"] == 7
    register(card)[3].ok()
    assert card.sdk("info").ok()["pinRetries"] == 8, "a right PIN restores the counter"


def test_change_pin(card):
    assert card.sdk("change-pin", "--old-pin", PIN, "--new-pin", "24681357").ok()["message"] == "PIN changed"
    assert register(card)[3].failed(608)["ctapStatus"] == "CTAP2_ERR_PIN_INVALID"
    register(card, pin="24681357")[3].ok()
    error = card.sdk("change-pin", "--old-pin", "11111111", "--new-pin", "22222222").failed(608)
    assert error["pinRetries"] == 7


def test_blocked_pin_then_reset_device(card):
    """Wrong PINs until the card blocks its PIN. On a reader the card stays powered between runs,
    so the third wrong PIN in a row is PIN_AUTH_BLOCKED until the card is tapped again; each run
    on an image is a new tap."""
    registered = register(card)[3].ok()["id"]
    statuses = []
    for _ in range(12):
        error = card.sdk("change-pin", "--old-pin", "000000", "--new-pin", "22222222").failed(608)
        statuses.append(error["ctapStatus"])
        if error["ctapStatus"] == "CTAP2_ERR_PIN_AUTH_BLOCKED":
            assert "tap it again" in error["message"]
            card.retap()
        if error["ctapStatus"] == "CTAP2_ERR_PIN_BLOCKED":
            assert error["message"] == ("sdk change-pin: the PIN is blocked (CTAP2_ERR_PIN_BLOCKED), no attempts left; "
                                        "only sdk reset-device, which erases every credential on the card, makes it usable again")
            break
    assert statuses[-1] == "CTAP2_ERR_PIN_BLOCKED"
    assert len(statuses) == 8, "eight attempts, the last one blocks"
    if card.mode == "pcsc":
        assert statuses[:3] == ["CTAP2_ERR_PIN_INVALID", "CTAP2_ERR_PIN_INVALID", "CTAP2_ERR_PIN_AUTH_BLOCKED"]
    else:
        assert set(statuses[:-1]) == {"CTAP2_ERR_PIN_INVALID"}
    assert register(card)[3].failed(608)["ctapStatus"] == "CTAP2_ERR_PIN_BLOCKED", "even the right PIN"

    card.retap()  # reset is allowed only right after a tap
    assert card.sdk("reset-device", "--pin", "13572468").ok()["status"] == "success"
    assert card.all_views_of_credentials(pin="13572468") == []
    assert registered
    register(card, pin="13572468")[3].ok()


def test_delete_credential_then_602(card):
    response = register(card)[3].ok()
    other = register(card, username="bob")[3].ok()
    deleted = card.sdk("delete-credential", "--pin", PIN, "--credential-id", response["id"]).ok()
    assert deleted["credentialId"] == response["id"]
    assert card.all_views_of_credentials() == [other["id"]], "gone, and only that one"
    error = card.sdk("authenticate-card-only", "--pin", PIN, "--username", "alice@example.com", "--rp-id", "example.com",
                     "--challenge", challenge(), "--origin", ORIGIN, "--allow-credentials", response["id"]).failed(602)
    assert error["ctapStatus"] == "CTAP2_ERR_NO_CREDENTIALS"
    assert error["message"] == NO_CREDENTIAL.format("authenticate-card-only")
    again = card.sdk("delete-credential", "--pin", PIN, "--credential-id", response["id"]).failed(602)
    assert again["ctapStatus"] == "CTAP2_ERR_NO_CREDENTIALS"
    assert again["message"] == NO_CREDENTIAL.format("delete-credential")


def test_keystore_full_is_606(make_card, capacity_one_profile):
    card = make_card(profile=capacity_one_profile)
    card.set_pin()
    assert card.sdk("info").ok()["remainingDiscoverableCredentials"] == 1
    register(card)[3].ok()
    error = register(card, username="bob")[3].failed(606)
    assert error["ctapStatus"] == "CTAP2_ERR_KEY_STORE_FULL"
    assert error["message"] == ("sdk register-card-only: the card has no room for another credential "
                                "(CTAP2_ERR_KEY_STORE_FULL); delete one with sdk delete-credential")
    assert len(card.credential_ids()) == 1


def test_card_taken_away_is_600(make_card):
    """image: the card leaves the field after SELECT, getInfo and the key agreement
    (--remove-card-after 3); pcsc: the card is off the reader (SIGUSR1, long --tap-delay) when
    the operation starts."""
    card = make_card(tap_delay=6)
    card.set_pin()
    if card.mode == "image":
        result = card.sdk("register-card-only", "--pin", PIN, "--username", "alice", "--rp-id", "example.com",
                          "--challenge", challenge(), "--origin", ORIGIN,
                          card_args=card.args + ["--remove-card-after", "3"])
    else:
        card.served.remove()
        card.served.wait_absent()
        result = card.sdk("register-card-only", "--pin", PIN, "--username", "alice", "--rp-id", "example.com",
                          "--challenge", challenge(), "--origin", ORIGIN, card_args=["--reader", card.served.reader])
    error = result.failed(600)
    if card.mode == "pcsc":
        assert error["message"].startswith("sdk register-card-only: no card on the reader ("), \
            "no card was there when the tap began: it did not leave"
        assert "SCARD_E_NO_SMARTCARD" in error["message"] or "SCARD_W_REMOVED_CARD" in error["message"]
    else:
        assert error["message"] == ("sdk register-card-only: the card left the reader (the card left the field); hold it on "
                                    "the reader and try again")
    if card.served is not None:
        card.served.wait_back(2)
    assert card.credential_ids() == [], "nothing was registered"
    assert card.sdk("info").ok()["pinRetries"] == 8, "and no PIN attempt was used"


def test_pin_protocol_one_card(make_card, tmp_path):
    """A card that lists only PIN/UV auth protocol 1 and no pinUvAuthToken (the FIDO2/U2F model):
    the client falls back to protocol 1 and getPinToken."""
    card = make_card(profile="arculus-fido2")
    card.set_pin()
    info = card.sdk("info").ok()
    assert info["pinUvAuthProtocols"] == [1] and "pinUvAuthToken" not in info["options"]
    server, verifier, state, result = register(card)
    server.register_complete(state, result.ok())
    error = card.sdk("delete-credential", "--pin", PIN, "--credential-id", result.ok()["id"]).failed(601)
    assert error["message"] == ("sdk delete-credential: the card has no pinUvAuthToken option, so its PIN token allows "
                                "makeCredential and getAssertion only")
