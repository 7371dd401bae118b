"""Readiness a script can trust: `arculus-card serve` prints "card present on <reader>" (and writes
--ready-file) only once PC/SC applications find the card there, and a card that cannot come onto
its reader is refused with one line and status 69 after --wait-for-reader.

Findings these hold fixed: the line came when serve connected to the driver, before pcscd listed
the card (opensc-tool -l showed the reader empty and python-fido2's list_devices() returned [] right
after it, 0.2 s later both saw it); a second serve on a slot in use printed "card present" though
the reader held the other serve's card, and retried for ever; `--slot 99` (no reader configured on
the port) and `--cards N` beyond the configured readers retried for ever without a word.

The slots are taken under the slot locks of test_power_kill.py.
"""

from __future__ import annotations

import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import IN_CI, VPCD_BASE_PORT, _binary, _slot, configured_readers, reader_name
from test_power_kill import foreign_cards, reader_state, slot_connections, slot_lock

NOT_ON_READER = 69


def binary() -> Path:
    path = _binary()
    if not path.exists():
        pytest.skip(f"no arculus-card binary at {path}")
    return path


def free_slot_or_skip(slot: int):
    if foreign_cards(slot) or slot_connections(slot):
        message = f"vpcd slot {slot} is in use by another card process"
        if IN_CI:
            pytest.fail(message, pytrace=False)
        pytest.skip(message)


