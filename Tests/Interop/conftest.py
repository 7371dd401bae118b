"""Interop tests: python-fido2 (and opensc-tool) talk to `arculus-card serve` through the real
pcscd + vsmartcard vpcd stack, exactly as they would talk to a card on an NFC reader.

Nothing is built here. The binary comes from $ARCULUS_CARD (default .build/debug/arculus-card
in the repository). Each test gets a card of its own: a fresh card image in a temporary
folder, served on vpcd slot $ARCULUS_SLOT (default 1, reader "Virtual PCD 00 01", so a card
a developer keeps on slot 0 is left alone).

When pcscd cannot be reached the tests skip on a developer machine, and FAIL in CI
(CI=true): a CI run that silently skipped its interop tests would prove nothing.

Every test has a time limit (ARCULUS_TEST_TIME_LIMIT seconds, 300 by default; a test may ask for
more with `@pytest.mark.time_limit(seconds or a function returning seconds)`): past it the test
fails, and if it is stuck where Python cannot interrupt it (inside a PC/SC call) the run ends 30 s
later with every thread's traceback, so that a hang fails CI instead of stalling it.
"""

from __future__ import annotations

import faulthandler
import gc
import logging
import os
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VPCD_BASE_PORT = 35963
IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def _unavailable(message: str):
    if IN_CI:
        pytest.fail(message, pytrace=False)
    pytest.skip(message)


def _binary() -> Path:
    path = Path(os.environ.get("ARCULUS_CARD", REPO / ".build" / "debug" / "arculus-card"))
    if not path.is_absolute():
        path = REPO / path
    return path


def _slot() -> int:
    return int(os.environ.get("ARCULUS_SLOT", "1"))


def configured_readers(directory: str = "/etc/reader.conf.d") -> dict[int, str]:
    """The vpcd readers pcscd's configuration declares, by port, named as pcscd names them: each
    entry (FRIENDLYNAME, DEVICENAME /dev/null:PORT, LIBPATH of a vpcd driver) has two slots,
    'NAME 00 00' on PORT and 'NAME 00 01' on PORT+1 (see setup.sh --readers)."""
    readers: dict[int, str] = {}
    try:
        names = sorted(os.listdir(directory))
    except OSError:
        return readers
    for name in names:
        path = Path(directory) / name
        if not path.is_file():
            continue
        entry: dict[str, str] = {}
        entries = []
        for line in path.read_text(errors="replace").splitlines():
            words = line.split("#", 1)[0].split(None, 1)
            if len(words) != 2 or words[0] not in ("FRIENDLYNAME", "DEVICENAME", "LIBPATH", "CHANNELID"):
                continue
            if words[0] in entry:
                entries.append(entry)
                entry = {}
            entry[words[0]] = words[1].strip().strip('"')
        entries.append(entry)
        for entry in entries:
            device = entry.get("DEVICENAME", "")
            if "vpcd" not in entry.get("LIBPATH", "") or "FRIENDLYNAME" not in entry or not device.startswith("/dev/null"):
                continue
            port = int(device.split(":", 1)[1], 0) if ":" in device else VPCD_BASE_PORT
            for slot in (0, 1):
                readers[port + slot] = f"{entry['FRIENDLYNAME']} 00 {slot:02X}"
    return readers


def reader_name(slot: int) -> str:
    """The reader of vpcd slot N (port 35963 + N), from pcscd's configuration; Debian's naming
    when it says nothing of that port."""
    return configured_readers().get(VPCD_BASE_PORT + slot, f"Virtual PCD 00 {slot:02X}")


def _readers() -> list[str]:
    from smartcard.System import readers

    try:
        return [str(r) for r in readers()]
    except Exception:  # noqa: BLE001 - any PC/SC failure means "not reachable"
        return []


@pytest.fixture(scope="session")
def pcsc_reader() -> str:
    """The vpcd reader name, after checking that pcscd answers and lists it.

    If pcscd is not running and we are root, it is started once (it daemonizes and stays).
    """
    name = reader_name(_slot())
    if name not in _readers() and shutil.which("pcscd") and os.geteuid() == 0:
        if subprocess.run(["pidof", "pcscd"], capture_output=True).returncode != 0:
            subprocess.run(["pcscd"], check=False)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and name not in _readers():
                time.sleep(0.2)
    if name not in _readers():
        _unavailable(
            f"pcscd is not reachable or has no reader {name!r} "
            "(install pcscd + vsmartcard-vpcd and start pcscd)"
        )
    return name


