"""Records the transcript fixtures in Fixtures/transcripts/ from python-fido2 sessions.

Re-record (needs pcscd with vsmartcard-vpcd, and a built arculus-card with `serve --seed/--record`):

    swift build --product arculus-card
    python3 Tests/Interop/record_fixtures.py              # every scenario
    python3 Tests/Interop/record_fixtures.py reset u2f    # some, by name (see --list)

Each scenario runs python-fido2 (through pyscard, pcscd and vpcd, exactly as for a card on an NFC
reader) against `arculus-card serve --seed SEED --record FILE` on vpcd slot $ARCULUS_SLOT
(default 1), on a fresh card. The seed is fixed per scenario, so the card is deterministic and the
transcript replays byte for byte (`arculus-card replay FILE`). After recording, the script sets
the `@source` header, adds a comment saying how the file was made, and checks it with
`arculus-card replay`. Re-recording changes `@date` and, in sessions with a PIN, the bytes
python-fido2 draws at random (its key-agreement keys, IVs, pinUvAuthParams); the card's side is
the same every time.

The scenario functions are also what Tests/Interop/test_transcripts.py runs against
`serve --stand-in FILE`: the host sends the same requests again, with fixed client data where
the CTAP level is used, and the stand-in answers from the transcript.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Callable

from fido2.ctap import CtapError
from fido2.ctap1 import ApduError, Ctap1
from fido2.ctap2 import Ctap2
from fido2.ctap2.credman import CredentialManagement
from fido2.ctap2.pin import ClientPin

import interop_support as support

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "Fixtures" / "transcripts"
PIN = "1234"
NEW_PIN = "5678"
RP = {"id": "example.com", "name": "Example RP"}
ES256 = [{"type": "public-key", "alg": -7}]
FIDO2_VERSION = version("fido2")


def client_data_hash(label: str) -> bytes:
    """A fixed clientDataHash per step, so a replaying host sends the same request."""
    return hashlib.sha256(f"arculus transcript fixture: {label}".encode()).digest()


def challenge(label: str) -> bytes:
    """A fixed WebAuthn challenge per step (the client data, and so its hash, stay the same)."""
    return hashlib.sha256(f"arculus transcript challenge: {label}".encode()).digest()


def user(name: str) -> dict:
    return {"id": f"user-{name}".encode(), "name": name, "displayName": name.title()}


def expect_ctap_error(code, call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except CtapError as error:
        assert error.code == code, f"expected {code!r}, got {error.code!r}"
        return
    raise AssertionError(f"expected {code!r}, the call succeeded")


# --- Scenarios -------------------------------------------------------------------------------
# Each takes the served card (conftest.ServedCard: .device(), .retap()) and drives a session.


def pin_set_and_change(card):
    """clientPIN: retries on a blank card (PIN_NOT_SET), setPIN, changePIN, getPinToken with the
    new PIN."""
    device = card.device()
    try:
        pin = ClientPin(Ctap2(device))
        expect_ctap_error(CtapError.ERR.PIN_NOT_SET, pin.get_pin_retries)
        pin.set_pin(PIN)
        pin.change_pin(PIN, NEW_PIN)
        assert len(pin.get_pin_token(NEW_PIN)) == 32
        assert pin.get_pin_retries()[0] == 8
    finally:
        device.close()


def wrong_pin_lockout(card):
    """Three wrong PINs: PIN_INVALID, PIN_INVALID, PIN_AUTH_BLOCKED (and again blocked) until the
    card is taken off the reader and tapped again (SIGUSR1); then the right PIN works."""
    device = card.device()
    try:
        pin = ClientPin(Ctap2(device))
        pin.set_pin(PIN)
        expect_ctap_error(CtapError.ERR.PIN_INVALID, pin.get_pin_token, "0000")
        expect_ctap_error(CtapError.ERR.PIN_INVALID, pin.get_pin_token, "0000")
        expect_ctap_error(CtapError.ERR.PIN_AUTH_BLOCKED, pin.get_pin_token, "0000")
        expect_ctap_error(CtapError.ERR.PIN_AUTH_BLOCKED, pin.get_pin_token, PIN)
        assert pin.get_pin_retries()[0] == 5
    finally:
        device.close()
    card.retap()
    device = card.device()
    try:
        pin = ClientPin(Ctap2(device))
        assert len(pin.get_pin_token(PIN)) == 32
        assert pin.get_pin_retries()[0] == 8
    finally:
        device.close()


def webauthn_register_authenticate(card):
    """Fido2Client + Fido2Server (fixed challenges): a non-discoverable credential, packed
    attestation verified against the emulator root, one authentication with an allow list."""
    device = card.device()
    try:
        verifier = support.EmulatorRootVerifier()
        rp = support.server(verifier)
        client = support.client(device)
        options, state = rp.register_begin(user("alice"), resident_key_requirement="discouraged",
                                           user_verification="discouraged", challenge=challenge("register"))
        credential = rp.register_complete(state, client.make_credential(options["publicKey"])).credential_data
        assert verifier.checked == 1
        request, state = rp.authenticate_begin([credential], user_verification="discouraged",
                                               challenge=challenge("authenticate"))
        rp.authenticate_complete(state, [credential], client.get_assertion(request["publicKey"]).get_response(0))
    finally:
        device.close()


def discoverable_credentials(card):
    """A PIN, two discoverable credentials for one RP made through Fido2Client with user
    verification, then a username-less login: getAssertion and getNextAssertion."""
    device = card.device()
    try:
        ClientPin(Ctap2(device)).set_pin(PIN)
        rp = support.server(support.EmulatorRootVerifier())
        client = support.client(device, pin=PIN)
        credentials = []
        for name in ["alice", "bob"]:
            options, state = rp.register_begin(user(name), resident_key_requirement="required",
                                               user_verification="required", challenge=challenge(f"register {name}"))
            credentials.append(rp.register_complete(state, client.make_credential(options["publicKey"])).credential_data)
        request, state = rp.authenticate_begin(None, user_verification="required", challenge=challenge("login"))
        selection = client.get_assertion(request["publicKey"])
        assertions = selection.get_assertions()
        assert sorted(a.user["id"] for a in assertions) == [b"user-alice", b"user-bob"]
        for index in range(len(assertions)):
            rp.authenticate_complete(state, credentials, selection.get_response(index))
    finally:
        device.close()


def credential_management(card):
    """credentialManagement with a PIN token: metadata, enumerate RPs and credentials, delete
    one credential, enumerate again."""
    device = card.device()
    try:
        ctap = Ctap2(device)
        pin = ClientPin(ctap)
        pin.set_pin(PIN)
        for name in ["alice", "bob"]:
            # A token's mc permission is used up by one makeCredential (CTAP 2.1 §6.1.2).
            token = pin.get_pin_token(PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL, RP["id"])
            cdh = client_data_hash(f"credman make {name}")
            ctap.make_credential(cdh, RP, user(name), ES256, options={"rk": True},
                                 pin_uv_param=pin.protocol.authenticate(token, cdh), pin_uv_protocol=pin.protocol.VERSION)
        token = pin.get_pin_token(PIN, ClientPin.PERMISSION.CREDENTIAL_MGMT)
        credman = CredentialManagement(ctap, pin.protocol, token)
        assert credman.get_metadata()[CredentialManagement.RESULT.EXISTING_CRED_COUNT] == 2
        rps = credman.enumerate_rps()
        assert [r[CredentialManagement.RESULT.RP]["id"] for r in rps] == [RP["id"]]
        rp_id_hash = rps[0][CredentialManagement.RESULT.RP_ID_HASH]
        creds = credman.enumerate_creds(rp_id_hash)
        assert len(creds) == 2
        victim = next(c for c in creds if c[CredentialManagement.RESULT.USER]["id"] == b"user-bob")
        credman.delete_cred(victim[CredentialManagement.RESULT.CREDENTIAL_ID])
        remaining = credman.enumerate_creds(rp_id_hash)
        assert [c[CredentialManagement.RESULT.USER]["id"] for c in remaining] == [b"user-alice"]
    finally:
        device.close()


def reset(card):
    """A credential and a PIN, then authenticatorReset right after the card is tapped (within
    the reset window): the PIN is gone and the credential no longer works."""
    device = card.device()
    try:
        ctap = Ctap2(device)
        ClientPin(ctap).set_pin(PIN)
        made = ctap.make_credential(client_data_hash("reset make"), RP, user("alice"), ES256)
        credential_id = made.auth_data.credential_data.credential_id
    finally:
        device.close()
    card.retap()
    device = card.device()
    try:
        ctap = Ctap2(device)
        ctap.reset()
        assert ctap.get_info().options["clientPin"] is False
        expect_ctap_error(CtapError.ERR.NO_CREDENTIALS, ctap.get_assertion, RP["id"], client_data_hash("reset get"),
                          [{"type": "public-key", "id": credential_id}])
    finally:
        device.close()


def u2f_register_authenticate(card):
    """CTAP1/U2F through python-fido2's Ctap1: version, register (attestation verified),
    authenticate (signature verified), check-only (6985), another application (6A80)."""
    device = card.device()
    try:
        ctap1 = Ctap1(device)
        app = hashlib.sha256(b"https://example.com").digest()
        assert ctap1.get_version() == "U2F_V2"
        registration = ctap1.register(client_data_hash("u2f register"), app)
        registration.verify(app, client_data_hash("u2f register"))
        signature = ctap1.authenticate(client_data_hash("u2f authenticate"), app, registration.key_handle)
        signature.verify(app, client_data_hash("u2f authenticate"), registration.public_key)
        for check_only, application, status in [(True, app, 0x6985), (False, bytes(32), 0x6A80)]:
            try:
                ctap1.authenticate(client_data_hash("u2f check"), application, registration.key_handle, check_only=check_only)
                raise AssertionError(f"expected {status:04X}")
            except ApduError as error:
                assert error.code == status, f"expected {status:04X}, got {error.code:04X}"
    finally:
        device.close()


def chained_long_request(card):
    """A makeCredential over 255 bytes (long user name and display name, an exclude list of
    unknown IDs): python-fido2 sends it in 250-byte pieces with command chaining; the
    attestation comes back through 61xx + GET RESPONSE; then an assertion."""
    device = card.device()
    try:
        ctap = Ctap2(device)
        long_user = {"id": b"user-with-a-long-name", "name": "a-rather-long-user-name-" * 4,
                     "displayName": "A Rather Long Display Name " * 4}
        exclude = [{"type": "public-key", "id": bytes([index]) * 64} for index in range(1, 4)]
        cdh = client_data_hash("chained make")
        made = ctap.make_credential(cdh, RP, long_user, ES256, exclude_list=exclude)
        credential = made.auth_data.credential_data
        assertion = ctap.get_assertion(RP["id"], client_data_hash("chained get"),
                                       exclude + [{"type": "public-key", "id": credential.credential_id}])
        assertion.verify(client_data_hash("chained get"), credential.public_key)
    finally:
        device.close()


def busy_polling(card):
    """A card that answers NFCCTAP_MSG with 9100 first (serve --busy-first): python-fido2 polls
    with NFCCTAP_GETRESPONSE for getInfo, makeCredential and getAssertion."""
    device = card.device()
    try:
        ctap = Ctap2(device)
        made = ctap.make_credential(client_data_hash("busy make"), RP, user("alice"), ES256)
        credential = made.auth_data.credential_data
        assertion = ctap.get_assertion(RP["id"], client_data_hash("busy get"),
                                       [{"type": "public-key", "id": credential.credential_id}])
        assertion.verify(client_data_hash("busy get"), credential.public_key)
    finally:
        device.close()


@dataclass
class Scenario:
    name: str
    run: Callable
    serve_options: list[str] = field(default_factory=list)

    @property
    def file(self) -> Path:
        return FIXTURES / f"{self.name.replace('_', '-')}.transcript"

    @property
    def seed(self) -> str:
        return hashlib.sha256(f"arculus transcript fixture seed: {self.name}".encode()).hexdigest().upper()


SCENARIOS = [
    Scenario("pin_set_and_change", pin_set_and_change),
    Scenario("wrong_pin_lockout", wrong_pin_lockout),
    Scenario("webauthn_register_authenticate", webauthn_register_authenticate),
    Scenario("discoverable_credentials", discoverable_credentials),
    Scenario("credential_management", credential_management),
    Scenario("reset", reset),
    Scenario("u2f_register_authenticate", u2f_register_authenticate),
    Scenario("chained_long_request", chained_long_request),
    Scenario("busy_polling", busy_polling, ["--busy-first"]),
]


# --- Recording -------------------------------------------------------------------------------


def binary() -> Path:
    path = Path(os.environ.get("ARCULUS_CARD", REPO / ".build" / "debug" / "arculus-card"))
    return path if path.is_absolute() else REPO / path


def slot() -> int:
    return int(os.environ.get("ARCULUS_SLOT", "1"))


def reader_name(number: int) -> str:
    return f"Virtual PCD 00 {number:02X}"


def reader_state(reader: str) -> int:
    """pcscd's event state word for `reader` (0 when pcscd or the reader is not there)."""
    from smartcard import scard

    hresult, context = scard.SCardEstablishContext(scard.SCARD_SCOPE_USER)
    if hresult != scard.SCARD_S_SUCCESS:
        return 0
    try:
        hresult, states = scard.SCardGetStatusChange(context, 0, [(reader, scard.SCARD_STATE_UNAWARE)])
        return states[0][1] if hresult == scard.SCARD_S_SUCCESS and states else 0
    finally:
        scard.SCardReleaseContext(context)