class Serve:
    """One `arculus-card serve --no-control`, its stdout read line by line."""

    def __init__(self, *arguments: str):
        self.process = subprocess.Popen([str(binary()), "serve", "--no-control", *arguments],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def first_line(self, timeout: float = 20) -> str:
        """The first line serve prints on stdout (a card on its reader)."""
        deadline = time.monotonic() + timeout
        line = self.process.stdout.readline().rstrip("\n")
        assert line, f"serve printed nothing (exit {self.process.poll()}): {self.process.stderr.read()}"
        assert time.monotonic() < deadline
        return line

    def stop(self) -> tuple[int, str]:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            _, stderr = self.process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            _, stderr = self.process.communicate()
        return self.process.returncode, stderr


def wait_reader_empty(reader: str, timeout: float = 5.0):
    """Until pcscd's polling has seen the card go (without connecting), for the next insertion."""
    from smartcard import scard

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not reader_state(reader) & scard.SCARD_STATE_EMPTY:
        time.sleep(0.05)


def opensc_sees_card(reader: str) -> bool:
    """Whether `opensc-tool -l` lists a card in `reader` ("Nr. Card Features Name": "Yes")."""
    listing = subprocess.run(["opensc-tool", "-l"], capture_output=True, text=True, timeout=30).stdout
    rows = [line.split() for line in listing.splitlines() if line.rstrip().endswith(reader)]
    assert rows, f"opensc-tool lists no reader {reader!r}:\n{listing}"
    return rows[0][1] == "Yes"


@pytest.mark.parametrize("round_", range(5))
def test_card_present_means_applications_see_it(pcsc_reader, tmp_path, round_):
    """Straight after the line (no retry, no sleep), opensc-tool and python-fido2 find the card, and
    the ready file holds the same line; it is gone after serve."""
    from fido2.pcsc import CtapPcscDevice

    slot = _slot()
    with slot_lock(slot):
        free_slot_or_skip(slot)
        ready = tmp_path / "ready"
        serve = Serve("--slot", str(slot), "--ready-file", str(ready))
        try:
            line = serve.first_line()
            assert line == f"card present on {pcsc_reader} (127.0.0.1:{VPCD_BASE_PORT + slot})"
            if round_ % 2 == 0:
                assert opensc_sees_card(pcsc_reader), "opensc-tool -l shows the reader empty right after the line"
                devices = list(CtapPcscDevice.list_devices(pcsc_reader))
            else:
                devices = list(CtapPcscDevice.list_devices(pcsc_reader))
                assert opensc_sees_card(pcsc_reader)
            assert [str(device) for device in devices] == [f"CtapPcscDevice({pcsc_reader})"], \
                "python-fido2 finds no card right after the line"
            for device in devices:
                device.close()
            deadline = time.monotonic() + 5
            while not ready.exists() and time.monotonic() < deadline:
                time.sleep(0.02)
            assert ready.read_text() == line + "\n"
        finally:
            status, stderr = serve.stop()
            wait_reader_empty(pcsc_reader)
        assert status == 0, stderr
        assert not ready.exists()


def test_a_second_serve_on_a_slot_in_use_is_refused(pcsc_reader, tmp_path):
    """The driver never polls a second card on a slot; serve says the reader is taken, prints no
    'card present', exits 69 after the wait; the first card goes on working."""
    from fido2.pcsc import CtapPcscDevice

    slot = _slot()
    port = VPCD_BASE_PORT + slot
    with slot_lock(slot):
        free_slot_or_skip(slot)
        first = Serve("--slot", str(slot))
        try:
            assert first.first_line().startswith(f"card present on {pcsc_reader}")
            started = time.monotonic()
            second = subprocess.run([str(binary()), "serve", "--no-control", "--slot", str(slot), "--wait-for-reader", "2",
                                     "--ready-file", str(tmp_path / "ready")],
                                    capture_output=True, text=True, timeout=30)
            took = time.monotonic() - started
            assert second.returncode == NOT_ON_READER, second.stderr
            assert second.stdout == ""
            refusals = [line for line in second.stderr.splitlines() if "gave up" in line]
            assert refusals == [
                f"arculus-card serve: {pcsc_reader} (vpcd port {port}, slot {slot}) is taken: another card is on it, and the "
                "driver never polled this one (is another arculus-card serve on that slot?); gave up after 2 s (--wait-for-reader)"
            ], second.stderr
            assert 2 <= took < 10, f"refused after {took:.1f} s"
            assert not (tmp_path / "ready").exists()
            devices = list(CtapPcscDevice.list_devices(pcsc_reader))
            assert len(devices) == 1, "the first serve's card is gone"
            devices[0].close()
        finally:
            status, stderr = first.stop()
            wait_reader_empty(pcsc_reader)
        assert status == 0, stderr


def configured_ports() -> list[int]:
    return sorted(configured_readers())


def no_reader_line(port: int) -> str:
    ports = configured_ports()
    return (f"arculus-card serve: no reader is configured on vpcd port {port}, slot {port - VPCD_BASE_PORT}: pcscd's vpcd "
            f"readers here are on ports {ports[0]}-{ports[-1]} (slots {ports[0] - VPCD_BASE_PORT}-{ports[-1] - VPCD_BASE_PORT}); "
            "'./setup.sh --readers N' configures more")


def test_a_slot_without_a_reader_is_refused(pcsc_reader, tmp_path):
    """--slot 99: nothing listens on port 36062 and no reader is configured there."""
    assert VPCD_BASE_PORT + 99 not in configured_ports()
    started = time.monotonic()
    done = subprocess.run([str(binary()), "serve", "--no-control", "--slot", "99", "--wait-for-reader", "1.5"],
                          capture_output=True, text=True, timeout=30)
    took = time.monotonic() - started
    assert done.returncode == NOT_ON_READER, done.stderr
    assert done.stdout == ""
    assert [line for line in done.stderr.splitlines() if "gave up" in line] == [
        no_reader_line(VPCD_BASE_PORT + 99) + "; gave up after 1.5 s (--wait-for-reader)"], done.stderr
    assert 1.5 <= took < 8, f"refused after {took:.1f} s"


def test_more_cards_than_readers_are_refused(pcsc_reader, tmp_path):
    """--cards 2 from the last configured slot: the second card has no reader; the first one is on
    its reader (and said so) before serve gives up and takes it away."""
    last = configured_ports()[-1]
    slot = last - VPCD_BASE_PORT
    with slot_lock(slot):
        free_slot_or_skip(slot)
        done = subprocess.run([str(binary()), "serve", "--slot", str(slot), "--cards", "2", "--wait-for-reader", "3",
                               "--ready-file", str(tmp_path / "ready")],
                              capture_output=True, text=True, timeout=30)
        wait_reader_empty(reader_name(slot))
    assert done.returncode == NOT_ON_READER, done.stderr
    assert f"card present on {reader_name(slot)} (127.0.0.1:{last})" in done.stdout.splitlines()
    assert [line for line in done.stderr.splitlines() if "gave up" in line] == [
        no_reader_line(last + 1) + "; gave up after 3 s (--wait-for-reader)"], done.stderr
    assert not (tmp_path / "ready").exists()


def test_wait_for_reader_forever_keeps_waiting(tmp_path):
    """Today's behaviour on request: no driver, and serve still waits past the default 5 s."""
    serve = Serve("--slot", "99", "--wait-for-reader", "forever")
    time.sleep(6.5)
    running = serve.process.poll() is None
    status, stderr = serve.stop()
    assert running, f"serve exited {status}: {stderr}"
    assert status == 0
    assert "gave up" not in stderr


@pytest.mark.parametrize("value, message", [
    ("0", "--wait-for-reader wants seconds (above 0, at most 3600) or 'forever', not '0'"),
    ("never", "--wait-for-reader wants seconds (above 0, at most 3600) or 'forever', not 'never'"),
    ("3601", "--wait-for-reader wants seconds (above 0, at most 3600) or 'forever', not '3601'"),
])
def test_wait_for_reader_values(value, message):
    done = subprocess.run([str(binary()), "serve", "--wait-for-reader", value], capture_output=True, text=True, timeout=30)
    assert done.returncode == 64
    assert done.stderr.splitlines()[0] == f"arculus-card serve: {message}"
