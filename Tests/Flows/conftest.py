"""Flow tests: `arculus-card sdk` drives the SDK operations and both flows of the seeds end to end,
against servers the SDK did not write: a FIDO2 server written from the conformance API's text
that verifies with py_webauthn against the emulator's attestation root, and the seed's servlet in
front of it (flow_rig.py).

Every card test runs twice (the `card` fixture is parametrized):

- `image`: the SDK's in-process card from a card image (`sdk ... --card-image FILE`);
- `pcsc`: `arculus-card serve --slot 1` on vpcd and `sdk ... --reader "Virtual PCD 00 01"`,
  through the real pcscd.

The binary comes from $ARCULUS_CARD (default .build/debug/arculus-card). The pcscd plumbing is the
Interop suite's (Tests/Interop/conftest.py: its ServedCard, reader checks and CI rule); as there,
pcscd tests skip on a developer machine without pcscd and FAIL when CI=true. vpcd slot 1 is shared
with other suites (Interop, the PCSC tests): each pcsc test holds the lock file
/tmp/arculus-slot1.lock (flock) while its card is on the reader, waits for the reader to be empty
before starting its card, and checks that the card answering is its own.
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
import secrets
import signal
import subprocess
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest

from flow_rig import PIN, REPO, ConformanceServer, SDKResult, SeedServlet, binary_path, run_sdk

# The Interop suite's conftest, loaded under its own name: its ServedCard and reader helpers.
_spec = importlib.util.spec_from_file_location("interop_conftest", REPO / "Tests" / "Interop" / "conftest.py")
interop = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(interop)

SLOT_LOCK = Path(os.environ.get("ARCULUS_SLOT_LOCK", "/tmp/arculus-slot1.lock"))


def binary() -> Path:
    path = binary_path()
    if not path.exists():
        interop._unavailable(f"no arculus-card binary at {path} (build it, or set ARCULUS_CARD)")
    return path


@contextmanager
def slot_lock(timeout: float = 600.0):
    """Holds /tmp/arculus-slot1.lock (flock), waiting up to `timeout` for another suite's test."""
    SLOT_LOCK.touch(exist_ok=True)
    with open(SLOT_LOCK, "r+") as handle:
        with time_limit_paused():
            deadline = time.monotonic() + timeout
            while True:
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        pytest.fail(f"{SLOT_LOCK} stayed locked for {timeout:.0f} s", pytrace=False)
                    time.sleep(0.2)
        handle.seek(0)
        handle.truncate()
        handle.write(f"{os.getpid()} Tests/Flows\n")
        handle.flush()
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _reader_state(reader: str) -> int:
    """pcscd's event state word for `reader` (SCardGetStatusChange, no connection: connecting
    while pcscd has not yet noticed a removal confuses its polling)."""
    from smartcard import scard

    _, context = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
    try:
        result, states = scard.SCardGetStatusChange(context, 0, [(reader, scard.SCARD_STATE_UNAWARE)])
        return states[0][1] if result == scard.SCARD_S_SUCCESS and states else 0
    finally:
        scard.SCardReleaseContext(context)


def _card_in(reader: str) -> bool:
    from smartcard import scard

    return bool(_reader_state(reader) & scard.SCARD_STATE_PRESENT)


def _wait_state(reader: str, present: bool, timeout: float, what: str, changed_from: int | None = None):
    """Until pcscd reports the reader with (or without) a card, its event counter moved from
    `changed_from` when given."""
    deadline = time.monotonic() + timeout
    while True:
        state = _reader_state(reader)
        from smartcard import scard

        seen = bool(state & scard.SCARD_STATE_PRESENT) if present else bool(state & scard.SCARD_STATE_EMPTY)
        if seen and (changed_from is None or (state >> 16) != changed_from):
            return
        if time.monotonic() > deadline:
            raise AssertionError(f"pcscd never saw {what} in {reader}")
        time.sleep(0.05)


