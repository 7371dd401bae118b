"""The control socket's promises, through the built binary: `ctl` sends nothing to a socket it
cannot trust (an impostor at the old default name, at the discovery location, or serving from a
private directory under another uid), `serve` refuses to run with a control channel it cannot
make, a client that never reads holds up neither other clients nor SIGTERM, many idle
connections under a low descriptor limit neither spin serve nor break its reader, and a request
the card is too busy to take is reported as not taken.

The impostors run as `nobody` (setpriv), so these tests need root; the ones that serve a card on
vpcd use the real pcscd (run them inside Tests/isolated.sh beside other test runs)."""

from __future__ import annotations

import json
import os
import pwd
import queue
import select
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from conftest import _binary, _serve, _unavailable

# A port with no vpcd driver: serve (--wait-for-reader forever) keeps waiting for it, and its control
# channel works meanwhile.
NO_DRIVER = "127.0.0.1:39997"
NO_DRIVER_PORT = 39997
REFUSED_BYTES = "the impostor received nothing"

# The impostor: listens where it is told, as nobody, and prints every connection and every byte
# it receives (and answers {"ok":true} to each line, as the impostor of the review did).
IMPOSTOR = r"""
import os, socket, sys
how = sys.argv[1]
if how == "fd":
    listener = socket.socket(fileno=int(sys.argv[2]))
else:
    path = sys.argv[2]
    if how == "record":
        records, port = sys.argv[3], sys.argv[4]
        os.makedirs(records, mode=0o755, exist_ok=True)
        with open(os.path.join(records, "port-" + port), "w") as record:
            record.write(path + "\n")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    os.chmod(path, 0o777)
listener.listen(16)
print("listening", flush=True)
while True:
    connection, _ = listener.accept()
    print("connection", flush=True)
    while True:
        data = connection.recv(65536)
        if not data:
            break
        print("bytes", data.hex(), flush=True)
        if b"\n" in data:
            connection.sendall(b'{"ok":true}\n')
    connection.close()
"""


def _require_root_and_nobody() -> int:
    if os.geteuid() != 0:
        _unavailable("the impostor tests need root (they run a listener as nobody)")
    try:
        return pwd.getpwnam("nobody").pw_uid
    except KeyError:
        _unavailable("no user nobody")


class Impostor:
    """A listener run as nobody; `.received()` is everything it printed after 'listening'."""

    def __init__(self, *arguments: str, pass_fds: tuple[int, ...] = ()):
        self.process = subprocess.Popen(
            ["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups",
             sys.executable, "-c", IMPOSTOR, *arguments],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, pass_fds=pass_fds)
        line = self.process.stdout.readline()
        assert line == "listening\n", f"the impostor did not start: {line!r} {self.process.stderr.read()}"

    def received(self) -> str:
        if self.process.poll() is None:
            self.process.kill()
        out, _ = self.process.communicate(timeout=10)
        return out


class Serve:
    """`arculus-card serve` on a port with no driver, its stdout and stderr read as they come."""

    def __init__(self, env: dict, *arguments: str):
        self.process = subprocess.Popen([str(_binary()), "serve", "--vpcd", NO_DRIVER, "--wait-for-reader", "forever", *arguments],
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.lines: queue.Queue[str] = queue.Queue()
        threading.Thread(target=self._read, args=(self.process.stdout,), daemon=True).start()

    def _read(self, stream):
        for line in stream:
            self.lines.put(line.rstrip("\n"))

    def control_path(self, timeout: float = 10) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=0.2)
            except queue.Empty:
                assert self.process.poll() is None, f"serve exited: {self.process.stderr.read()}"
                continue
            if line.startswith("control channel at "):
                return line[len("control channel at "):]
        raise AssertionError("serve never printed its control channel")

    def stop(self) -> int:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=10)


def environment(tmpdir: str) -> dict:
    env = {key: value for key, value in os.environ.items() if key != "XDG_RUNTIME_DIR"}
    env["TMPDIR"] = tmpdir
    return env


