"""Long requests and responses: ISO 7816 command chaining (python-fido2 cuts short APDUs
into 250-byte pieces with CLA|0x10) and response chaining (61xx + GET RESPONSE), the
extended-APDU path, and a request over maxMsgSize."""

import hashlib
import os

import pytest
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2

RP = {"id": "example.com", "name": "Example RP"}
KEY_PARAMS = [{"type": "public-key", "alg": -7}]


def exclude_list(count, length):
    return [{"type": "public-key", "id": os.urandom(length)} for _ in range(count)]


def test_big_exclude_list_is_chained_both_ways(card, traffic):
    device = card.device()
    try:
        ctap2 = Ctap2(device)
        info = ctap2.get_info()
        count = info.max_creds_in_list or 8
        length = info.max_cred_id_length or 128
        response = ctap2.make_credential(
            hashlib.sha256(b"big").digest(), RP, {"id": b"u1", "name": "u1"}, KEY_PARAMS,
            exclude_list=exclude_list(count, length))
        assert response.fmt == "packed"
    finally:
        device.close()
    sent = traffic.sent()
    pieces = [apdu for apdu in sent if apdu.startswith("901080")]
    assert len(pieces) >= 3, "the request was not chained"
    assert all(len(bytes.fromhex(apdu)) == 5 + 250 for apdu in pieces)
    assert any(sw.startswith("61") for sw in traffic.status_words()), "the response was not chained"
    assert any(apdu.startswith("00c00000") for apdu in sent)


def test_excluded_credential_is_found_in_a_long_list(card):
    device = card.device()
    try:
        ctap2 = Ctap2(device)
        first = ctap2.make_credential(hashlib.sha256(b"a").digest(), RP, {"id": b"u1", "name": "u1"}, KEY_PARAMS)
        existing = {"type": "public-key", "id": first.auth_data.credential_data.credential_id}
        count = ctap2.info.max_creds_in_list or 8
        with pytest.raises(CtapError) as raised:
            ctap2.make_credential(hashlib.sha256(b"b").digest(), RP, {"id": b"u2", "name": "u2"}, KEY_PARAMS,
                                  exclude_list=exclude_list(count - 1, 100) + [existing])
        assert raised.value.code == CtapError.ERR.CREDENTIAL_EXCLUDED
    finally:
        device.close()


def test_long_user_entity(card, traffic):
    device = card.device()
    try:
        ctap2 = Ctap2(device)
        user = {"id": os.urandom(64), "name": "n" * 64 + "@example.com", "displayName": "D" * 64,
                "icon": "https://example.com/" + "i" * 200}
        response = ctap2.make_credential(hashlib.sha256(b"u").digest(), RP, user, KEY_PARAMS, options={"rk": True})
        credential_id = response.auth_data.credential_data.credential_id
        assertion = ctap2.get_assertion("example.com", hashlib.sha256(b"x").digest())
        assert assertion.credential["id"] == credential_id
        assert assertion.user["id"] == user["id"]
    finally:
        device.close()
    assert any(apdu.startswith("9010") for apdu in traffic.sent())


def test_extended_apdus(card, traffic):
    device = card.device()
    device.use_ext_apdu = True
    try:
        ctap2 = Ctap2(device)
        response = ctap2.make_credential(
            hashlib.sha256(b"ext").digest(), RP, {"id": b"u1", "name": "u1"}, KEY_PARAMS,
            exclude_list=exclude_list(8, 128))
        assert response.fmt == "packed"
    finally:
        device.close()
    extended = [apdu for apdu in traffic.sent() if apdu.startswith("8010800000")]
    assert extended, "no extended APDU was sent"
    assert not any(sw.startswith("61") for sw in traffic.status_words())


def test_request_over_max_msg_size(card):
    device = card.device()
    try:
        ctap2 = Ctap2(device)
        limit = ctap2.info.max_msg_size
        with pytest.raises(CtapError) as raised:
            ctap2.make_credential(hashlib.sha256(b"big").digest(), RP, {"id": b"u1", "name": "u1"}, KEY_PARAMS,
                                  exclude_list=exclude_list(limit // 100 + 2, 100))
        assert raised.value.code == CtapError.ERR.REQUEST_TOO_LARGE
        # The card still works afterwards.
        assert ctap2.get_info().max_msg_size == limit
    finally:
        device.close()
