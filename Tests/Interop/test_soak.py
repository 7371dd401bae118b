"""Load and concurrency through pcscd: several PC/SC applications (separate python processes
using pyscard and python-fido2) use the same virtual card at once, each operation inside its own
PC/SC transaction (SCardBeginTransaction … SCardEndTransaction), while another card on the
other vpcd slot serves a third process. A mixed workload (getInfo, makeCredential with and
without rk, getAssertion with signature checks, discoverable getAssertion + getNextAssertion,
PIN tokens, getPINRetries) runs for ARCULUS_SOAK_SECONDS (40 by default, for CI; 3600 for the long
soak of the README's Reliability section). Errors must be zero, and the serve processes' memory
(VmRSS) and open file descriptors must be flat: after a warm-up, the end is at most the start plus
a small margin (RSS) or the start (descriptors), and no sample taken along the way (every
ARCULUS_SOAK_SECONDS / 20, at most a minute apart) has more descriptors than the start plus the
two a transient connection may hold.

Slots: the test's slot (ARCULUS_SLOT, default 1) and the other one, each under its flock
(/tmp/arculus-vpcd-slot<N>.lock), taken in slot order.

Run by hand: `python3 Tests/Interop/test_soak.py --worker READER SECONDS SEED PIN OUT.json` is
one worker process.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

PIN = "271828"
RP_ID = "soak.example"
USERS = [f"soak-user-{n}".encode() for n in range(8)]


# --- one worker process --------------------------------------------------------------------


def worker(reader_name: str, seconds: float, seed: int, pin: str, out_path: str):
    """Runs operations on the card in `reader_name`, each in a PC/SC transaction, for `seconds`;
    writes {"operations": n, "errors": [...], "kinds": {...}} to `out_path`."""
    from fido2.ctap import CtapError
    from fido2.ctap2 import Ctap2
    from fido2.ctap2.pin import ClientPin, PinProtocolV1, PinProtocolV2
    from fido2.pcsc import CtapPcscDevice
    from fido2.utils import sha256
    from smartcard import scard
    from smartcard.System import readers

    class SharingDevice(CtapPcscDevice):
        """Shares the card and leaves it as it is on disconnect: with pyscard's default (unpower),
        the first application to finish would reset the card under the others."""

        def connect(self):
            self._conn.connect(mode=scard.SCARD_SHARE_SHARED, disposition=scard.SCARD_LEAVE_CARD)
            self._select()

    rng = random.Random(seed)
    reader = next(r for r in readers() if str(r) == reader_name)
    connection = reader.createConnection()
    device = SharingDevice(connection, reader_name)
    handle = getattr(connection, "component", connection).hcard
    ctap2 = Ctap2(device)
    operations, errors, kinds = 0, [], {}
    known: list[tuple[bytes, object]] = []  # (credential ID, COSE public key)

    def make(resident: bool, token: bytes | None, protocol):
        client_data_hash = sha256(os.urandom(32))
        user = rng.choice(USERS) if resident else b"soak-non-resident"
        response = ctap2.make_credential(
            client_data_hash, {"id": RP_ID, "name": "Soak"},
            {"id": user, "name": user.decode(), "displayName": user.decode()},
            [{"type": "public-key", "alg": -7}], options={"rk": True} if resident else None,
            pin_uv_param=protocol.authenticate(token, client_data_hash) if token else None,
            pin_uv_protocol=protocol.VERSION if token else None)
        data = response.auth_data.credential_data
        # A discoverable one may be replaced by the other application (same user), so only
        # non-discoverable credentials are kept for later assertions.
        if not resident:
            known.append((data.credential_id, data.public_key))
            if len(known) > 64:
                known.pop(0)

    def verify(response, client_data_hash, public_key):
        public_key.verify(bytes(response.auth_data) + client_data_hash, response.signature)

    deadline = time.monotonic() + seconds
    last_counter = 0
    while time.monotonic() < deadline:
        kind = rng.choice(["info", "make", "assert", "assert", "token-make-rk", "discoverable", "retries"])
        hresult = scard.SCardBeginTransaction(handle)
        if hresult != scard.SCARD_S_SUCCESS:
            errors.append(f"SCardBeginTransaction: {scard.SCardGetErrorMessage(hresult)}")
            break
        try:
            # Another application may have selected the applet or not: select within ours.
            device._select()
            if kind == "info":
                assert ctap2.get_info().aaguid
            elif kind == "make" or (kind == "assert" and not known):
                make(False, None, PinProtocolV2())
            elif kind == "assert":
                credential_id, public_key = rng.choice(known)
                client_data_hash = sha256(os.urandom(32))
                response = ctap2.get_assertion(RP_ID, client_data_hash,
                                               allow_list=[{"type": "public-key", "id": credential_id}])
                verify(response, client_data_hash, public_key)
                if response.auth_data.counter <= last_counter:
                    errors.append(f"counter {response.auth_data.counter} after {last_counter}")
                last_counter = response.auth_data.counter
            elif kind == "token-make-rk":
                protocol = rng.choice([PinProtocolV1, PinProtocolV2])()
                token = ClientPin(ctap2, protocol).get_pin_token(pin, ClientPin.PERMISSION.MAKE_CREDENTIAL, RP_ID)
                make(True, token, protocol)
            elif kind == "discoverable":
                protocol = PinProtocolV2()
                token = ClientPin(ctap2, protocol).get_pin_token(pin, ClientPin.PERMISSION.GET_ASSERTION, RP_ID)
                client_data_hash = sha256(os.urandom(32))
                try:
                    first = ctap2.get_assertion(RP_ID, client_data_hash, pin_uv_param=protocol.authenticate(token, client_data_hash),
                                                pin_uv_protocol=protocol.VERSION)
                    for _ in range((first.number_of_credentials or 1) - 1):
                        ctap2.get_next_assertion()
                except CtapError as error:
                    if error.code != CtapError.ERR.NO_CREDENTIALS:
                        raise
            elif kind == "retries":
                retries = ClientPin(ctap2, PinProtocolV1()).get_pin_retries()[0]
                if retries != 8:
                    errors.append(f"getPINRetries {retries}: a right PIN never costs a retry")
            operations += 1
            kinds[kind] = kinds.get(kind, 0) + 1
        except Exception as error:  # noqa: BLE001 - every failure is an error of the soak
            errors.append(f"{kind}: {type(error).__name__}: {error}")
        finally:
            scard.SCardEndTransaction(handle, scard.SCARD_LEAVE_CARD)
    with contextlib.suppress(Exception):
        device.close()
    Path(out_path).write_text(json.dumps({"operations": operations, "errors": errors[:50], "kinds": kinds}))


if __name__ == "__main__" and len(sys.argv) == 7 and sys.argv[1] == "--worker":
    worker(sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5], sys.argv[6])
    sys.exit(0)


# --- the test ------------------------------------------------------------------------------

import pytest  # noqa: E402 - the worker above runs without pytest

from conftest import IN_CI, ServedCard, _binary, _readers, reader_name  # noqa: E402

SOAK_SECONDS = float(os.environ.get("ARCULUS_SOAK_SECONDS", "40"))
from test_power_kill import (  # noqa: E402
    foreign_cards, rss_kib, slot_connections, slot_lock, wait_card_seen, wait_slot_free)


def _start_card(binary: Path, slot: int, tmp_path: Path) -> ServedCard:
    log_dir = tmp_path / f"slot-{slot}"
    log_dir.mkdir()
    served = ServedCard(binary, slot, log_dir / "card.img", ["--no-control"], log_dir)
    served.wait_present(1)
    wait_card_seen(served.reader, present=True)
    # A PIN on the card, set once by a short-lived client.
    from fido2.ctap2 import Ctap2
    from fido2.ctap2.pin import ClientPin, PinProtocolV2

    device = served.device()
    try:
        ClientPin(Ctap2(device), PinProtocolV2()).set_pin(PIN)
    finally:
        device.close()
    return served


def _stop_card(served: ServedCard):
    counter = None
    with contextlib.suppress(Exception):
        from test_power_kill import reader_state

        counter = reader_state(served.reader) >> 16
    status = served.stop()
    wait_card_seen(served.reader, present=False, counter_before=counter)
    assert status == 0, f"serve on {served.reader} exited with {status}:\n{served.stderr()[-4000:]}"


def open_descriptors(pid: int) -> int:
    """How many file descriptors a process has open."""
    return len(os.listdir(f"/proc/{pid}/fd"))


@pytest.mark.time_limit(lambda: SOAK_SECONDS + 300)
def test_soak_two_apps_one_card_and_two_cards(pcsc_reader, tmp_path):
    binary = _binary()
    if not binary.exists():
        pytest.skip(f"no arculus-card binary at {binary}")
    seconds = SOAK_SECONDS
    primary = int(os.environ.get("ARCULUS_SLOT", "1"))
    secondary = 1 - primary if primary in (0, 1) else None
    if secondary is not None and reader_name(secondary) not in _readers():
        secondary = None
    if secondary is not None and (foreign_cards(secondary) or slot_connections(secondary)) and not IN_CI:
        # A developer's own card (./serve.sh uses slot 0): soak one card rather than wait for it.
        print(f"soak: vpcd slot {secondary} is in use by another card process; soaking slot {primary} only")
        secondary = None
    slots = sorted([primary] + ([secondary] if secondary is not None else []))
    warm_up = min(10.0, seconds / 4)
    margin_kib = 4096

    with contextlib.ExitStack() as stack:
        for slot in slots:
            stack.enter_context(slot_lock(slot))
        for slot in slots:
            wait_slot_free(slot)
        cards = {slot: _start_card(binary, slot, tmp_path) for slot in slots}
        try:
            # Two processes on the primary card, one on the other card.
            plan = [(primary, 1), (primary, 2)] + ([(secondary, 3)] if secondary is not None else [])
            workers = []
            for slot, seed in plan:
                out = tmp_path / f"worker-{seed}.json"
                process = subprocess.Popen(
                    [sys.executable, __file__, "--worker", cards[slot].reader, str(seconds), str(seed), PIN, str(out)],
                    cwd=Path(__file__).parent)
                workers.append((slot, seed, process, out))
            time.sleep(warm_up)
            rss_start = {slot: rss_kib(card.process.pid) for slot, card in cards.items()}
            fds_start = {slot: open_descriptors(card.process.pid) for slot, card in cards.items()}
            samples = {slot: [] for slot in cards}
            interval = min(60.0, max(1.0, seconds / 20))
            deadline = time.monotonic() + seconds + 120
            while any(process.poll() is None for _, _, process, _ in workers):
                assert time.monotonic() < deadline, "the soak workers did not finish"
                for slot, card in cards.items():
                    samples[slot].append((rss_kib(card.process.pid), open_descriptors(card.process.pid)))
                time.sleep(interval)
            rss_end = {slot: rss_kib(card.process.pid) for slot, card in cards.items()}
            fds_end = {slot: open_descriptors(card.process.pid) for slot, card in cards.items()}
            results = []
            for slot, seed, process, out in workers:
                assert process.returncode == 0, f"worker {seed} on slot {slot} exited with {process.returncode}"
                results.append((slot, seed, json.loads(out.read_text())))
        finally:
            for card in cards.values():
                _stop_card(card)

    total = sum(result["operations"] for _, _, result in results)
    errors = [f"worker {seed} (slot {slot}): {error}" for slot, seed, result in results for error in result["errors"]]
    for slot, seed, result in results:
        print(f"soak: worker {seed} on slot {slot}: {result['operations']} operations {result['kinds']}, "
              f"{len(result['errors'])} errors")
    for slot in slots:
        print(f"soak: serve on slot {slot}: VmRSS {rss_start[slot]} KiB after {warm_up:.0f} s warm-up, "
              f"{rss_end[slot]} KiB at the end (samples {min(r for r, _ in samples[slot])}–{max(r for r, _ in samples[slot])} KiB); "
              f"open descriptors {fds_start[slot]} after the warm-up, {fds_end[slot]} at the end "
              f"(samples {min(f for _, f in samples[slot])}–{max(f for _, f in samples[slot])})")
    print(f"soak: {seconds:.0f} s, {total} operations, {len(errors)} errors")
    assert not errors, "\n".join(errors[:20])
    assert all(result["operations"] > 0 for _, _, result in results)
    for slot in slots:
        assert rss_end[slot] <= rss_start[slot] + margin_kib, \
            f"serve on slot {slot} grew from {rss_start[slot]} to {rss_end[slot]} KiB during the soak"
        assert fds_end[slot] <= fds_start[slot], \
            f"serve on slot {slot} had {fds_start[slot]} descriptors open after the warm-up and {fds_end[slot]} at the end"
        assert max(f for _, f in samples[slot]) <= fds_start[slot] + 2, \
            f"serve on slot {slot} held up to {max(f for _, f in samples[slot])} descriptors (start {fds_start[slot]})"
