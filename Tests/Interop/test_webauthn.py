"""WebAuthn registrations and authentications through python-fido2's Fido2Client, checked by
python-fido2's Fido2Server, with packed attestation verified against the emulator's root."""

import pytest
from fido2.webauthn import AttestationObject

import interop_support as support


@pytest.mark.parametrize("resident", ["discouraged", "required"], ids=["non-discoverable", "discoverable"])
def test_register_and_authenticate(card, resident):
    verifier = support.EmulatorRootVerifier()
    rp = support.server(verifier)
    device = card.device()
    try:
        client = support.client(device)
        options, state = rp.register_begin(
            support.user(),
            resident_key_requirement=resident,
            user_verification="discouraged",
            authenticator_attachment="cross-platform",
        )
        registration = client.make_credential(options["publicKey"])
        auth_data = rp.register_complete(state, registration)
        assert verifier.checked == 1, "attestation was not verified against the root"
        attestation = AttestationObject(bytes(registration.response.attestation_object))
        assert attestation.fmt == "packed"
        assert len(attestation.att_stmt["x5c"]) >= 1
        credential = auth_data.credential_data
        assert credential is not None

        # Authenticate with the credential listed (both kinds) ...
        request, state = rp.authenticate_begin([credential], user_verification="discouraged")
        selection = client.get_assertion(request["publicKey"])
        result = selection.get_response(0)
        rp.authenticate_complete(state, [credential], result)

        # ... and, for a discoverable one, without any list (username-less login).
        if resident == "required":
            request, state = rp.authenticate_begin(None, user_verification="discouraged")
            selection = client.get_assertion(request["publicKey"])
            responses = selection.get_assertions()
            assert len(responses) == 1
            assert responses[0].user["id"] == b"user-id-alice"
            rp.authenticate_complete(state, [credential], selection.get_response(0))
    finally:
        device.close()


def test_signature_counter_increases(card):
    rp = support.server()
    device = card.device()
    try:
        client = support.client(device)
        options, state = rp.register_begin(support.user(), user_verification="discouraged")
        auth_data = rp.register_complete(state, client.make_credential(options["publicKey"]))
        credential = auth_data.credential_data
        counters = []
        for _ in range(3):
            request, state = rp.authenticate_begin([credential], user_verification="discouraged")
            result = client.get_assertion(request["publicKey"]).get_response(0)
            rp.authenticate_complete(state, [credential], result)
            counters.append(result.response.authenticator_data.counter)
        assert counters == sorted(counters) and len(set(counters)) == 3
    finally:
        device.close()


def test_several_discoverable_credentials_for_one_rp(card):
    rp = support.server()
    device = card.device()
    try:
        client = support.client(device)
        credentials = []
        for name in ["alice", "bob", "carol"]:
            options, state = rp.register_begin(
                support.user(name, f"id-{name}".encode()), resident_key_requirement="required",
                user_verification="discouraged")
            credentials.append(rp.register_complete(state, client.make_credential(options["publicKey"])).credential_data)
        request, state = rp.authenticate_begin(None, user_verification="discouraged")
        selection = client.get_assertion(request["publicKey"])
        users = sorted(assertion.user["id"] for assertion in selection.get_assertions())
        assert users == [b"id-alice", b"id-bob", b"id-carol"]
        for index in range(3):
            rp.authenticate_complete(state, credentials, selection.get_response(index))
    finally:
        device.close()


def test_register_and_authenticate_with_pin(card):
    from fido2.ctap2 import Ctap2
    from fido2.ctap2.pin import ClientPin

    device = card.device()
    try:
        ClientPin(Ctap2(device)).set_pin("123456")
        rp = support.server(support.EmulatorRootVerifier())
        client = support.client(device, pin="123456")
        options, state = rp.register_begin(support.user(), resident_key_requirement="required",
                                           user_verification="required")
        auth_data = rp.register_complete(state, client.make_credential(options["publicKey"]))
        assert auth_data.is_user_verified()
        credential = auth_data.credential_data
        request, state = rp.authenticate_begin([credential], user_verification="required")
        result = client.get_assertion(request["publicKey"]).get_response(0)
        rp.authenticate_complete(state, [credential], result)
        assert result.response.authenticator_data.is_user_verified()
    finally:
        device.close()


def test_busy_first_card_works_through_polling(busy_card, traffic):
    rp = support.server(support.EmulatorRootVerifier())
    device = busy_card.device()
    try:
        client = support.client(device)
        options, state = rp.register_begin(support.user(), user_verification="discouraged")
        credential = rp.register_complete(state, client.make_credential(options["publicKey"])).credential_data
        request, state = rp.authenticate_begin([credential], user_verification="discouraged")
        rp.authenticate_complete(state, [credential], client.get_assertion(request["publicKey"]).get_response(0))
    finally:
        device.close()
    assert "9100" in traffic.status_words(), "the card never answered 9100"
    assert any(apdu.startswith("80110000") for apdu in traffic.sent()), "python-fido2 never polled"
