"""The user's answer to a test of user presence, steered over the control socket as a UI would:
in `ask` mode a python-fido2 makeCredential waits on the card (python-fido2 is told UPNEEDED in its
keepalives) until `arculus-card ctl presence --approve ID` or `--decline ID` answers it; the
decline is CTAP2_ERR_OPERATION_DENIED. Through the real pcscd + vpcd."""

from __future__ import annotations

import hashlib
import signal
import threading
import time

from fido2.ctap import STATUS, CtapError

import interop_support as support
from test_test_double import ctap2, serve_double  # noqa: F401 - serve_double is a fixture

CLIENT_DATA_HASH = hashlib.sha256(b"presence").digest()
ES256 = [{"type": "public-key", "alg": -7}]


def _pending(served, timeout: float = 10.0) -> dict:
    """The prompt the card waits to have answered, once there is one."""
    deadline = time.monotonic() + timeout
    while True:
        pending = served.ctl("presence")["presence"]["pending"]
        if pending is not None:
            return pending
        assert time.monotonic() < deadline, f"no presence prompt came:\n{served.stderr()}"
        time.sleep(0.05)


def _make_credential_in_background(ctap, user: dict):
    keepalives: list[int] = []
    outcome: dict = {}

    def run():
        try:
            outcome["made"] = ctap.make_credential(CLIENT_DATA_HASH, support.RP, user, ES256,
                                                   options={"rk": True}, on_keepalive=keepalives.append)
        except Exception as error:  # noqa: BLE001 - a CtapError, or the card going away (PC/SC)
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, keepalives, outcome


def test_ask_mode_blocks_make_credential_until_ctl_answers(serve_double):
    served = serve_double()
    assert served.ctl("presence")["presence"] == {"mode": "approve", "pending": None}
    assert served.ctl("presence", "--mode", "ask")["presence"] == {"mode": "ask", "pending": None}
    ctap, device = ctap2(served)
    try:
        # Approved: the credential is made once the answer comes.
        thread, keepalives, outcome = _make_credential_in_background(ctap, support.user("alice", b"alice"))
        pending = _pending(served)
        assert pending["id"] == 1 and pending["command"] == "makeCredential" and pending["rpId"] == "example.com"
        time.sleep(0.3)
        assert thread.is_alive(), "python-fido2 waits while nobody answers"
        assert served.ctl("status")["presence"]["pending"]["id"] == 1
        wrong = served.ctl("presence", "--approve", "2", expect_ok=False)
        assert wrong["error"] == "no presence prompt 2 is pending"
        served.ctl("presence", "--approve", "1")
        thread.join(timeout=10)
        assert "made" in outcome, outcome
        assert STATUS.UPNEEDED in keepalives
        assert served.ctl("presence")["presence"]["pending"] is None
        assert served.ctl("credentials", "list")["credentials"][0]["userIdHex"] == b"alice".hex()

        # Declined: OPERATION_DENIED, nothing made.
        thread, keepalives, outcome = _make_credential_in_background(ctap, support.user("bob", b"bob"))
        pending = _pending(served)
        assert pending["id"] == 2
        served.ctl("presence", "--decline", "2")
        thread.join(timeout=10)
        assert outcome["error"].code == CtapError.ERR.OPERATION_DENIED
        assert STATUS.UPNEEDED in keepalives
        assert len(served.ctl("credentials", "list")["credentials"]) == 1
        stale = served.ctl("presence", "--approve", "2", expect_ok=False)
        assert stale["error"] == "no presence prompt 2 is pending"
    finally:
        device.close()


def test_sigterm_while_a_prompt_waits(serve_double):
    """A stop while python-fido2 waits for the user: serve ends within 2 s."""
    served = serve_double(image_args=["--credential", "rp=example.com,user=alice"])
    served.ctl("presence", "--mode", "ask")
    ctap, device = ctap2(served)
    try:
        thread, _, _ = _make_credential_in_background(ctap, support.user("bob", b"bob"))
        _pending(served)
        started = time.monotonic()
        served.process.send_signal(signal.SIGTERM)
        served.process.wait(timeout=10)
        assert time.monotonic() - started < 2.0, served.stderr()
        assert served.process.returncode == 0
        thread.join(timeout=10)
    finally:
        device.close()


def test_ctl_pin_clear_and_usage_errors(serve_double):
    """`ctl pin --clear` removes the PIN python-fido2 sees; --clear with --set, and two presence
    answers at once, are usage errors (64) that send nothing."""
    import subprocess

    from fido2.ctap2 import ClientPin

    served = serve_double(image_args=["--pin", "123456", "--retries", "3"])
    ctap, device = ctap2(served)
    try:
        assert ctap.info.options["clientPin"] is True
        cleared = served.ctl("pin", "--clear")["pin"]
        assert cleared["isSet"] is False and cleared["retries"] == 8
        ctap = type(ctap)(device)
        assert ctap.info.options["clientPin"] is False, "getInfo: no PIN set"
        ClientPin(ctap).set_pin("654321")
        assert served.ctl("pin")["pin"]["isSet"] is True
    finally:
        device.close()
    for arguments in (["pin", "--set", "1234", "--clear"], ["presence", "--approve", "1", "--decline", "1"],
                      ["presence", "--mode", "maybe"], ["presence", "--approve", "x"]):
        result = subprocess.run([str(served.binary), "ctl", "--control", served.ctl.path, *arguments],
                                capture_output=True, text=True, timeout=30)
        assert result.returncode == 64, (arguments, result.stderr)
        assert result.stdout == "", arguments