def ctl(env: dict, *arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(_binary()), "ctl", *arguments], capture_output=True, text=True, timeout=30, env=env)


@pytest.fixture
def binary():
    if not _binary().exists():
        _unavailable(f"no arculus-card binary at {_binary()} (build it, or set ARCULUS_CARD)")
    return _binary()


@pytest.fixture
def private_tmp():
    """A short private TMPDIR for serve (a socket path must fit in 107 bytes)."""
    path = tempfile.mkdtemp(prefix="actl.")
    yield path
    subprocess.run(["rm", "-rf", path], check=False)


@pytest.fixture
def alice_pem(tmp_path) -> Path:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    path = tmp_path / "alice.pem"
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    return path


# -- impostors ------------------------------------------------------------------------------


def test_impostor_at_the_old_default_name_gets_nothing(binary, private_tmp, alice_pem):
    """The review's case: nobody listens at /tmp/arculus-card-0-39997.sock, root serves the card.
    serve no longer uses that name, `ctl --vpcd` reaches the real card, and `ctl --control` on
    the impostor's name is refused before a byte is sent (its directory, /tmp, is open)."""
    _require_root_and_nobody()
    old_name = f"/tmp/arculus-card-{os.geteuid()}-{NO_DRIVER_PORT}.sock"
    if os.path.lexists(old_name):
        os.unlink(old_name)
    impostor = Impostor("path", old_name)
    env = environment(private_tmp)
    served = Serve(env)
    try:
        path = served.control_path()
        assert path != old_name and path.startswith(f"{private_tmp}/arculus-card.")
        done = ctl(env, "--vpcd", NO_DRIVER, "pin", "--set", "24681357")
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["pin"]["isSet"] is True, "the real card took the PIN"

        refusal = (f"arculus-card ctl: refusing {old_name}: its directory /tmp is writable by other users "
                   "(mode 1777); nothing was sent\n")
        for arguments in (["pin", "--set", "24681357"],
                          ["credentials", "add", "--credential", f"rp=bank.example,user=alice,key={alice_pem}"]):
            refused = ctl(env, "--control", old_name, *arguments)
            assert (refused.returncode, refused.stdout, refused.stderr) == (5, "", refusal)
    finally:
        assert served.stop() == 0
        received = impostor.received()
        os.unlink(old_name)
    assert received == "", REFUSED_BYTES + f", not {received!r}"


def test_impostor_owning_the_discovery_directory(binary, tmp_path, alice_pem):
    """nobody makes the per-user records directory first, with a record naming its own socket:
    serve refuses to start (one line, status 1), ctl refuses the directory, and the impostor
    gets no connection. --no-control and an explicit --control still serve."""
    nobody = _require_root_and_nobody()
    shared_tmp = tempfile.mkdtemp(prefix="arculus-shared-tmp.")  # a /tmp of its own: others' runs unaffected
    os.chmod(shared_tmp, 0o1777)
    records = f"{shared_tmp}/arculus-card-{os.geteuid()}"
    impostor = Impostor("record", f"{shared_tmp}/evil.sock", records, str(NO_DRIVER_PORT))
    env = environment(shared_tmp)
    try:
        served = Serve(env)
        assert served.process.wait(timeout=10) == 1
        owned_by = f"it belongs to user nobody (uid {nobody}), not to you (uid 0)"
        assert served.process.stderr.read() == (
            f"arculus-card serve: no control channel: cannot record the control socket for 'arculus-card ctl' in {records}: "
            f"{owned_by}; remove it, or give --control PATH (a socket in a directory only you can write) or --no-control\n")
        assert served.lines.empty()
        assert sorted(os.listdir(shared_tmp)) == [f"arculus-card-{os.geteuid()}", "evil.sock"], "the socket serve made is removed"

        for arguments in (["pin", "--set", "24681357"],
                          ["credentials", "add", "--credential", f"rp=bank.example,user=alice,key={alice_pem}"]):
            refused = ctl(env, "--vpcd", NO_DRIVER, *arguments)
            assert (refused.returncode, refused.stdout, refused.stderr) == (
                5, "", f"arculus-card ctl: refusing {records}: {owned_by}; nothing was sent\n")

        without = Serve(env, "--no-control")
        time.sleep(1)
        assert without.process.poll() is None, without.process.stderr.read()
        assert without.stop() == 0 and without.lines.empty(), "no control channel printed"

        private = tmp_path / "ctl"
        private.mkdir(mode=0o700)
        explicit = Serve(env, "--control", str(private / "card.sock"))
        assert explicit.control_path() == str(private / "card.sock")
        done = ctl(env, "--control", str(private / "card.sock"), "status")
        assert done.returncode == 0, done.stderr
        assert explicit.stop() == 0
    finally:
        received = impostor.received()
        subprocess.run(["rm", "-rf", shared_tmp], check=False)
    assert received == "", REFUSED_BYTES + f", not {received!r}"


