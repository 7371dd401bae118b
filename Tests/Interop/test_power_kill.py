"""Power loss end to end: `kill -9` of `arculus-card serve --card FILE --slot 1` at random moments
while python-fido2 runs a workload through pcscd (makeCredential with and without rk,
getAssertion, right and wrong PINs, getPINRetries, deleteCredential), then a restart on the
same image, many times over.

After every kill the image must reopen (offline with `arculus-card image …` and by serve), every
credential acknowledged to the client must still be there, no credential may appear but the one
whose makeCredential was in flight, the signature counter must not go back, and the PIN retry
counter must never be higher than the client last saw (unless a right PIN was in flight).

Every round's kill lands in the middle of an exchange: after a random delay the killer waits for
a CTAP message (NFCCTAP_MSG) to be on its way to the card and kills serve then, while the client
waits for the answer; a kill that did not land inside a transmit (the APDU was answered in the
microseconds between) does not count as a round, and is reported. serve is restarted at once,
without waiting for pcscd to see the card go (the case in which vpcd used to leave the new card
unseen), and must be present again, as pcscd reports it, within 2 s, every round.

Rounds: 30 by default (CI); ARCULUS_POWER_KILL_ROUNDS=1000 for the long run (README, Reliability).
ARCULUS_POWER_KILL_SEED replays a run (the seed is printed). vpcd slot 1 is shared with the other
interop suites: the serve runs under an flock on /tmp/arculus-vpcd-slot1.lock (see `slot_lock`).

The helpers at the top (slot locks, slot-busy check, RSS) are shared with test_soak.py and
test_secrets.py.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import random
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.ctap2.credman import CredentialManagement
from fido2.ctap2.pin import ClientPin, PinProtocolV2
from fido2.utils import sha256

from conftest import IN_CI, VPCD_BASE_PORT, ServedCard, _binary

# vpcd slot 1 (port 35964, reader "Virtual PCD 00 01") unless ARCULUS_SLOT says otherwise, as in
# conftest.py.
SLOT = int(os.environ.get("ARCULUS_SLOT", "1"))
PIN = "314159"
RP_ID = "example.com"
USER_POOL = [f"user-{n:02d}".encode() for n in range(12)]

# --- shared helpers ------------------------------------------------------------------------


@contextlib.contextmanager
def slot_lock(slot: int, timeout: float = 1800.0):
    """Holds /tmp/arculus-vpcd-slot<N>.lock (flock) while a test owns vpcd slot N, so suites that
    take the same lock never put two cards on one slot."""
    path = Path(f"/tmp/arculus-vpcd-slot{slot}.lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() > deadline:
                    pytest.fail(f"vpcd slot {slot} stayed locked for {timeout:.0f} s ({path})", pytrace=False)
                time.sleep(0.2)
        yield
    finally:
        with contextlib.suppress(OSError):
            fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def slot_connections(slot: int) -> int:
    """Card processes connected to vpcd slot N: established TCP connections to its port."""
    port = f"{VPCD_BASE_PORT + slot:04X}"
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                if len(fields) > 3 and fields[2].endswith(":" + port) and fields[3] == "01":
                    count += 1
    return count


def foreign_cards(slot: int, own: set[int] = frozenset()) -> list[str]:
    """Other `arculus-card serve` processes that use vpcd slot N (not in `own`). One left running
    by another suite keeps reconnecting and takes the slot whenever our card leaves it."""
    port = VPCD_BASE_PORT + slot
    found = []
    network = os.readlink("/proc/self/ns/net")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) in own or int(entry.name) == os.getpid():
            continue
        try:
            arguments = (entry / "cmdline").read_bytes().split(b"\0")
            if os.readlink(entry / "ns" / "net") != network:
                continue  # another network namespace: another pcscd's vpcd, not ours
        except OSError:
            continue
        words = [word.decode(errors="replace") for word in arguments if word]
        if len(words) < 2 or not words[0].endswith("arculus-card") or "serve" not in words[1:3]:
            continue
        values = {}
        for index, word in enumerate(words):
            if word.startswith("--") and "=" in word:
                name, value = word.split("=", 1)
                values[name] = value
            elif word in ("--slot", "--vpcd") and index + 1 < len(words):
                values[word] = words[index + 1]
        used = VPCD_BASE_PORT + int(values.get("--slot", "0") or 0)
        if "--vpcd" in values and "--slot" not in values:
            tail = values["--vpcd"].rsplit(":", 1)
            used = int(tail[1]) if len(tail) == 2 and tail[1].isdigit() else VPCD_BASE_PORT
        if used == port:
            found.append(f"pid {entry.name}: {' '.join(words)[:160]}")
    return found


def wait_slot_free(slot: int, timeout: float = 60.0, own: set[int] = frozenset()):
    """Waits until no other card is on vpcd slot N: no connection to its port and no other
    `arculus-card serve` aimed at it (neither takes our slot lock); skips (fails in CI) when the
    slot stays taken."""
    deadline = time.monotonic() + timeout
    while True:
        others = foreign_cards(slot, own)
        if not others and slot_connections(slot) == 0:
            return
        if time.monotonic() > deadline:
            message = (f"vpcd slot {slot} (port {VPCD_BASE_PORT + slot}) is taken by another card process: "
                       f"{others or 'a connection'}; stop it or set ARCULUS_SLOT")
            if IN_CI:
                pytest.fail(message, pytrace=False)
            pytest.skip(message)
        time.sleep(0.5)


def reader_state(reader: str) -> int:
    """pcscd's event state word for `reader` (SCardGetStatusChange, no connection): the event
    counter in the high 16 bits, SCARD_STATE_* flags below."""
    from smartcard import scard

    try:
        _, context = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
    except SystemError:  # pyscard, while pcscd's reader list changes
        return 0
    try:
        hresult, states = scard.SCardGetStatusChange(context, 0, [(reader, scard.SCARD_STATE_UNAWARE)])
        return states[0][1] if hresult == scard.SCARD_S_SUCCESS and states else 0
    except SystemError:
        return 0
    finally:
        scard.SCardReleaseContext(context)


def wait_card_seen(reader: str, present: bool, counter_before: int | None = None, timeout: float = 10.0):
    """Until pcscd's own polling shows the reader with (or without) a card — without connecting,
    which would race pcscd's polling thread."""
    from smartcard import scard

    flag = scard.SCARD_STATE_PRESENT if present else scard.SCARD_STATE_EMPTY
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = reader_state(reader)
        if state & flag and (counter_before is None or (state >> 16) != counter_before):
            return
        time.sleep(0.05)
    if present:
        raise AssertionError(f"pcscd never saw a card in {reader}")


