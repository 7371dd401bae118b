"""Readers: several cards in one `arculus-card serve` on consecutive vpcd readers (each its own card,
image and control socket, all usable at once), the reader names serve prints (from pcscd's
configuration, or "the reader on port N"), and what `ctl remove` says.

The several-card test takes every free vpcd reader from slot 0 up to four (two on Debian's
configuration; `VPCD_READERS=4 Tests/isolated.sh …` gives four, whose last two are named
"Virtual PCD 1 00 0s"), under the slot locks of test_power_kill.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path

import pytest

from conftest import IN_CI, VPCD_BASE_PORT, _binary, _readers, configured_readers, first_device, reader_name
from test_power_kill import foreign_cards, reader_state, slot_connections, slot_lock, wait_card_seen

RP_ID = "readers.example"




def serve_usage_error(*arguments: str) -> str:
    """Runs `arculus-card serve ARGUMENTS` that must be refused as a usage error; its message."""
    result = subprocess.run([str(_binary()), "serve", *arguments], capture_output=True, text=True, timeout=30)
    assert result.returncode == 64, f"serve {' '.join(arguments)} exited {result.returncode}:\n{result.stderr}"
    return result.stderr.splitlines()[0]


@pytest.mark.parametrize("arguments, message", [
    (["--cards", "2", "--record", "x.transcript"],
     "arculus-card serve: --record is for one card; with several, each gets the default control socket of its reader"),
    (["--cards", "2", "--seed", "00"],
     "arculus-card serve: --seed is for one card; with several, each gets the default control socket of its reader"),
    (["--card", "a.img", "--card", "b.img", "--control", "c.sock"],
     "arculus-card serve: --control is for one card; with several, each gets the default control socket of its reader"),
    (["--card", "a.img", "--card", "a.img"], "arculus-card serve: a card image is given twice: each card needs its own"),
    (["--cards", "0"], "arculus-card serve: --cards wants a number of cards from 1 to 16, not '0'"),
    (["--cards", "17"], "arculus-card serve: --cards wants a number of cards from 1 to 16, not '17'"),
    (["--cards", "2", "--card", "a.img"],
     "arculus-card serve: --cards N is for cards in memory; give --card once per card image instead"),
    (["--cards", "2", "--stand-in", "s.transcript"],
     "arculus-card serve: --stand-in answers from a transcript: it takes no --card, --cards, --profile, --seed or --record"),
])
def test_several_cards_refuse_what_is_for_one(arguments, message):
    if not _binary().exists():
        pytest.skip(f"no arculus-card binary at {_binary()}")
    assert serve_usage_error(*arguments) == message


class FakeDriver:
    """A listening socket playing vpcd on a port no reader.conf entry has: it accepts serve's
    connection and polls get-ATR, as the driver does."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(1)
        self.port = self.listener.getsockname()[1]

    def poll(self, timeout: float = 10.0) -> bytes:
        self.listener.settimeout(timeout)
        connection, _ = self.listener.accept()
        connection.settimeout(timeout)
        with connection:
            connection.sendall(b"\x00\x01\x04")
            length = struct.unpack(">H", connection.recv(2))[0]
            return connection.recv(length)


def test_a_port_without_a_reader_entry_is_named_by_its_port(tmp_path):
    """serve used to compute the name from the port (35963 + slot) and printed e.g.
    'Virtual PCD 00 ED' for port 36200. With no reader name, PC/SC cannot be asked whether the
    card is there: the line says the card is on the port, and why it is not confirmed."""
    if not _binary().exists():
        pytest.skip(f"no arculus-card binary at {_binary()}")
    driver = FakeDriver()
    assert driver.port not in configured_readers()
    process = subprocess.Popen([str(_binary()), "serve", "--vpcd", f"127.0.0.1:{driver.port}", "--no-control"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert driver.poll().startswith(b"\x3b"), "an ATR"
        assert process.stdout.readline().strip() == (f"card on vpcd port {driver.port} (127.0.0.1:{driver.port}); no reader is "
                                                     "configured for the port here to confirm it through PC/SC")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=10)
        driver.listener.close()


def free_readers_from_slot_zero(limit: int = 4) -> list[int]:
    """The slots 0, 1, … up to `limit` whose readers pcscd lists and nothing else uses."""
    listed = set(_readers())
    slots = []
    for slot in range(limit):
        if reader_name(slot) not in listed or foreign_cards(slot) or slot_connections(slot):
            break
        slots.append(slot)
    return slots


def ctl(slot: int, runtime: Path, *arguments: str) -> dict:
    result = subprocess.run([str(_binary()), "ctl", "--slot", str(slot), *arguments], capture_output=True, text=True,
                            timeout=30, env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)})
    assert result.returncode == 0, f"ctl --slot {slot} {' '.join(arguments)}: {result.stdout}{result.stderr}"
    return json.loads(result.stdout)