def test_impostor_serving_from_a_private_directory_is_refused_by_its_credentials(binary, tmp_path):
    """A socket file that is root's, in root's private directory, but listened on by a process
    running as nobody (root bound it and handed it over): only SO_PEERCRED tells. ctl connects,
    reads the server's uid, and closes without writing."""
    nobody = _require_root_and_nobody()
    directory = tmp_path / "private"
    directory.mkdir(mode=0o700)
    path = str(directory / "ctl.sock")
    bound = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    bound.bind(path)
    os.chmod(path, 0o600)
    impostor = Impostor("fd", str(bound.fileno()), pass_fds=(bound.fileno(),))
    bound.close()
    try:
        refused = ctl(environment(str(tmp_path)), "--control", path, "pin", "--set", "24681357")
        assert (refused.returncode, refused.stdout, refused.stderr) == (
            5, "", f"arculus-card ctl: refusing {path}: the process serving it runs as user nobody (uid {nobody}), "
                   "not as root; nothing was sent\n")
        time.sleep(0.3)  # for the impostor to print the connection it accepted
    finally:
        received = impostor.received()
    # It saw the connection ctl made to ask the kernel who listens, and not one byte.
    assert received == "connection\n", received


@pytest.mark.parametrize("break_it, reason", [
    (lambda d, s: os.chmod(d, 0o777), "its directory {d} is writable by other users (mode 0777)"),
    (lambda d, s: os.chmod(s, 0o666), "it is writable by other users (mode 0666)"),
    (lambda d, s: os.chown(s, pwd.getpwnam("nobody").pw_uid, -1),
     "it belongs to user nobody (uid {nobody}), not to you (uid 0)"),
    (lambda d, s: os.chown(d, pwd.getpwnam("nobody").pw_uid, -1),
     "its directory {d} belongs to user nobody (uid {nobody}), not to you (uid 0)"),
], ids=["directory-mode", "socket-mode", "socket-owner", "directory-owner"])
def test_wrong_owner_or_mode_is_refused(binary, tmp_path, break_it, reason):
    """The real serve's socket with its directory or itself opened up or given away: ctl
    refuses with the reason and the card is unchanged; put right, ctl works again."""
    nobody = _require_root_and_nobody()
    directory = tmp_path / "ctl"
    directory.mkdir(mode=0o700)
    path = str(directory / "card.sock")
    env = environment(str(tmp_path))
    served = Serve(env, "--control", path)
    try:
        assert served.control_path() == path
        break_it(str(directory), path)
        refused = ctl(env, "--control", path, "pin", "--set", "24681357")
        assert (refused.returncode, refused.stdout, refused.stderr) == (
            5, "", f"arculus-card ctl: refusing {path}: {reason.format(d=directory, nobody=nobody)}; nothing was sent\n")
        os.chmod(directory, 0o700), os.chown(directory, 0, -1), os.chmod(path, 0o600), os.chown(path, 0, -1)
        status = ctl(env, "--control", path, "pin")
        assert status.returncode == 0 and json.loads(status.stdout)["pin"]["isSet"] is False, "the refused PIN was not set"
    finally:
        assert served.stop() == 0