class ExchangeLog:
    """Every APDU exchange of a device: when it started and ended and whether it raised, and an
    event set while a CTAP message (NFCCTAP_MSG) is on its way to the card."""

    def __init__(self):
        self.exchanges: list[tuple[float, float, bool]] = []
        self.ctap_in_flight = threading.Event()


def exclusive_device(served: ServedCard, timeout: float = 10.0, log: ExchangeLog | None = None):
    """A python-fido2 CtapPcscDevice holding the card exclusively (SCARD_SHARE_EXCLUSIVE): on a
    machine where other PC/SC programs scan every reader, none can connect to our card and reset
    it in the middle of a test. With `log`, its exchanges are recorded there."""
    from fido2.pcsc import CtapPcscDevice
    from smartcard import scard
    from smartcard.Exceptions import CardConnectionException, NoCardException
    from smartcard.System import readers

    class ExclusiveDevice(CtapPcscDevice):
        def connect(self):
            self._conn.connect(mode=scard.SCARD_SHARE_EXCLUSIVE)
            self._select()

        def apdu_exchange(self, apdu, protocol=None):
            if log is None:
                return super().apdu_exchange(apdu, protocol)
            start = time.monotonic()
            if len(apdu) > 1 and apdu[1] == 0x10:
                log.ctap_in_flight.set()
            try:
                answer = super().apdu_exchange(apdu, protocol)
            except BaseException:
                log.exchanges.append((start, time.monotonic(), False))
                raise
            finally:
                log.ctap_in_flight.clear()
            log.exchanges.append((start, time.monotonic(), True))
            return answer

    deadline = time.monotonic() + timeout
    while True:
        reader = next((r for r in readers() if str(r) == served.reader), None)
        if reader is not None:
            try:
                return ExclusiveDevice(reader.createConnection(), served.reader)
            except (NoCardException, CardConnectionException, ValueError):
                pass
        if served.process.poll() is not None:
            raise AssertionError(f"arculus-card serve exited early:\n{served.stderr()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no exclusive connection to the card in {served.reader}:\n{served.stderr()}")
        time.sleep(0.1)


