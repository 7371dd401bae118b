"""The hmac-secret (and WebAuthn prf on top of it) and credProtect extensions."""

import hashlib
import os

import pytest
from fido2.client import DefaultClientDataCollector, Fido2Client
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.ctap2.extensions import CredProtectExtension, HmacSecretExtension
from fido2.utils import websafe_decode

import interop_support as support


def hmac_client(device):
    return Fido2Client(
        device, DefaultClientDataCollector(support.ORIGIN), user_interaction=support.PinInteraction(),
        extensions=[HmacSecretExtension(allow_hmac_secret=True), CredProtectExtension()])


def test_hmac_secret(card):
    rp = support.server()
    device = card.device()
    try:
        client = hmac_client(device)
        options, state = rp.register_begin(support.user(), user_verification="discouraged",
                                           extensions={"hmacCreateSecret": True})
        registration = client.make_credential(options["publicKey"])
        assert registration.client_extension_results["hmacCreateSecret"] is True
        credential = rp.register_complete(state, registration).credential_data

        salt1, salt2 = os.urandom(32), os.urandom(32)

        def secrets(extension):
            request, state = rp.authenticate_begin([credential], user_verification="discouraged")
            request = dict(request["publicKey"])
            request["extensions"] = extension
            result = client.get_assertion(request).get_response(0)
            rp.authenticate_complete(state, [credential], result)
            # Client extension results are in their JSON form: base64url strings.
            output = result.client_extension_results["hmacGetSecret"]
            return {key: websafe_decode(value) for key, value in output.items()}

        first = secrets({"hmacGetSecret": {"salt1": salt1}})
        again = secrets({"hmacGetSecret": {"salt1": salt1, "salt2": salt2}})
        other = secrets({"hmacGetSecret": {"salt1": salt2}})
        assert len(first["output1"]) == 32
        assert again["output1"] == first["output1"]
        assert again["output2"] == other["output1"]
        assert first["output1"] != other["output1"]
    finally:
        device.close()


def test_prf(card):
    rp = support.server()
    device = card.device()
    try:
        client = support.client(device)
        options, state = rp.register_begin(support.user(), user_verification="discouraged", extensions={"prf": {}})
        registration = client.make_credential(options["publicKey"])
        assert registration.client_extension_results["prf"]["enabled"] is True
        credential = rp.register_complete(state, registration).credential_data
        outputs = []
        for _ in range(2):
            request, state = rp.authenticate_begin([credential], user_verification="discouraged")
            request = dict(request["publicKey"])
            request["extensions"] = {"prf": {"eval": {"first": b"salt for the prf extension"}}}
            result = client.get_assertion(request).get_response(0)
            outputs.append(websafe_decode(result.client_extension_results["prf"]["results"]["first"]))
        assert outputs[0] == outputs[1] and len(outputs[0]) == 32
    finally:
        device.close()


def make_discoverable(ctap2, user_id, cred_protect):
    response = ctap2.make_credential(
        hashlib.sha256(user_id).digest(),
        {"id": "example.com", "name": "Example"},
        {"id": user_id, "name": user_id.decode()},
        [{"type": "public-key", "alg": -7}],
        extensions={"credProtect": cred_protect},
        options={"rk": True},
    )
    assert response.auth_data.extensions == {"credProtect": cred_protect}
    return response.auth_data.credential_data.credential_id


def test_cred_protect_policies(card):
    device = card.device()
    try:
        ctap2 = Ctap2(device)
        optional = make_discoverable(ctap2, b"level-1", 1)
        with_list = make_discoverable(ctap2, b"level-2", 2)
        uv_required = make_discoverable(ctap2, b"level-3", 3)

        # Without UV and without an allow list only level 1 is found.
        found = ctap2.get_assertions("example.com", b"\1" * 32)
        assert [a.credential["id"] for a in found] == [optional]

        # With an allow list, level 2 is found too, level 3 still not.
        assertion = ctap2.get_assertion("example.com", b"\1" * 32,
                                        allow_list=[{"type": "public-key", "id": with_list}])
        assert assertion.credential["id"] == with_list
        with pytest.raises(CtapError) as raised:
            ctap2.get_assertion("example.com", b"\1" * 32, allow_list=[{"type": "public-key", "id": uv_required}])
        assert raised.value.code == CtapError.ERR.NO_CREDENTIALS
    finally:
        device.close()


def test_cred_protect_through_the_client(card):
    rp = support.server()
    device = card.device()
    try:
        client = hmac_client(device)
        options, state = rp.register_begin(
            support.user(), resident_key_requirement="required", user_verification="discouraged",
            extensions={"credentialProtectionPolicy": "userVerificationOptionalWithCredentialIDList",
                        "enforceCredentialProtectionPolicy": True})
        auth_data = rp.register_complete(state, client.make_credential(options["publicKey"]))
        assert auth_data.extensions == {"credProtect": 2}
    finally:
        device.close()
