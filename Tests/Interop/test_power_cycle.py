"""A tap clears the card's volatile state, seen by real clients through pcscd + vpcd: the card is
driven into a state (a PIN token, three wrong PINs in a row, a pending getNextAssertion, a 61xx
response waiting for GET RESPONSE, a selected applet, an open command chain, a key-agreement
key), taken off the reader and tapped again with `arculus-card ctl tap` (or the control socket's
`tap` op), and the state is gone: the old token answers PIN_AUTH_INVALID, PIN_AUTH_BLOCKED is
lifted, getNextAssertion answers NOT_ALLOWED, GET RESPONSE and NFCCTAP_MSG answer 6985, SELECT
is no longer refused as inside a chain, getKeyAgreement answers a new key.

Every connection here leaves the card powered when it ends (SCARD_LEAVE_CARD; pyscard's default
unpowers it, a power cycle of its own), so the tap is the only power cycle. Each test
first shows the state surviving a disconnect and a new connection without a tap, so the check
after the tap could fail."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess

import pytest
from fido2.cose import ES256
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.ctap2.pin import ClientPin, PinProtocolV2
from fido2.pcsc import CtapPcscDevice
from smartcard.scard import SCARD_LEAVE_CARD

from conftest import _binary, _serve, _unavailable, _wait_insertion_seen

ERR = CtapError.ERR
PIN = "135790"
CLIENT_DATA_HASH = hashlib.sha256(b"power cycle").digest()
RP = {"id": "example.com", "name": "Example"}
SELECT = [0x00, 0xA4, 0x04, 0x00, 0x08, 0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01, 0x00]
GET_INFO = [0x80, 0x10, 0x00, 0x00, 0x01, 0x04, 0x00]
GET_RESPONSE = [0x00, 0xC0, 0x00, 0x00, 0x00]


class Tapped:
    """A served card with a control socket, and the two ways to tap it."""

    def __init__(self, served, control):
        self.served = served
        self.control = str(control)

    def _wait_back(self, before: int):
        self.served.wait_present(before + 1)
        _wait_insertion_seen(self.served)

    def tap(self):
        """`arculus-card ctl tap`: off the reader, back after a second (pcscd must see it go)."""
        before = self.served.presences()
        result = subprocess.run([str(_binary()), "ctl", "--control", self.control, "tap", "--delay", "1"],
                                capture_output=True, text=True, timeout=30)
        answer = json.loads(result.stdout.strip().splitlines()[-1])
        assert result.returncode == 0 and answer["ok"] is True, f"ctl tap: {result.stdout} {result.stderr}"
        self._wait_back(before)

    def tap_over_socket(self):
        """The control socket's `tap` op, one JSON line each way."""
        before = self.served.presences()
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.connect(self.control)
            stream = connection.makefile("rw", encoding="utf-8", newline="\n")
            stream.write(json.dumps({"op": "tap", "delay": 1}) + "\n")
            stream.flush()
            answer = json.loads(stream.readline())
        assert answer["ok"] is True, answer
        self._wait_back(before)


@pytest.fixture
def tapped(request, pcsc_reader, tmp_path):
    binary = _binary()
    if not binary.exists():
        _unavailable(f"no arculus-card binary at {binary} (build it, or set ARCULUS_CARD)")
    control = tmp_path / "ctl.sock"
    generator = _serve(request, pcsc_reader, tmp_path, ["--control", str(control)])
    served = next(generator)
    request.addfinalizer(lambda: served.process.poll() is None and served.stop())
    request.addfinalizer(lambda: next(generator, None))
    return Tapped(served, control)


def connect(served):
    """A raw connection to the card; ending it leaves the card powered."""
    return served.connection(disposition=SCARD_LEAVE_CARD)