def test_serve_refuses_a_control_socket_it_cannot_make(binary, tmp_path):
    """An explicit --control in an open directory, or in none, ends serve at once with one line."""
    env = environment(str(tmp_path))
    name = f"/tmp/arculus-card-test-{os.getpid()}.sock"
    for path, why in ((name, "its directory /tmp is writable by other users (mode 1777); choose a directory only you "
                             "can write, or leave --control out"),
                      (str(tmp_path / "no" / "card.sock"), f"its directory {tmp_path / 'no'} does not exist")):
        served = Serve(env, "--control", path)
        assert served.process.wait(timeout=10) == 1
        assert served.process.stderr.read() == f"arculus-card serve: no control channel: cannot create the control socket {path}: {why}\n"
        assert not os.path.exists(path)


# -- limits, on a card served through pcscd ----------------------------------------------------


@pytest.fixture
def served_card(request, pcsc_reader, tmp_path, binary):
    """serve_card(serve_args, image_args) -> the served card, with `.control` (its socket)."""

    def start(serve_args: list[str] | None = None, image_args: list[str] | None = None):
        if image_args:
            made = subprocess.run([str(binary), "image", "create", "--card", str(tmp_path / "card.image"), *image_args],
                                  capture_output=True, text=True)
            assert made.returncode == 0, made.stderr
        control = tmp_path / "ctl.sock"
        generator = _serve(request, pcsc_reader, tmp_path, ["--control", str(control), *(serve_args or [])])
        served = next(generator)
        request.addfinalizer(lambda: served.process.poll() is None and served.stop())
        request.addfinalizer(lambda: next(generator, None))
        served.control = str(control)
        return served

    return start


def settled_descriptor_count(pid: int) -> int:
    """How many descriptors `pid` holds, once the count has not changed for half a second."""
    counts = []
    for _ in range(50):
        counts.append(len(os.listdir(f"/proc/{pid}/fd")))
        if len(counts) >= 6 and len(set(counts[-6:])) == 1:
            return counts[-1]
        time.sleep(0.1)
    raise AssertionError(f"serve's descriptors did not settle: {counts}")


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_ctl(served, *arguments: str) -> tuple[float, subprocess.CompletedProcess]:
    started = time.monotonic()
    result = subprocess.run([str(_binary()), "ctl", "--control", served.control, *arguments],
                            capture_output=True, text=True, timeout=30)
    return time.monotonic() - started, result


def test_a_client_that_never_reads_holds_up_nobody(served_card):
    """A client sends requests with big answers and never reads: other clients are answered at
    once, and SIGTERM stops serve within a second."""
    served = served_card(image_args=[arg for n in range(8) for arg in ("--credential", f"rp=example.com,user=u{n}")])
    hog = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    hog.connect(served.control)
    hog.setblocking(False)
    batch = b'{"op":"credentials.list"}\n' * 100
    sent = 0
    try:
        while sent < 10_000_000:
            sent += hog.send(batch)
    except BlockingIOError:
        pass
    assert sent > 100_000, "the hog's requests fill its socket"
    for _ in range(5):
        elapsed, result = timed_ctl(served, "status")
        assert result.returncode == 0, result.stderr
        assert elapsed < 1.0, f"another client waited {elapsed:.2f} s"
    started = time.monotonic()
    served.process.send_signal(signal.SIGTERM)
    assert served.process.wait(timeout=5) == 0
    assert time.monotonic() - started < 1.0, "SIGTERM was held up"
    hog.close()