class FlowServedCard(interop.ServedCard):
    """The Interop suite's ServedCard with this suite's serve options: a profile and a chosen
    --tap-delay (long for the card-taken-away tests)."""

    def __init__(self, binary: Path, slot: int, image: Path, log_dir: Path, tap_delay: float, profile: str | None):
        self.slot = slot
        self.reader = interop.reader_name(slot)
        self.image = image
        self.stderr_path = log_dir / "serve.stderr"
        self._present = 0
        self._present_lock = threading.Condition()
        command = [str(binary), "serve", "--card", str(image), "--slot", str(slot), "--tap-delay", str(tap_delay), "--verbose"]
        if profile:
            command += ["--profile", profile]
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=open(self.stderr_path, "wb"), text=True)
        self._reader_thread = threading.Thread(target=self._read_stdout, daemon=True)
        self._reader_thread.start()

    def assert_ours(self):
        """Sends a SELECT of a random AID through pcscd and looks for it in this card's trace: the
        card in the reader is this process's, not a stray one on the same slot."""
        from smartcard.Exceptions import CardConnectionException

        probe = secrets.token_bytes(8)
        # Right after a card appears pcscd may still be powering it, and a transmit then fails
        # (SCARD_E_NOT_TRANSACTED, seen once in a CI run's flows): a new connection gets the
        # powered card. Only the set-up's own SELECT is tried again; what a test sends is not.
        deadline = time.monotonic() + 5
        while True:
            connection = self.connection()
            try:
                connection.transmit([0x00, 0xA4, 0x04, 0x00, 0x08, *probe, 0x00])
                break
            except CardConnectionException:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
            finally:
                connection.disconnect()
        needle = " ".join(f"{b:02X}" for b in probe)
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            if needle in self.stderr():
                return
            time.sleep(0.05)
        raise AssertionError(
            f"the card in {self.reader} is not this test's: another card process is on vpcd slot {self.slot} "
            "(a stray 'arculus-card serve --slot 1'?); stop it or set ARCULUS_SLOT")

    def remove(self):
        """SIGUSR1: the card leaves the reader for --tap-delay seconds."""
        self.process.send_signal(signal.SIGUSR1)

    def wait_absent(self, timeout: float = 10.0):
        _wait_state(self.reader, present=False, timeout=timeout, what="the card go")

    def wait_back(self, count: int, timeout: float = 15.0):
        """Until the card is on the reader again (its `count`th time), pcscd has seen it, and it
        is this process's card (while it was off the reader, another card process could have
        taken the slot)."""
        self.wait_present(count, timeout)
        try:
            _wait_state(self.reader, present=True, timeout=timeout, what="the card")
        except AssertionError as error:
            raise AssertionError(f"{error} after it was tapped again; is another card process waiting for "
                                 f"vpcd slot {self.slot}? (a stray 'arculus-card serve --slot {self.slot}')") from None
        self.assert_ours()

    def retap(self):
        """SIGUSR1 with this card's --tap-delay, then back on the reader and checked to be ours."""
        with self._present_lock:
            before = self._present
        self.process.send_signal(signal.SIGUSR1)
        self.wait_back(before + 1)


