"""authenticatorClientPIN through python-fido2's ClientPin, PIN/UV auth protocols 1 and 2:
set, change, wrong PIN, PIN_AUTH_BLOCKED after 3 wrong PINs in a row (cleared by taking the
card off the reader and tapping it again), PIN_BLOCKED after 8, and reset."""

import pytest
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.ctap2.pin import ClientPin, PinProtocolV1, PinProtocolV2

PROTOCOLS = [PinProtocolV1, PinProtocolV2]
IDS = ["protocol-1", "protocol-2"]
ERR = CtapError.ERR


def pin_client(device, protocol):
    return ClientPin(Ctap2(device), protocol())


def expect_error(code, call, *args):
    with pytest.raises(CtapError) as raised:
        call(*args)
    assert raised.value.code == code, f"expected {code!r}, got {raised.value.code!r}"


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=IDS)
def test_set_and_change_pin(card, protocol):
    device = card.device()
    try:
        client_pin = pin_client(device, protocol)
        assert Ctap2(device).get_info().options.get("clientPin") is False
        client_pin.set_pin("123456")
        assert Ctap2(device).get_info().options.get("clientPin") is True
        assert client_pin.get_pin_retries()[0] == 8
        token = client_pin.get_pin_token("123456", ClientPin.PERMISSION.GET_ASSERTION, "example.com")
        assert len(token) in (16, 32)
        # A second setPIN is refused: a PIN is already set.
        expect_error(ERR.PIN_AUTH_INVALID, client_pin.set_pin, "654321")
        client_pin.change_pin("123456", "24680135")
        expect_error(ERR.PIN_INVALID, client_pin.get_pin_token, "123456")
        assert client_pin.get_pin_retries()[0] == 7
        client_pin.get_pin_token("24680135")
        assert client_pin.get_pin_retries()[0] == 8
    finally:
        device.close()


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=IDS)
def test_change_pin_with_wrong_current_pin(card, protocol):
    device = card.device()
    try:
        client_pin = pin_client(device, protocol)
        client_pin.set_pin("123456")
        expect_error(ERR.PIN_INVALID, client_pin.change_pin, "999999", "24680135")
        assert client_pin.get_pin_retries()[0] == 7
        client_pin.get_pin_token("123456")
    finally:
        device.close()


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=IDS)
def test_pin_too_short_is_refused(card, protocol):
    device = card.device()
    try:
        client_pin = pin_client(device, protocol)
        # python-fido2 refuses PINs under 4 characters itself, so encrypt a 3-digit one by hand
        # (padded to 64 bytes as the spec wants) to reach the card's own check.
        key_agreement, shared_secret = client_pin._get_shared_secret()
        pin_enc = client_pin.protocol.encrypt(shared_secret, b"123".ljust(64, b"\0"))
        expect_error(
            ERR.PIN_POLICY_VIOLATION, client_pin.ctap.client_pin, client_pin.protocol.VERSION,
            ClientPin.CMD.SET_PIN, key_agreement, client_pin.protocol.authenticate(shared_secret, pin_enc),
            pin_enc)
        assert Ctap2(device).get_info().options.get("clientPin") is False
    finally:
        device.close()


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=IDS)
def test_three_wrong_pins_block_until_the_card_is_tapped_again(card, protocol):
    device = card.device()
    try:
        client_pin = pin_client(device, protocol)
        client_pin.set_pin("123456")
        expect_error(ERR.PIN_INVALID, client_pin.get_pin_token, "000000")
        expect_error(ERR.PIN_INVALID, client_pin.get_pin_token, "000000")
        expect_error(ERR.PIN_AUTH_BLOCKED, client_pin.get_pin_token, "000000")
        # Even the right PIN is refused until a power cycle.
        expect_error(ERR.PIN_AUTH_BLOCKED, client_pin.get_pin_token, "123456")
        assert client_pin.get_pin_retries()[0] == 5
    finally:
        device.close()

    card.retap()
    device = card.device()
    try:
        client_pin = pin_client(device, protocol)
        assert client_pin.get_pin_retries()[0] == 5
        client_pin.get_pin_token("123456")
        assert client_pin.get_pin_retries()[0] == 8
    finally:
        device.close()


@pytest.mark.parametrize("protocol", PROTOCOLS, ids=IDS)
def test_eight_wrong_pins_block_the_pin_and_reset_recovers(card, protocol):
    device = card.device()
    try:
        pin_client(device, protocol).set_pin("123456")
    finally:
        device.close()

    wrong = 0
    while wrong < 8:
        device = card.device()
        try:
            client_pin = pin_client(device, protocol)
            for attempt in range(3):
                if wrong == 8:
                    break
                wrong += 1
                if wrong == 8:
                    expect_error(ERR.PIN_BLOCKED, client_pin.get_pin_token, "000000")
                elif attempt == 2:
                    expect_error(ERR.PIN_AUTH_BLOCKED, client_pin.get_pin_token, "000000")
                else:
                    expect_error(ERR.PIN_INVALID, client_pin.get_pin_token, "000000")
        finally:
            device.close()
        card.retap()

    device = card.device()
    try:
        client_pin = pin_client(device, protocol)
        assert client_pin.get_pin_retries()[0] == 0
        expect_error(ERR.PIN_BLOCKED, client_pin.get_pin_token, "123456")
        # Reset is allowed within the reset window after power-up (we were just tapped).
        Ctap2(device).reset()
        assert Ctap2(device).get_info().options.get("clientPin") is False
        client_pin = pin_client(device, protocol)
        client_pin.set_pin("11223344")
        client_pin.get_pin_token("11223344")
    finally:
        device.close()


def test_reset_erases_credentials_and_pin(card):
    import interop_support as support

    device = card.device()
    try:
        ClientPin(Ctap2(device)).set_pin("123456")
        rp = support.server()
        client = support.client(device, pin="123456")
        options, state = rp.register_begin(support.user(), resident_key_requirement="required",
                                           user_verification="required")
        rp.register_complete(state, client.make_credential(options["publicKey"]))
    finally:
        device.close()
    card.retap()
    device = card.device()
    try:
        ctap2 = Ctap2(device)
        ctap2.reset()
        info = ctap2.get_info()
        assert info.options.get("clientPin") is False
        expect_error(ERR.NO_CREDENTIALS, ctap2.get_assertion, "example.com", b"\0" * 32)
    finally:
        device.close()