class Serve:
    """One `arculus-card serve --slot N ...` process and the ways a scenario reaches its card
    (the same interface as conftest.ServedCard: device(), retap(), stderr())."""

    def __init__(self, arguments: list[str], folder: Path):
        self.reader = reader_name(slot())
        self.stderr_path = folder / "serve.stderr"
        self._present = 0
        self._present_lock = threading.Condition()
        self.process = subprocess.Popen(
            [str(binary()), "serve", "--slot", str(slot()), "--tap-delay", "0.5", "--verbose", *arguments],
            stdout=subprocess.PIPE, stderr=open(self.stderr_path, "wb"), text=True)
        self._stdout_thread = threading.Thread(target=self._read_stdout, daemon=True)
        self._stdout_thread.start()

    def _read_stdout(self):
        for line in self.process.stdout:
            if line.startswith("card present on"):
                with self._present_lock:
                    self._present += 1
                    self._present_lock.notify_all()

    def stderr(self) -> str:
        try:
            return self.stderr_path.read_text(errors="replace")
        except OSError:
            return ""

    def wait_present(self, count: int, timeout: float = 10.0):
        with self._present_lock:
            if not self._present_lock.wait_for(lambda: self._present >= count, timeout):
                raise AssertionError(f"the card never came on {self.reader} (#{count}); is another card process "
                                     f"on vpcd slot {slot()}? (set ARCULUS_SLOT) serve stderr:\n{self.stderr()}")

    def device(self, timeout: float = 10.0):
        """A CtapPcscDevice on the card (SELECT and getInfo done), retried as conftest's first_device."""
        from conftest import first_device

        return first_device(self.reader, self.process, self.stderr, timeout)

    def retap(self):
        """SIGUSR1: the card leaves the reader and is tapped again."""
        from smartcard import scard

        with self._present_lock:
            before = self._present
        self.process.send_signal(signal.SIGUSR1)
        self.wait_present(before + 1)
        wait_reader(self.reader, lambda state: state & scard.SCARD_STATE_PRESENT)

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._stdout_thread.join(timeout=2)
        return self.process.returncode