class CardTarget:
    """Where `arculus-card sdk` finds the card in one test, and ways to look at the card."""

    def __init__(self, mode: str, image: Path, profile: str | None = None, served: FlowServedCard | None = None):
        self.mode = mode
        self.image = image
        self.profile = profile
        self.served = served

    @property
    def args(self) -> list[str]:
        if self.served is not None:
            return ["--reader", self.served.reader, "--wait-for-card", "10"]
        args = ["--card-image", str(self.image)]
        if self.profile and not self.image.exists():
            args += ["--profile", self.profile]
        return args

    def sdk(self, operation: str, *args: str, card_args: list[str] | None = None) -> SDKResult:
        return run_sdk(binary(), operation, self.args if card_args is None else card_args, *args)

    def set_pin(self, pin: str = PIN):
        self.sdk("set-pin", "--pin", pin).ok()

    def credential_ids(self, pin: str = PIN) -> list[str]:
        """The discoverable credentials, through the SDK's credential management."""
        return [c["credentialId"] for c in self.sdk("list-credentials", "--pin", pin).ok()["credentials"]]

    def credential_ids_by_python_fido2(self, pin: str = PIN) -> list[str]:
        """The discoverable credentials as python-fido2's CredentialManagement lists them through
        pcscd: an independent client's view (pcsc mode only)."""
        from fido2.ctap2 import ClientPin, Ctap2, CredentialManagement
        from fido2.utils import websafe_encode

        assert self.served is not None
        device = self.served.device()
        try:
            ctap = Ctap2(device)
            client_pin = ClientPin(ctap)
            token = client_pin.get_pin_token(pin, ClientPin.PERMISSION.CREDENTIAL_MGMT)
            management = CredentialManagement(ctap, client_pin.protocol, token)
            ids = []
            if management.get_metadata()[CredentialManagement.RESULT.EXISTING_CRED_COUNT] == 0:
                return ids
            for rp in management.enumerate_rps():
                for credential in management.enumerate_creds(rp[CredentialManagement.RESULT.RP_ID_HASH]):
                    ids.append(websafe_encode(credential[CredentialManagement.RESULT.CREDENTIAL_ID]["id"]))
            return ids
        finally:
            device.close()

    def all_views_of_credentials(self, pin: str = PIN) -> list[str]:
        """The SDK's view, checked against python-fido2's where there is a reader."""
        ids = self.credential_ids(pin)
        if self.served is not None:
            assert sorted(self.credential_ids_by_python_fido2(pin)) == sorted(ids)
        return ids

    def retap(self):
        """Takes the card away and taps it again (pcsc: SIGUSR1; image: every run is a new tap)."""
        if self.served is not None:
            self.served.retap()

    def taken_away_at_options(self, fido_server, waits: bool = True) -> list[str]:
        """The card arguments of an SDK run whose card goes away while `fido_server` prepares its
        options (pcsc: SIGUSR1 to serve, which needs a long --tap-delay, from the options handler;
        without `waits` the reader is asked at once), or, on an image, after SELECT and getInfo
        (--remove-card-after 2)."""
        if self.served is None:
            return self.args + ["--remove-card-after", "2"]

        def take_card_away(kind):
            self.served.remove()
            self.served.wait_absent()
        fido_server.before_options = take_card_away
        return self.args if waits else ["--reader", self.served.reader]


@pytest.fixture(scope="session")
def pcsc_reader():
    name = interop.reader_name(interop._slot())
    readers = interop._readers()
    if name not in readers and os.geteuid() == 0 and subprocess.run(["pidof", "pcscd"], capture_output=True).returncode != 0:
        subprocess.run(["pcscd"], check=False)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and name not in interop._readers():
            time.sleep(0.2)
    if name not in interop._readers():
        interop._unavailable(f"pcscd is not reachable or has no reader {name!r} (install pcscd + vsmartcard-vpcd and start pcscd)")
    return name