def rss_kib(pid: int) -> int:
    """The resident set size of a process (VmRSS in /proc/PID/status), in KiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError(f"no VmRSS for pid {pid}")


def image_tool(*arguments: str) -> dict:
    """`arculus-card image …` on an image no process serves; its JSON answer."""
    result = subprocess.run([str(_binary()), "image", *arguments], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"arculus-card image {' '.join(arguments)} failed:\n{result.stdout}{result.stderr}"
    answer = json.loads(result.stdout)
    assert answer.get("ok") is True, answer
    return answer


# --- the workload and what the client knows --------------------------------------------------


@dataclass
class Ledger:
    """What the client has seen acknowledged, and the operation a kill interrupted."""

    retries: int = 8
    resident: dict[bytes, bytes] = field(default_factory=dict)  # user ID → credential ID
    non_resident: list[bytes] = field(default_factory=list)
    counter: int = 0
    in_flight: tuple[str, bytes | None] | None = None
    consecutive_wrong: int = 0
    operations: int = 0
    interrupted: int = 0
    errors: list[str] = field(default_factory=list)

    def retry_ceiling(self) -> int:
        """The most retries the card may report after a kill: what the client last knew, or 8
        when an operation that presents the right PIN was in flight."""
        if self.in_flight and self.in_flight[0] in ("right-pin", "make-resident", "delete"):
            return 8
        return self.retries


def _make(ctap2: Ctap2, user: bytes, resident: bool, token: bytes | None, protocol) -> tuple[bytes, int]:
    client_data_hash = sha256(b"power kill " + user + os.urandom(8))
    pin_auth = protocol.authenticate(token, client_data_hash) if token else None
    response = ctap2.make_credential(
        client_data_hash,
        {"id": RP_ID, "name": "Example RP"},
        {"id": user, "name": user.decode(), "displayName": user.decode()},
        [{"type": "public-key", "alg": -7}],
        options={"rk": True} if resident else None,
        pin_uv_param=pin_auth,
        pin_uv_protocol=protocol.VERSION if token else None,
    )
    return response.auth_data.credential_data.credential_id, response.auth_data.counter


def run_workload(ctap2: Ctap2, ledger: Ledger, rng: random.Random, killed: threading.Event):
    """Runs operations until the card goes away (the kill surfaces as an error of the operation
    in flight); records each acknowledgement in `ledger`."""
    protocol = PinProtocolV2()
    client_pin = ClientPin(ctap2, protocol)
    while True:
        choices = ["make", "assert", "retries", "right-pin", "make-resident"]
        if ledger.retries > 4 and ledger.consecutive_wrong < 2:
            choices += ["wrong-pin", "wrong-pin"]
        if len(ledger.resident) > 6:
            choices.append("delete")
        operation = rng.choice(choices)
        user = rng.choice(USER_POOL) if operation == "make-resident" else None
        if operation == "delete":
            user = rng.choice(sorted(ledger.resident))
        if operation == "assert" and not (ledger.resident or ledger.non_resident):
            operation = "make"
        ledger.in_flight = (operation, user)
        try:
            if operation == "make":
                credential_id, counter = _make(ctap2, b"non-resident", False, None, protocol)
                ledger.non_resident.append(credential_id)
                ledger.counter = max(ledger.counter, counter)
            elif operation == "make-resident":
                token = client_pin.get_pin_token(PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL, RP_ID)
                ledger.retries, ledger.consecutive_wrong = 8, 0
                credential_id, counter = _make(ctap2, user, True, token, protocol)
                ledger.resident[user] = credential_id
                ledger.counter = max(ledger.counter, counter)
            elif operation == "assert":
                credential_id = rng.choice(list(ledger.resident.values()) + ledger.non_resident)
                response = ctap2.get_assertion(RP_ID, sha256(os.urandom(16)),
                                               allow_list=[{"type": "public-key", "id": credential_id}])
                if response.auth_data.counter <= ledger.counter:
                    ledger.errors.append(f"counter {response.auth_data.counter} after {ledger.counter}")
                ledger.counter = response.auth_data.counter
            elif operation == "retries":
                retries = client_pin.get_pin_retries()[0]
                if retries != ledger.retries:
                    ledger.errors.append(f"getPINRetries {retries}, the client expected {ledger.retries}")
                ledger.retries = retries
            elif operation == "right-pin":
                client_pin.get_pin_token(PIN)
                ledger.retries, ledger.consecutive_wrong = 8, 0
            elif operation == "wrong-pin":
                try:
                    client_pin.get_pin_token("000000")
                    ledger.errors.append("a wrong PIN was accepted")
                except CtapError as error:
                    if error.code != CtapError.ERR.PIN_INVALID:
                        raise
                    ledger.retries -= 1
                    ledger.consecutive_wrong += 1
            elif operation == "delete":
                token = client_pin.get_pin_token(PIN, ClientPin.PERMISSION.CREDENTIAL_MGMT)
                ledger.retries, ledger.consecutive_wrong = 8, 0
                CredentialManagement(ctap2, protocol, token).delete_cred(
                    {"type": "public-key", "id": ledger.resident[user]})
                del ledger.resident[user]
        except Exception as error:  # noqa: BLE001 - the kill surfaces as any PC/SC or CTAP error
            if killed.is_set():
                ledger.interrupted += 1
                return
            ledger.errors.append(f"{operation}: {type(error).__name__}: {error}")
            ledger.in_flight = None
            return
        ledger.in_flight = None
        ledger.operations += 1


def check_image(image: Path, ledger: Ledger, round_number: int):
    """The image reopens offline and holds what the client knows, and nothing else."""
    label = f"round {round_number}, in flight: {ledger.in_flight}"
    pin = image_tool("pin", "--card", str(image))["pin"]
    assert pin["isSet"], f"{label}: the PIN is gone"
    ceiling = ledger.retry_ceiling()
    assert pin["retries"] <= ceiling, f"{label}: {pin['retries']} PIN retries, the client last saw {ledger.retries}"
    counter = image_tool("counter", "--card", str(image))["counter"]
    assert counter >= ledger.counter, f"{label}: counter {counter} < {ledger.counter} acknowledged"
    stored = {bytes.fromhex(c["userIdHex"]): bytes.fromhex(c["idHex"])
              for c in image_tool("credentials", "list", "--card", str(image))["credentials"]}
    operation, in_flight_user = ledger.in_flight or (None, None)
    touched = in_flight_user if operation in ("make-resident", "delete") else None
    for user, credential_id in ledger.resident.items():
        if user == touched:
            if operation == "make-resident":
                assert user in stored, f"{label}: the credential of {user!r} is gone"
            continue
        assert stored.get(user) == credential_id, f"{label}: acknowledged credential of {user!r} missing or changed"
    for user in stored:
        assert user in ledger.resident or (operation == "make-resident" and user == touched), \
            f"{label}: a credential for {user!r} appeared that was never acknowledged or in flight"
    # Resynchronise with what the card holds (an in-flight change may or may not have landed).
    ledger.retries = pin["retries"]
    ledger.consecutive_wrong = 0
    if touched is not None:
        if touched in stored:
            ledger.resident[touched] = stored[touched]
        else:
            ledger.resident.pop(touched, None)
    ledger.counter = max(ledger.counter, counter)
    ledger.in_flight = None


# A restarted serve must be on the reader again within this, as pcscd reports it.
PRESENT_WITHIN = 2.0


def kill_mid_exchange(served: ServedCard, log: ExchangeLog, killed: threading.Event, delay: float) -> float:
    """After `delay`, kills serve (SIGKILL) as soon as a CTAP message is on its way to the card;
    returns the moment of the kill."""
    time.sleep(delay)
    log.ctap_in_flight.wait(timeout=10)
    killed.set()
    moment = time.monotonic()
    served.process.kill()
    served.process.wait(timeout=10)
    return moment


def landed_mid_exchange(log: ExchangeLog, moment: float) -> bool:
    """Whether the kill at `moment` cut an exchange: one that started before it and failed."""
    return any(not ok and start <= moment for start, _, ok in log.exchanges)


ROUNDS = int(os.environ.get("ARCULUS_POWER_KILL_ROUNDS", "30"))


@pytest.mark.time_limit(lambda: 120 + 10 * ROUNDS)
def test_kill_9_at_random_moments(pcsc_reader, tmp_path):
    binary = _binary()
    if not binary.exists():
        pytest.skip(f"no arculus-card binary at {binary}")
    rounds = ROUNDS
    seed = int(os.environ.get("ARCULUS_POWER_KILL_SEED", str(int(time.time()))))
    print(f"power kill: {rounds} rounds, seed {seed} (ARCULUS_POWER_KILL_SEED={seed} replays the delays)")
    rng = random.Random(seed)
    delays = random.Random(seed + 1)
    image = tmp_path / "card.img"
    ledger = Ledger()
    survived, between_exchanges, restarts = 0, 0, []
    with slot_lock(SLOT):
        wait_slot_free(SLOT)
        attempt = 0
        while True:
            if image.exists():
                check_image(image, ledger, attempt)
            log_dir = tmp_path / f"round-{attempt:04d}"
            log_dir.mkdir()
            # A suite that does not take the slot lock may have put its card on the slot meanwhile.
            wait_slot_free(SLOT, timeout=300)
            # Straight after the kill: pcscd has not necessarily seen the card go.
            started = time.monotonic()
            # No control socket: another suite's `arculus-card ctl --slot N` must never reach our card.
            served = ServedCard(binary, SLOT, image, ["--no-control"], log_dir)
            device = None
            try:
                served.wait_present(1)
                wait_card_seen(served.reader, present=True, timeout=10)
                present_after = time.monotonic() - started
                restarts.append(present_after)
                assert present_after <= PRESENT_WITHIN, (
                    f"attempt {attempt}: the restarted card was present only after {present_after:.2f} s "
                    f"(limit {PRESENT_WITHIN} s):\n{served.stderr()[-4000:]}")
                log = ExchangeLog()
                device = exclusive_device(served, log=log)
                ctap2 = Ctap2(device)
                if attempt == 0:
                    ClientPin(ctap2, PinProtocolV2()).set_pin(PIN)
                else:
                    # The reopened card works with what was acknowledged before the kill.
                    for credential_id in rng.sample(ledger.non_resident, min(3, len(ledger.non_resident))):
                        try:
                            response = ctap2.get_assertion(RP_ID, sha256(b"after restart"),
                                                           allow_list=[{"type": "public-key", "id": credential_id}])
                        except CtapError as error:
                            previous = (tmp_path / f"round-{attempt - 1:04d}" / "serve.stderr").read_text(errors="replace")
                            raise AssertionError(
                                f"attempt {attempt}: an acknowledged credential {credential_id.hex()} fails after the "
                                f"restart: {error}\n--- this round's serve ---\n{served.stderr()[-6000:]}\n"
                                f"--- the killed serve ---\n{previous[-6000:]}") from error
                        assert response.auth_data.counter > ledger.counter, "the counter went back after a restart"
                        ledger.counter = response.auth_data.counter
                if survived == rounds:
                    break
                killed = threading.Event()
                worker = threading.Thread(target=run_workload, args=(ctap2, ledger, rng, killed), daemon=True)
                worker.start()
                moment = kill_mid_exchange(served, log, killed, delays.uniform(0.02, 1.2))
                worker.join(timeout=60)
                assert not worker.is_alive(), "the workload did not notice the card was gone"
                assert not ledger.errors, f"attempt {attempt}: {ledger.errors}"
                if landed_mid_exchange(log, moment):
                    survived += 1
                else:
                    between_exchanges += 1
            finally:
                if device is not None:
                    with contextlib.suppress(Exception):
                        device.close()
                if served.process.poll() is None:
                    served.process.kill()
                    served.process.wait(timeout=10)
            attempt += 1
        restarts.sort()
        print(f"power kill: {survived} kill -9 rounds mid-exchange (+{between_exchanges} kills that fell between two "
              f"exchanges, not counted), {ledger.operations} operations acknowledged, {ledger.interrupted} interrupted by "
              f"the kill, {len(ledger.resident)} discoverable and {len(ledger.non_resident)} non-discoverable credentials "
              f"held, 0 torn images, 0 acknowledged changes lost; restart to present: median "
              f"{restarts[len(restarts) // 2]:.2f} s, max {restarts[-1]:.2f} s over {len(restarts)} restarts")
    assert survived == rounds
    assert not ledger.errors