def first_device(reader: str, process: subprocess.Popen, describe=lambda: "", timeout: float = 10.0):
    """python-fido2's device on `reader` (SELECT + getInfo done), retried: pcscd can report a card
    present while its polling thread still holds the reader, and a connection made then fails
    (list_devices skips the reader). `describe()` says what serve printed, for the failure."""
    from fido2.pcsc import CtapPcscDevice

    deadline = time.monotonic() + timeout
    while True:
        device = next(CtapPcscDevice.list_devices(reader), None)
        if device is not None:
            return device
        if process.poll() is not None:
            raise AssertionError(f"arculus-card serve exited early:\n{describe()}")
        if time.monotonic() > deadline:
            raise AssertionError(f"python-fido2 never found the card in {reader}:\n{describe()}")
        time.sleep(0.1)


class ServedCard:
    """One `arculus-card serve` process and ways to reach its card."""

    def __init__(self, binary: Path, slot: int, image: Path, extra: list[str], log_dir: Path):
        self.slot = slot
        self.reader = reader_name(slot)
        self.image = image
        self.stderr_path = log_dir / "serve.stderr"
        self._present = 0
        self._present_lock = threading.Condition()
        # The card page's address, from `serve --ui`'s "ui on …" line.
        self.ui_address: str | None = None
        self.process = subprocess.Popen(
            [str(binary), "serve", "--card", str(image), "--slot", str(slot), "--tap-delay", "1", "--verbose", *extra],
            stdout=subprocess.PIPE,
            stderr=open(self.stderr_path, "wb"),
            text=True,
        )
        self._reader_thread = threading.Thread(target=self._read_stdout, daemon=True)
        self._reader_thread.start()

    def _read_stdout(self):
        for line in self.process.stdout:
            if line.startswith("ui on "):
                with self._present_lock:
                    self.ui_address = line.split(" ", 2)[2].strip()
                    self._present_lock.notify_all()
            if line.startswith("card present on"):
                with self._present_lock:
                    self._present += 1
                    self._present_lock.notify_all()

    def stderr(self) -> str:
        try:
            return self.stderr_path.read_text(errors="replace")
        except OSError:
            return ""

    def presences(self) -> int:
        """How many times the card has come onto the reader so far (1 after the start)."""
        with self._present_lock:
            return self._present

    def wait_present(self, count: int, timeout: float = 10.0):
        with self._present_lock:
            if not self._present_lock.wait_for(lambda: self._present >= count, timeout):
                raise AssertionError(
                    f"card never reported present (#{count}); is another card process using "
                    f"vpcd slot {self.slot}? (set ARCULUS_SLOT) serve stderr:\n{self.stderr()}"
                )

    def device(self, timeout: float = 10.0):
        """A fresh CtapPcscDevice connected to the card (SELECT + getInfo done)."""
        return first_device(self.reader, self.process, self.stderr, timeout)

    def connection(self, timeout: float = 10.0, disposition: int | None = None):
        """A raw pyscard connection to the card, once pcscd has noticed it. `disposition` is what
        disconnecting does to the card (pyscard's default: SCARD_UNPOWER_CARD)."""
        from smartcard.Exceptions import CardConnectionException, NoCardException
        from smartcard.System import readers

        deadline = time.monotonic() + timeout
        while True:
            reader = next((r for r in readers() if str(r) == self.reader), None)
            if reader is not None:
                connection = reader.createConnection()
                try:
                    connection.connect(disposition=disposition)
                    return connection
                except (NoCardException, CardConnectionException):
                    pass
            if time.monotonic() > deadline:
                raise AssertionError(f"pcscd never saw the card in {self.reader}:\n{self.stderr()}")
            time.sleep(0.1)

    def retap(self):
        """SIGUSR1: the card is taken off the reader and tapped again (power cycle)."""
        with self._present_lock:
            before = self._present
        self.process.send_signal(signal.SIGUSR1)
        self.wait_present(before + 1)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader_thread.join(timeout=2)
        return self.process.returncode


def _reader_event_state(reader: str) -> int:
    """pcscd's event state word for `reader` (SCardGetStatusChange), without connecting."""
    from smartcard import scard

    _, context = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
    try:
        hresult, states = scard.SCardGetStatusChange(context, 0, [(reader, scard.SCARD_STATE_UNAWARE)])
        if hresult != scard.SCARD_S_SUCCESS or not states:
            return 0
        return states[0][1]
    finally:
        scard.SCardReleaseContext(context)


def _wait_insertion_seen(served: ServedCard, timeout: float = 10.0):
    """Until pcscd lists the card as present in its reader."""
    from smartcard import scard

    deadline = time.monotonic() + timeout
    while not _reader_event_state(served.reader) & scard.SCARD_STATE_PRESENT:
        if time.monotonic() > deadline:
            raise AssertionError(f"pcscd never saw the card in {served.reader}:\n{served.stderr()}")
        time.sleep(0.05)


