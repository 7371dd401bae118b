"""CTAP1 / U2F over NFC through python-fido2's Ctap1 (which sends U2F's extended-length APDUs;
the PC/SC layer turns them into short, chained APDUs with GET RESPONSE)."""

import hashlib
import os

import pytest
from cryptography import x509
from fido2.ctap1 import ApduError, Ctap1

import interop_support as support

APP = hashlib.sha256(b"https://example.com").digest()


def test_version(card):
    device = card.device()
    try:
        assert Ctap1(device).get_version() == "U2F_V2"
    finally:
        device.close()


def test_register_and_authenticate(card, traffic):
    device = card.device()
    try:
        ctap1 = Ctap1(device)
        challenge = os.urandom(32)
        registration = ctap1.register(challenge, APP)
        registration.verify(APP, challenge)
        assert len(registration.public_key) == 65

        certificate = x509.load_der_x509_certificate(registration.certificate)
        root = x509.load_der_x509_certificate(support.root_certificate_der())
        certificate.verify_directly_issued_by(root)

        counters = []
        for _ in range(2):
            client_param = os.urandom(32)
            signature = ctap1.authenticate(client_param, APP, registration.key_handle)
            signature.verify(APP, client_param, registration.public_key)
            assert signature.user_presence & 0x01
            counters.append(signature.counter)
        assert counters[1] > counters[0]
    finally:
        device.close()
    # The registration response (with its certificate) is longer than 256 bytes.
    assert any(sw.startswith("61") for sw in traffic.status_words())


def test_check_only_and_wrong_application(card):
    device = card.device()
    try:
        ctap1 = Ctap1(device)
        registration = ctap1.register(os.urandom(32), APP)
        with pytest.raises(ApduError) as raised:
            ctap1.authenticate(os.urandom(32), APP, registration.key_handle, check_only=True)
        assert raised.value.code == 0x6985  # known key handle: "test of user presence required"
        with pytest.raises(ApduError) as raised:
            ctap1.authenticate(os.urandom(32), hashlib.sha256(b"other").digest(), registration.key_handle)
        assert raised.value.code == 0x6A80  # bad key handle for that application
        with pytest.raises(ApduError) as raised:
            ctap1.authenticate(os.urandom(32), APP, os.urandom(64))
        assert raised.value.code == 0x6A80
    finally:
        device.close()


def test_u2f_credential_is_usable_through_ctap2(card):
    """A U2F registration can be asserted with CTAP2 getAssertion (appid compatibility)."""
    from fido2.ctap2 import Ctap2

    device = card.device()
    try:
        registration = Ctap1(device).register(os.urandom(32), APP)
        ctap2 = Ctap2(device)
        # CTAP2 hashes the rpId itself; U2F's application parameter was the hash of the appid,
        # so use the appid as rpId.
        assertion = ctap2.get_assertion("https://example.com", os.urandom(32),
                                        allow_list=[{"type": "public-key", "id": registration.key_handle}])
        assert assertion.credential["id"] == registration.key_handle
    finally:
        device.close()