def test_many_idle_connections_under_a_low_descriptor_limit(served_card):
    """With `ulimit -n 64` (prlimit on the running serve), 62 idle control connections: the ones
    beyond the cap or the descriptor reserve get one 'busy' line and are closed; serve does not
    spin; the card still reconnects to vpcd (a tap) and answers; the channel works once they go."""
    served = served_card()
    pid = served.process.pid
    subprocess.run(["prlimit", "--pid", str(pid), "--nofile=64:64"], check=True)
    clients = []
    for _ in range(62):
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(served.control)
        clients.append(client)
    refused: dict[socket.socket, bytes] = {}
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        readable, _, _ = select.select([c for c in clients if c not in refused], [], [], 0.2)
        for client in readable:
            refused[client] = client.recv(65536)
    held = len(clients) - len(refused)
    assert 0 < held <= 32 and len(refused) >= 30, (held, len(refused))
    for line in refused.values():
        answer = json.loads(line)
        assert answer["ok"] is False and answer["errorKind"] == "busy", answer
        assert answer["error"].startswith(("too many control connections (at most 32 at once)",
                                           "serve is short of file descriptors (its limit is 64")), answer
    before = cpu_seconds(pid)
    time.sleep(2)
    assert cpu_seconds(pid) - before < 0.3, "serve spins with its connections held"

    served.retap()  # the bridge closes and reopens its vpcd connection
    device = served.device()
    device.close()
    for client in clients:
        client.close()
    for _ in range(50):
        _, result = timed_ctl(served, "status")
        if result.returncode == 0:
            break
        time.sleep(0.1)
    assert result.returncode == 0, result.stderr


def test_out_of_descriptors_backs_off_and_recovers(served_card):
    """accept failing with EMFILE (the limit lowered below what serve holds) does not spin serve;
    once the limit is back, the waiting clients are answered."""
    served = served_card()
    pid = served.process.pid
    # The count settles first, and the limit goes one below it: a descriptor serve held for a
    # moment as it was counted, closed later, must not let one client in (to be refused for the
    # descriptors left) instead of waiting.
    open_now = settled_descriptor_count(pid)
    subprocess.run(["prlimit", "--pid", str(pid), f"--nofile={open_now - 1}:1024"], check=True)
    clients = []
    try:
        for _ in range(3):
            client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            client.connect(served.control)
            client.sendall(b'{"op":"status","tag":"waiting"}\n')
            clients.append(client)
        before = cpu_seconds(pid)
        time.sleep(2)
        assert cpu_seconds(pid) - before < 0.3, "serve spins on EMFILE"
    finally:
        subprocess.run(["prlimit", "--pid", str(pid), "--nofile=1024:1024"], check=True)
    for client in clients:
        client.settimeout(5)
        answer = json.loads(client.makefile().readline())
        assert answer["ok"] is True and answer["tag"] == "waiting", answer
        client.close()


def test_a_request_the_busy_card_cannot_take_is_not_taken(served_card):
    """A SELECT held 3 s by a delay fault; `ctl pin --set` meanwhile, with a 1 s time-out: ctl
    says the card did not take it (status 3), and the PIN is indeed not set afterwards."""
    served = served_card(serve_args=["--control-timeout", "1"])
    _, added = timed_ctl(served, "fault", "add", "--command", "select", "--delay", "3", "--once")
    assert added.returncode == 0, added.stderr
    connection = served.connection()
    select_apdu = [0x00, 0xA4, 0x04, 0x00, 0x08, 0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01]
    answered = []
    worker = threading.Thread(target=lambda: answered.append(connection.transmit(select_apdu)))
    worker.start()
    time.sleep(0.5)
    elapsed, result = timed_ctl(served, "pin", "--set", "12345678")
    worker.join(timeout=10)
    connection.disconnect()
    message = ("the card did not take the request within 1 s (it is busy with a command, or stopping); "
               "nothing was changed")
    assert (result.returncode, result.stderr) == (3, f"arculus-card ctl: {message}\n")
    assert json.loads(result.stdout) == {"ok": False, "errorKind": "not-taken", "error": message}
    assert 1.0 <= elapsed < 2.5
    assert answered and answered[0][1:] == (0x90, 0x00), "the delayed SELECT was answered"
    _, pin = timed_ctl(served, "pin")
    assert pin.returncode == 0 and json.loads(pin.stdout)["pin"]["isSet"] is False, "the withdrawn request never ran"