def _wait_removal_seen(reader: str, counter_before: int | None, timeout: float = 5.0):
    """Until pcscd's own polling has seen the card go (its event counter moved and the reader
    is empty), so that the next test's card is a new insertion. With no counter (the card went
    before it could be read: a test stopped it), until the reader is empty.

    Deliberately no SCardConnect here: connecting while pcscd has not yet noticed the removal
    makes pcscd mark the reader empty behind its polling thread's back, and a card that then
    connects at once is never taken as inserted (the reader stays "empty")."""
    from smartcard import scard

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = _reader_event_state(reader)
        if state & scard.SCARD_STATE_EMPTY and (counter_before is None or (state >> 16) != counter_before):
            return
        time.sleep(0.05)


def pytest_configure(config):
    config.addinivalue_line("markers", "time_limit(seconds): this test's time limit (a number, or a function returning one)")


class TimeLimitExceeded(Exception):
    pass


@pytest.fixture(autouse=True)
def time_limit(request):
    """Fails the test once it has run longer than its limit (see the module's docstring)."""
    marker = request.node.get_closest_marker("time_limit")
    limit = float(os.environ.get("ARCULUS_TEST_TIME_LIMIT", "300"))
    if marker is not None:
        value = marker.args[0]
        limit = float(value() if callable(value) else value)

    def expired(number, frame):
        raise TimeLimitExceeded(f"{request.node.nodeid} ran longer than its time limit of {limit:.0f} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, limit)
    faulthandler.dump_traceback_later(limit + 30, exit=True)
    try:
        yield limit
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGALRM, previous)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Keeps each phase's report on the test item, so fixtures can see whether it failed."""
    outcome = yield
    report = outcome.get_result()
    setattr(item, f"report_{report.when}", report)


def _serve(request, pcsc_reader, tmp_path, extra):
    binary = _binary()
    if not binary.exists():
        _unavailable(f"no arculus-card binary at {binary} (build it, or set ARCULUS_CARD)")
    served = ServedCard(binary, _slot(), tmp_path / "card.image", extra, tmp_path)
    try:
        served.wait_present(1)
        _wait_insertion_seen(served)
        yield served
    finally:
        # PC/SC handles a test dropped without disconnecting are released when Python collects
        # them, and pyscard then unpowers "the card in the reader": collect now, while that is
        # still this test's card, not the next test's.
        gc.collect()
        # A card the test stopped itself may be gone from pcscd's count already: then the
        # counter read now would never move again, and only an empty reader is waited for.
        stopped_before = served.process.poll() is not None
        counter = _reader_event_state(served.reader) >> 16
        status = served.stop()
        _wait_removal_seen(served.reader, None if stopped_before else counter)
        report = getattr(request.node, "report_call", None)
        if report is not None and report.failed:
            # Shown with the failure: what the card saw (serve runs with --verbose).
            print(f"--- arculus-card serve stderr ---\n{served.stderr()}")
    assert status == 0, f"arculus-card serve exited with {status}:\n{served.stderr()}"


@pytest.fixture
def card(request, pcsc_reader, tmp_path):
    """A fresh card (new image file) on the vpcd reader, for one test."""
    yield from _serve(request, pcsc_reader, tmp_path, [])


@pytest.fixture
def busy_card(request, pcsc_reader, tmp_path):
    """A fresh card that answers NFCCTAP_MSG with 9100 first (--busy-first)."""
    yield from _serve(request, pcsc_reader, tmp_path, ["--busy-first"])


class TrafficLog(logging.Handler):
    """Collects python-fido2's APDU traffic log lines (fido2.pcsc at LOG_LEVEL_TRAFFIC)."""

    def __init__(self):
        super().__init__(level=1)
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(record.getMessage())

    def sent(self) -> list[str]:
        return [line[len("SEND: "):] for line in self.lines if line.startswith("SEND: ")]

    def status_words(self) -> list[str]:
        return [line.rsplit("SW=", 1)[1] for line in self.lines if line.startswith("RECV: ")]


@pytest.fixture
def traffic():
    """The APDUs python-fido2 sends and the status words it gets, during the test."""
    from fido2.utils import LOG_LEVEL_TRAFFIC

    logger = logging.getLogger("fido2.pcsc")
    handler = TrafficLog()
    previous = logger.level
    logger.setLevel(LOG_LEVEL_TRAFFIC)
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)
    logger.setLevel(previous)
