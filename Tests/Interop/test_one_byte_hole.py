"""vpcd's one-byte hole (REFERENCE.md): a one-byte APDU travels like a control code.

A byte that is no control code is answered 6700. A byte that looks like power off/on/reset
gets no answer, vpcd waits, and without the bridge's silence guard the reader would hang
until pcscd restarts; with it, the transmit fails after about 2 s (the card looks removed
and tapped again) and the reader keeps working."""

import threading
import time

from smartcard.Exceptions import CardConnectionException

SELECT = [0x00, 0xA4, 0x04, 0x00, 0x08, 0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01]


def test_one_byte_apdu_gets_wrong_length(card):
    connection = card.connection()
    try:
        assert connection.transmit([0x05]) == ([], 0x67, 0x00)
        assert connection.transmit([0xFF]) == ([], 0x67, 0x00)
        data, sw1, sw2 = connection.transmit(SELECT)
        assert (sw1, sw2) == (0x90, 0x00) and bytes(data) == b"FIDO_2_0"
    finally:
        connection.disconnect()


def test_one_byte_apdu_that_looks_like_a_control_code_does_not_hang_the_reader(card):
    connection = card.connection()
    outcome = {}

    def send():
        start = time.monotonic()
        try:
            outcome["response"] = connection.transmit([0x01])
        except CardConnectionException as error:
            outcome["error"] = error
        outcome["seconds"] = time.monotonic() - start

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    sender.join(timeout=15)
    assert not sender.is_alive(), "the reader hung on a one-byte APDU"
    assert "error" in outcome, f"expected the transmit to fail, got {outcome}"
    assert 1.0 <= outcome["seconds"] <= 6.0
    # The bridge logs the re-tap right after closing the connection: allow it a moment.
    deadline = time.monotonic() + 3
    while "no message for a while after control code 1" not in card.stderr() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert "no message for a while after control code 1" in card.stderr()
    try:
        connection.disconnect()
    except CardConnectionException:
        pass

    # The card came back by itself and works.
    connection = card.connection()
    try:
        data, sw1, sw2 = connection.transmit(SELECT)
        assert (sw1, sw2) == (0x90, 0x00) and bytes(data) == b"FIDO_2_0"
    finally:
        connection.disconnect()