class AlreadyConnected:
    """A connected pyscard connection whose connect() does nothing: python-fido2 calls it."""

    def __init__(self, connection):
        self._connection = connection

    def connect(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        return getattr(self._connection, name)


def device(served) -> CtapPcscDevice:
    """python-fido2's device over such a connection (it sends SELECT and getInfo)."""
    return CtapPcscDevice(AlreadyConnected(connect(served)), served.reader)


def expect_ctap_error(code, call, *args, **kwargs):
    with pytest.raises(CtapError) as raised:
        call(*args, **kwargs)
    assert raised.value.code == code, f"expected {code!r}, got {raised.value.code!r}"


def transmit(connection, apdu) -> tuple[list[int], int]:
    data, sw1, sw2 = connection.transmit(apdu)
    return data, sw1 << 8 | sw2


def ctap_message(connection, message: list[int]) -> list[int]:
    """An NFCCTAP_MSG on a raw connection; its CTAP answer (status byte + CBOR)."""
    data, sw = transmit(connection, [0x80, 0x10, 0x00, 0x00, len(message), *message, 0x00])
    assert sw == 0x9000, f"NFCCTAP_MSG answered {sw:04X}"
    return data


def make_credential(ctap: Ctap2, user_id: bytes, token: bytes | None = None, protocol=None):
    parameters = {}
    if token is not None:
        parameters = {"pin_uv_param": protocol.authenticate(token, CLIENT_DATA_HASH), "pin_uv_protocol": protocol.VERSION}
    return ctap.make_credential(CLIENT_DATA_HASH, RP, {"id": user_id, "name": user_id.decode()},
                                [{"type": "public-key", "alg": ES256.ALGORITHM}], options={"rk": True}, **parameters)


def pin_token(ctap: Ctap2) -> bytes:
    return ClientPin(ctap, PinProtocolV2()).get_pin_token(PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL, "example.com")


def test_tap_ends_the_pin_token(tapped):
    fido = device(tapped.served)
    ClientPin(Ctap2(fido), PinProtocolV2()).set_pin(PIN)
    kept = pin_token(Ctap2(fido))
    fido.close()
    fido = device(tapped.served)
    assert make_credential(Ctap2(fido), b"alice", token=kept, protocol=PinProtocolV2()).auth_data.is_user_verified(), \
        "without a tap the token still works on a new connection"
    token = pin_token(Ctap2(fido))
    fido.close()
    tapped.tap()
    fido = device(tapped.served)
    try:
        expect_ctap_error(ERR.PIN_AUTH_INVALID, make_credential, Ctap2(fido), b"bob", token=token, protocol=PinProtocolV2())
    finally:
        fido.close()


def test_tap_lifts_pin_auth_blocked(tapped):
    fido = device(tapped.served)
    client_pin = ClientPin(Ctap2(fido), PinProtocolV2())
    client_pin.set_pin(PIN)
    for expected in (ERR.PIN_INVALID, ERR.PIN_INVALID, ERR.PIN_AUTH_BLOCKED):
        expect_ctap_error(expected, client_pin.get_pin_token, "000000")
    fido.close()
    fido = device(tapped.served)
    client_pin = ClientPin(Ctap2(fido), PinProtocolV2())
    expect_ctap_error(ERR.PIN_AUTH_BLOCKED, client_pin.get_pin_token, PIN)
    assert client_pin.get_pin_retries() == (5, True), "without a tap: still blocked, a power cycle needed"
    fido.close()
    tapped.tap()
    fido = device(tapped.served)
    try:
        client_pin = ClientPin(Ctap2(fido), PinProtocolV2())
        assert client_pin.get_pin_retries() == (5, False)
        client_pin.get_pin_token(PIN)
        assert client_pin.get_pin_retries() == (8, False)
    finally:
        fido.close()


def test_tap_ends_a_pending_get_next_assertion(tapped):
    fido = device(tapped.served)
    ctap = Ctap2(fido)
    for user in (b"alice", b"bob"):
        make_credential(ctap, user)
    assert ctap.get_assertion("example.com", CLIENT_DATA_HASH).number_of_credentials == 2
    fido.close()
    # getNextAssertion on raw connections: python-fido2 would send getInfo first, which ends it too.
    connection = connect(tapped.served)
    assert transmit(connection, SELECT)[1] == 0x9000
    assert ctap_message(connection, [0x08])[0] == 0x00, "without a tap the next assertion comes"
    connection.disconnect()
    fido = device(tapped.served)
    assert Ctap2(fido).get_assertion("example.com", CLIENT_DATA_HASH).number_of_credentials == 2
    fido.close()
    tapped.tap()
    connection = connect(tapped.served)
    assert transmit(connection, SELECT)[1] == 0x9000
    assert ctap_message(connection, [0x08]) == [ERR.NOT_ALLOWED]
    connection.disconnect()


def test_tap_drops_a_response_waiting_for_get_response(tapped):
    short_le = GET_INFO[:-1] + [0x10]
    connection = connect(tapped.served)
    assert transmit(connection, SELECT)[1] == 0x9000
    data, sw = transmit(connection, short_le)
    assert len(data) == 16 and sw >> 8 == 0x61, f"getInfo with Le 16: {sw:04X}"
    connection.disconnect()
    connection = connect(tapped.served)
    rest, sw = transmit(connection, GET_RESPONSE)
    assert sw == 0x9000 and len(rest) > 16, "without a tap GET RESPONSE hands out the rest"
    assert transmit(connection, short_le)[1] >> 8 == 0x61
    connection.disconnect()
    tapped.tap()
    connection = connect(tapped.served)
    assert transmit(connection, GET_RESPONSE) == ([], 0x6985)
    connection.disconnect()


def test_tap_forgets_the_selected_applet(tapped):
    connection = connect(tapped.served)
    assert transmit(connection, SELECT)[1] == 0x9000
    connection.disconnect()
    connection = connect(tapped.served)
    data, sw = transmit(connection, GET_INFO)
    assert sw == 0x9000 and data[0] == 0x00, "without a tap the applet stays selected"
    connection.disconnect()
    tapped.tap()
    connection = connect(tapped.served)
    assert transmit(connection, GET_INFO) == ([], 0x6985), "not selected after the tap"
    connection.disconnect()


def test_tap_over_the_control_socket_drops_an_open_chain(tapped):
    first_piece = [0x90, 0x10, 0x00, 0x00, 0x01, 0x42]
    connection = connect(tapped.served)
    assert transmit(connection, SELECT)[1] == 0x9000
    assert transmit(connection, first_piece)[1] == 0x9000
    connection.disconnect()
    connection = connect(tapped.served)
    assert transmit(connection, SELECT)[1] == 0x6883, "without a tap the chain waits for its last piece"
    assert transmit(connection, SELECT)[1] == 0x9000
    assert transmit(connection, first_piece)[1] == 0x9000
    connection.disconnect()
    tapped.tap_over_socket()
    connection = connect(tapped.served)
    assert transmit(connection, SELECT)[1] == 0x9000
    data, sw = transmit(connection, GET_INFO)
    assert sw == 0x9000 and data[0] == 0x00, "the last piece alone is a getInfo of its own"
    connection.disconnect()


def card_key(ctap: Ctap2):
    """The card's key-agreement key (getKeyAgreement), as a COSE map."""
    return ctap.client_pin(PinProtocolV2.VERSION, ClientPin.CMD.GET_KEY_AGREEMENT)[ClientPin.RESULT.KEY_AGREEMENT]


def test_tap_draws_a_new_key_agreement_key(tapped):
    fido = device(tapped.served)
    key = card_key(Ctap2(fido))
    fido.close()
    fido = device(tapped.served)
    assert card_key(Ctap2(fido)) == key, "without a tap the card keeps its key"
    fido.close()
    tapped.tap()
    fido = device(tapped.served)
    try:
        assert card_key(Ctap2(fido)) != key
    finally:
        fido.close()