def wait_reader(reader: str, condition, timeout: float = 10.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition(reader_state(reader)):
            return True
        time.sleep(0.05)
    return False


@contextlib.contextmanager
def served(arguments: list[str], folder: Path):
    """`arculus-card serve --slot N ARGUMENTS` until pcscd sees the card; afterwards it is
    stopped and pcscd has seen it go (so the next card is a new insertion). Yields the Serve;
    raises when serve did not exit cleanly."""
    from smartcard import scard

    card = Serve(arguments, folder)
    try:
        card.wait_present(1)
        wait_reader(card.reader, lambda state: state & scard.SCARD_STATE_PRESENT)
        yield card
    finally:
        gc.collect()  # drop PC/SC handles now, while the card is still this one
        counter = reader_state(card.reader) >> 16
        status = card.stop()
        wait_reader(card.reader, lambda state: state & scard.SCARD_STATE_EMPTY and (state >> 16) != counter, timeout=5)
    if status != 0:
        raise RuntimeError(f"arculus-card serve exited with {status}:\n{card.stderr()}")


def record(scenario: Scenario) -> Path:
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        raw = folder / "session.transcript"
        with served(["--seed", scenario.seed, "--record", str(raw), *scenario.serve_options], folder) as card:
            scenario.run(card)
        text = raw.read_text()
    scenario.file.parent.mkdir(parents=True, exist_ok=True)
    scenario.file.write_text(annotate(text, scenario))
    return scenario.file


def annotate(text: str, scenario: Scenario) -> str:
    """Sets @source and puts a comment on how the file was made after the headers."""
    source = f"@source python-fido2 {FIDO2_VERSION} via pcscd + vpcd, script record_fixtures.py::{scenario.name}"
    lines = text.splitlines()
    lines = [source if line.startswith("@source") else line for line in lines]
    if source not in lines:
        lines.insert(next(i for i, line in enumerate(lines) if not line.startswith("@")), source)
    first_entry = next(i for i, line in enumerate(lines) if not line.startswith("@"))
    doc = " ".join((scenario.run.__doc__ or "").split())
    comment = [f"# {scenario.name}: {doc}",
               f"# Recorded by Tests/Interop/record_fixtures.py (python3 Tests/Interop/record_fixtures.py {scenario.name})",
               f"# against `arculus-card serve --seed <@seed> --record FILE{''.join(' ' + o for o in scenario.serve_options)}`."]
    return "\n".join(lines[:first_entry] + comment + lines[first_entry:]) + "\n"


def main(argv: list[str]) -> int:
    if "--list" in argv:
        for scenario in SCENARIOS:
            print(f"{scenario.name:32} {scenario.file.relative_to(REPO)}")
        return 0
    wanted = [a.replace("-", "_") for a in argv]
    unknown = [w for w in wanted if w not in {s.name for s in SCENARIOS}]
    if unknown:
        print(f"unknown scenario(s): {', '.join(unknown)}; see --list", file=sys.stderr)
        return 64
    if not binary().exists():
        print(f"no arculus-card at {binary()}: swift build --product arculus-card (or set ARCULUS_CARD)", file=sys.stderr)
        return 1
    if not reader_state(reader_name(slot())):
        print(f"pcscd has no reader {reader_name(slot())!r}: start pcscd with vsmartcard-vpcd", file=sys.stderr)
        return 1
    failures = 0
    for scenario in SCENARIOS:
        if wanted and scenario.name not in wanted:
            continue
        started = time.monotonic()
        path = record(scenario)
        check = subprocess.run([str(binary()), "replay", str(path)], capture_output=True, text=True)
        exchanges = sum(1 for line in path.read_text().splitlines() if line.startswith(">"))
        verdict = check.stdout.strip() if check.returncode == 0 else f"REPLAY FAILED:\n{check.stdout}{check.stderr}"
        failures += check.returncode != 0
        print(f"{scenario.name}: {path.relative_to(REPO)} ({exchanges} exchanges, {time.monotonic() - started:.1f} s): {verdict}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