@pytest.fixture(params=["image", "pcsc"])
def make_card(request, tmp_path):
    """A factory: `make_card(profile=None, tap_delay=0.5)` gives a fresh card in this test's mode."""
    made: list[FlowServedCard] = []
    locks = []

    def factory(profile: str | None = None, tap_delay: float = 0.5) -> CardTarget:
        image = tmp_path / f"card{len(made)}.img"
        if request.param == "image":
            return CardTarget("image", image, profile)
        reader = request.getfixturevalue("pcsc_reader")
        lock = slot_lock()
        lock.__enter__()
        locks.append(lock)
        deadline = time.monotonic() + 60
        while _card_in(reader):
            if time.monotonic() > deadline:
                pytest.fail(f"{reader} holds a card that is not this test's for 60 s: another card process "
                            f"(e.g. a stray 'arculus-card serve --slot 1') is using vpcd slot 1", pytrace=False)
            time.sleep(0.2)
        served = FlowServedCard(binary(), interop._slot(), image, tmp_path, tap_delay, profile)
        made.append(served)
        served.wait_back(1)
        served.assert_ours()
        return CardTarget("pcsc", image, profile, served)

    try:
        yield factory
    finally:
        import gc

        gc.collect()
        for served in made:
            counter = _reader_state(served.reader) >> 16
            status = served.stop()
            _wait_state(served.reader, present=False, timeout=5, what="the card go", changed_from=counter)
            report = getattr(request.node, "report_call", None)
            if report is not None and report.failed:
                print(f"--- arculus-card serve stderr ---\n{served.stderr()}")
            assert status == 0, f"arculus-card serve exited with {status}:\n{served.stderr()}"
        for lock in reversed(locks):
            lock.__exit__(None, None, None)


@pytest.fixture
def card(make_card) -> CardTarget:
    """A fresh card with the PIN set, in this test's mode."""
    target = make_card()
    target.set_pin()
    return target


@pytest.fixture
def sdk_binary() -> Path:
    """The arculus-card binary (skips, or fails in CI, when it is missing)."""
    return binary()


@pytest.fixture
def fido_server():
    """A FIDO2 server written from the conformance API's text (random user IDs)."""
    server = ConformanceServer().start()
    yield server
    server.stop()


@pytest.fixture
def backend(fido_server):
    """The seed's servlet in front of `fido_server`."""
    proxy = SeedServlet(fido_server.url).start()
    yield proxy
    proxy.stop()


#: Seconds a flow test may take, set-up included, waiting for the slot lock and tear-down not
#: counted ($ARCULUS_FLOW_TEST_TIMEOUT). The slowest (a card taken away for its 6 s tap delay)
#: takes about 7 s; a card stuck in a loop would otherwise hang the run.
TEST_TIME_LIMIT = float(os.environ.get("ARCULUS_FLOW_TEST_TIMEOUT", "60"))


class TestTimeLimitExceeded(Exception):
    """A flow test ran past TEST_TIME_LIMIT."""


@contextmanager
def time_limit_paused():
    """Stops the test's clock while it waits for another suite's test (the slot lock has its own
    timeout), and restarts it with the time that was left."""
    left, _ = signal.setitimer(signal.ITIMER_REAL, 0)
    try:
        yield
    finally:
        if left > 0:
            signal.setitimer(signal.ITIMER_REAL, left)


@pytest.fixture(autouse=True)
def time_limit(request):
    """Fails a test that runs longer than TEST_TIME_LIMIT: SIGALRM interrupts whatever it waits for
    (a subprocess, a socket, a sleep) and raises in the test's thread. subprocess.run kills its
    child on the way out, and the other fixtures tear down as after any failure."""

    def expired(signum, frame):
        raise TestTimeLimitExceeded(f"{request.node.nodeid} ran longer than {TEST_TIME_LIMIT:.0f} s "
                                    "(a card or server stuck? $ARCULUS_FLOW_TEST_TIMEOUT sets the limit)")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, TEST_TIME_LIMIT)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    """Tear-down runs to its end whatever the time: it stops the test's served cards and frees the
    slot, which an expiring limit must not cut short."""
    signal.setitimer(signal.ITIMER_REAL, 0)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keeps each phase's report on the test item, so fixtures can see whether it failed."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


@pytest.fixture
def capacity_one_profile(tmp_path) -> str:
    """A profile file: the FIDO 2.1 card with room for one discoverable credential."""
    profile = json.loads((REPO / "Fixtures" / "profiles" / "arculus-fido21.json").read_text())
    profile["name"] = "flows-capacity-1"
    profile["residentKeyCapacity"] = 1
    path = tmp_path / "capacity-1.json"
    path.write_text(json.dumps(profile))
    return str(path)
