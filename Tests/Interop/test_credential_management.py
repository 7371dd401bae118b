"""authenticatorCredentialManagement through python-fido2: metadata, RP and credential
enumeration, deletion."""

import hashlib

import pytest
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.ctap2.credman import CredentialManagement
from fido2.ctap2.pin import ClientPin, PinProtocolV1, PinProtocolV2

PIN = "314159"


def register(ctap2, client_pin, rp_id, user_id, name):
    client_data_hash = hashlib.sha256(rp_id.encode() + user_id).digest()
    token = client_pin.get_pin_token(PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL, rp_id)
    response = ctap2.make_credential(
        client_data_hash,
        {"id": rp_id, "name": rp_id},
        {"id": user_id, "name": name, "displayName": name.title()},
        [{"type": "public-key", "alg": -7}],
        options={"rk": True},
        pin_uv_param=client_pin.protocol.authenticate(token, client_data_hash),
        pin_uv_protocol=client_pin.protocol.VERSION,
    )
    return response.auth_data.credential_data.credential_id


def credman(ctap2, client_pin):
    token = client_pin.get_pin_token(PIN, ClientPin.PERMISSION.CREDENTIAL_MGMT)
    return CredentialManagement(ctap2, client_pin.protocol, token)


@pytest.mark.parametrize("protocol", [PinProtocolV1, PinProtocolV2], ids=["protocol-1", "protocol-2"])
def test_enumerate_and_delete(card, protocol):
    device = card.device()
    try:
        ctap2 = Ctap2(device)
        client_pin = ClientPin(ctap2, protocol())
        client_pin.set_pin(PIN)
        ids = {
            ("example.com", b"alice"): register(ctap2, client_pin, "example.com", b"alice", "alice"),
            ("example.com", b"bob"): register(ctap2, client_pin, "example.com", b"bob", "bob"),
            ("example.org", b"carol"): register(ctap2, client_pin, "example.org", b"carol", "carol"),
        }

        manager = credman(ctap2, client_pin)
        metadata = manager.get_metadata()
        assert metadata[CredentialManagement.RESULT.EXISTING_CRED_COUNT] == 3
        assert metadata[CredentialManagement.RESULT.MAX_REMAINING_COUNT] >= 1

        rps = manager.enumerate_rps()
        assert sorted(rp[CredentialManagement.RESULT.RP]["id"] for rp in rps) == ["example.com", "example.org"]
        for rp in rps:
            rp_id = rp[CredentialManagement.RESULT.RP]["id"]
            assert rp[CredentialManagement.RESULT.RP_ID_HASH] == hashlib.sha256(rp_id.encode()).digest()

        com = manager.enumerate_creds(hashlib.sha256(b"example.com").digest())
        users = sorted(cred[CredentialManagement.RESULT.USER]["id"] for cred in com)
        assert users == [b"alice", b"bob"]
        for cred in com:
            user_id = cred[CredentialManagement.RESULT.USER]["id"]
            assert cred[CredentialManagement.RESULT.CREDENTIAL_ID]["id"] == ids[("example.com", user_id)]

        manager.delete_cred({"type": "public-key", "id": ids[("example.com", b"alice")]})
        remaining = manager.enumerate_creds(hashlib.sha256(b"example.com").digest())
        assert [cred[CredentialManagement.RESULT.USER]["id"] for cred in remaining] == [b"bob"]
        assert manager.get_metadata()[CredentialManagement.RESULT.EXISTING_CRED_COUNT] == 2

        manager.delete_cred({"type": "public-key", "id": ids[("example.org", b"carol")]})
        rps = manager.enumerate_rps()
        assert [rp[CredentialManagement.RESULT.RP]["id"] for rp in rps] == ["example.com"]

        # A deleted credential no longer signs.
        with pytest.raises(CtapError) as raised:
            ctap2.get_assertion("example.org", b"\0" * 32,
                                allow_list=[{"type": "public-key", "id": ids[("example.org", b"carol")]}])
        assert raised.value.code == CtapError.ERR.NO_CREDENTIALS

        with pytest.raises(CtapError) as raised:
            manager.delete_cred({"type": "public-key", "id": ids[("example.org", b"carol")]})
        assert raised.value.code == CtapError.ERR.NO_CREDENTIALS
    finally:
        device.close()


def test_credential_management_needs_the_right_permission(card):
    device = card.device()
    try:
        ctap2 = Ctap2(device)
        client_pin = ClientPin(ctap2)
        client_pin.set_pin(PIN)
        token = client_pin.get_pin_token(PIN, ClientPin.PERMISSION.GET_ASSERTION, "example.com")
        manager = CredentialManagement(ctap2, client_pin.protocol, token)
        with pytest.raises(CtapError) as raised:
            manager.get_metadata()
        assert raised.value.code == CtapError.ERR.PIN_AUTH_INVALID
    finally:
        device.close()


def test_credentials_survive_removal_from_the_reader(card):
    device = card.device()
    try:
        ctap2 = Ctap2(device)
        client_pin = ClientPin(ctap2)
        client_pin.set_pin(PIN)
        register(ctap2, client_pin, "example.com", b"alice", "alice")
    finally:
        device.close()
    card.retap()
    device = card.device()
    try:
        ctap2 = Ctap2(device)
        manager = credman(ctap2, ClientPin(ctap2))
        assert manager.get_metadata()[CredentialManagement.RESULT.EXISTING_CRED_COUNT] == 1
    finally:
        device.close()