def test_several_cards_in_one_serve(pcsc_reader, tmp_path):
    if not _binary().exists():
        pytest.skip(f"no arculus-card binary at {_binary()}")
    from fido2.ctap2 import Ctap2
    from fido2.ctap2.pin import ClientPin, PinProtocolV2
    from fido2.pcsc import CtapPcscDevice
    from fido2.utils import sha256

    with contextlib.ExitStack() as locks:
        for slot in range(4):
            locks.enter_context(slot_lock(slot))
        slots = free_readers_from_slot_zero()
        if len(slots) < 2:
            message = f"two free vpcd readers from slot 0 are needed; free: {slots}"
            if IN_CI:
                pytest.fail(message, pytrace=False)
            pytest.skip(message)
        readers = [reader_name(slot) for slot in slots]
        images = [tmp_path / f"card-{slot}.img" for slot in slots]
        runtime = tmp_path / "run"
        runtime.mkdir(mode=0o700)
        arguments = [str(_binary()), "serve", "--slot", "0", "--tap-delay", "0.6"]
        for image in images:
            arguments += ["--card", str(image)]
        counters = {reader: reader_state(reader) >> 16 for reader in readers}
        stderr = open(tmp_path / "serve.stderr", "w+")
        process = subprocess.Popen(arguments, stdout=subprocess.PIPE, stderr=stderr, text=True,
                                   env={**os.environ, "XDG_RUNTIME_DIR": str(runtime)})
        try:
            lines = [process.stdout.readline().strip() for _ in range(2 * len(slots))]
            present = sorted(line for line in lines if line.startswith("card present on"))
            assert present == sorted(f"card present on {reader} (127.0.0.1:{VPCD_BASE_PORT + slot})"
                                     for slot, reader in zip(slots, readers)), lines
            # Each card's socket in a private directory of its own, recorded where ctl --slot looks.
            sockets = sorted(line[len("control channel at "):] for line in lines if line.startswith("control channel at"))
            assert [re.fullmatch(rf"{re.escape(str(runtime))}/arculus-card\.\w{{6}}/port-(\d+)\.sock", path) is not None
                    for path in sockets] == [True] * len(slots), sockets
            assert sorted((runtime / "arculus-card" / f"port-{VPCD_BASE_PORT + slot}").read_text().strip()
                          for slot in slots) == sockets
            for reader in readers:
                wait_card_seen(reader, present=True)

            # Each card its own: a PIN and a credential on the first only.
            devices = [first_device(reader, process, lambda: (stderr.seek(0), stderr.read())[1]) for reader in readers]
            ctaps = [Ctap2(device) for device in devices]
            ClientPin(ctaps[0], PinProtocolV2()).set_pin("123456")
            assert ctaps[0].get_info().options["clientPin"] is True
            assert all(ctap.get_info().options["clientPin"] is False for ctap in ctaps[1:])
            assert [ctl(slot, runtime, "status")["pin"]["isSet"] for slot in slots] == [True] + [False] * (len(slots) - 1)

            # All busy at once, each with a credential of its own.
            errors: list[str] = []

            def assertions(ctap, count=40):
                try:
                    made = ctap.make_credential(sha256(b"readers"), {"id": RP_ID, "name": "Readers"},
                                                {"id": b"u", "name": "u", "displayName": "u"},
                                                [{"type": "public-key", "alg": -7}])
                    credential = {"type": "public-key", "id": made.auth_data.credential_data.credential_id}
                    for _ in range(count):
                        ctap.get_assertion(RP_ID, sha256(os.urandom(8)), allow_list=[credential])
                except Exception as error:  # noqa: BLE001 - every failure counts
                    errors.append(f"{type(error).__name__}: {error}")

            threads = [threading.Thread(target=assertions, args=(ctap,)) for ctap in ctaps[1:]]
            for thread in threads:
                thread.start()
            assertions(ctaps[0])
            for thread in threads:
                thread.join(timeout=120)
            assert not errors
            for device in devices:
                device.close()

            # A tap through one card's control socket takes only that card off its reader.
            before = {reader: reader_state(reader) >> 16 for reader in readers}
            ctl(slots[-1], runtime, "tap", "--delay", "0.6")
            deadline = time.monotonic() + 10
            while (reader_state(readers[-1]) >> 16) - before[readers[-1]] < 2:  # removed, then inserted
                assert time.monotonic() < deadline, "the tapped card never came back"
                time.sleep(0.05)
            wait_card_seen(readers[-1], present=True)
            assert all(reader_state(reader) >> 16 == before[reader] for reader in readers[:-1]), "another card moved"
        finally:
            process.send_signal(signal.SIGTERM)
            status = process.wait(timeout=20)
            for reader in readers:
                wait_card_seen(reader, present=False, counter_before=counters[reader])
        assert status == 0
        stderr.seek(0)
        log = stderr.read()
        assert all(f"[{reader}] arculus-card serve: stopped" in log for reader in readers), log


def test_remove_says_until_put_back(pcsc_reader, tmp_path):
    """`ctl remove` keeps the card off until `ctl insert`, and serve says so (it used to log
    'tapping again in 0.0 seconds')."""
    if not _binary().exists():
        pytest.skip(f"no arculus-card binary at {_binary()}")
    from conftest import ServedCard
    from test_power_kill import wait_slot_free

    slot = int(os.environ.get("ARCULUS_SLOT", "1"))
    control = tmp_path / "ctl.sock"
    with slot_lock(slot):
        wait_slot_free(slot)
        served = ServedCard(_binary(), slot, tmp_path / "card.img", ["--control", str(control)], tmp_path)
        try:
            served.wait_present(1)
            wait_card_seen(served.reader, present=True)
            subprocess.run([str(_binary()), "ctl", "--control", str(control), "remove"], check=True, capture_output=True)
            deadline = time.monotonic() + 5
            while "card off the reader" not in served.stderr():
                assert time.monotonic() < deadline, served.stderr()
                time.sleep(0.05)
            assert "card off the reader until it is put back ('insert')" in served.stderr()
            assert "tapping again" not in served.stderr()
            subprocess.run([str(_binary()), "ctl", "--control", str(control), "insert"], check=True, capture_output=True)
            served.wait_present(2)
        finally:
            counter = reader_state(served.reader) >> 16
            assert served.stop() == 0
            wait_card_seen(served.reader, present=False, counter_before=counter)
