"""Signals always win: SIGINT and SIGTERM stop `arculus-card serve` within a second whatever its
card is doing — waiting out a long delay fault with a getAssertion in flight, working on a request
behind 9100 with realistic timing — and the card image is whole afterwards: it reopens with its
credentials."""

from __future__ import annotations

import hashlib
import signal
import threading
import time

import pytest

from test_test_double import ctap2, run_json, serve_double  # noqa: F401 - serve_double is a fixture

CLIENT_DATA_HASH = hashlib.sha256(b"signals").digest()


def _in_flight(served, text: str, timeout: float = 10.0):
    """Until serve's stderr shows `text` (the card started on the request)."""
    deadline = time.monotonic() + timeout
    while text not in served.stderr():
        assert time.monotonic() < deadline, f"never saw {text!r}:\n{served.stderr()}"
        time.sleep(0.05)


def _get_assertion_in_background(served):
    """A python-fido2 getAssertion on a thread of its own (it blocks until the card answers or
    goes); the thread and the device."""
    ctap, device = ctap2(served)
    outcome = {}

    def run():
        try:
            outcome["assertion"] = ctap.get_assertion("example.com", CLIENT_DATA_HASH)
        except Exception as error:  # noqa: BLE001 - the card going away is any PC/SC error
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, device, outcome


def _stop_within(served, number: int, limit: float) -> float:
    started = time.monotonic()
    served.process.send_signal(number)
    served.process.wait(timeout=10)
    elapsed = time.monotonic() - started
    assert elapsed < limit, f"serve took {elapsed:.2f} s to stop:\n{served.stderr()}"
    assert served.process.returncode == 0, served.stderr()
    return elapsed


def _image_reopens_with(served, credential_ids: list[str]):
    listed = run_json(str(served.binary), "image", "credentials", "list", "--card", str(served.image))["credentials"]
    assert [c["idHex"] for c in listed] == credential_ids


@pytest.mark.parametrize("number", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_signal_stops_serve_during_a_long_delay(serve_double, number):
    """A getAssertion in flight behind a 600 s delay fault: the signal ends serve within 2 s; the
    image reopens with its credential."""
    served = serve_double(image_args=["--credential", "rp=example.com,user=alice"])
    alice = served.created["credentials"][0]["idHex"]
    served.ctl("fault", "add", "--command", "getAssertion", "--delay", "600")
    thread, device, outcome = _get_assertion_in_background(served)
    try:
        _in_flight(served, "seconds later")
        _stop_within(served, number, 2.0)
        thread.join(timeout=10)
        assert "assertion" not in outcome or outcome["assertion"].credential["id"] == bytes.fromhex(alice)
    finally:
        device.close()
    _image_reopens_with(served, [alice])


def test_sigterm_stops_serve_during_realistic_work_and_a_delay(serve_double):
    """Realistic timing (the request behind 9100) and a delay on top: SIGTERM within 2 s."""
    served = serve_double(image_args=["--credential", "rp=example.com,user=alice"], serve_args=["--timing", "realistic"])
    alice = served.created["credentials"][0]["idHex"]
    served.ctl("fault", "add", "--command", "getAssertion", "--delay", "3600")
    thread, device, outcome = _get_assertion_in_background(served)
    try:
        _in_flight(served, "seconds later")
        _stop_within(served, signal.SIGTERM, 2.0)
        thread.join(timeout=10)
    finally:
        device.close()
    _image_reopens_with(served, [alice])
