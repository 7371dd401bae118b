"""The files the command line creates, end to end: `arculus-card serve`, `image`, `ctl` and `sdk`
on card images reached through links, in a directory another user can write, as a user who may
not write them, and on files that are not card images.

No reader is needed: serve is pointed at a loopback port nothing listens on (with
--wait-for-reader forever it keeps waiting for the driver) and its card is reached through its control socket. Tests that plant another
user's files run as root (CI does) and use `nobody`.

Findings (security review) these hold fixed: a card image's lock was a sibling FILE.lock, so
five `image credentials add` through `b.img -> a.img` reported ok while serve held a.img, and
every one was lost; in a world-writable directory nobody's `card.img.tmp -> root's file` was
overwritten by root's `image create`; serve's pid and transcript files followed planted links;
serve said nothing when a write failed; a read-only directory was 'cannot lock ….lock'.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import _binary

IS_ROOT = os.geteuid() == 0
needs_root = pytest.mark.skipif(not IS_ROOT, reason="plants nobody's files and runs as nobody: needs root")
AS_NOBODY = ["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"]
CREDENTIAL = "rp=example.com,user=alice,discoverable=yes"
VICTIM_TEXT = b"root's own file\n"


def tool(*arguments: str, as_nobody: bool = False, cwd: Path | None = None) -> subprocess.CompletedProcess:
    command = [str(_binary()), *arguments]
    return subprocess.run((AS_NOBODY if as_nobody else []) + command, capture_output=True, text=True, timeout=60, cwd=cwd)


def refused(done: subprocess.CompletedProcess, command: str, message: str):
    """`arculus-card COMMAND` failed with exactly this message."""
    assert done.returncode == 1, f"exit {done.returncode}: {done.stdout}{done.stderr}"
    assert done.stderr == f"arculus-card {command}: {message}\n", done.stderr
    if command == "image":
        assert json.loads(done.stdout) == {"ok": False, "error": message}


def unused_loopback_port() -> int:
    """A loopback port nothing listens on (serve --wait-for-reader forever keeps waiting for a driver there)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Serve:
    """`arculus-card serve` on a card image, with its control socket, and no reader."""

    def __init__(self, folder: Path, image: str, *extra: str, umask: int | None = None):
        self.folder = folder
        self.control = folder / "control.sock"
        self.stderr_path = folder / "serve.stderr"
        self.process = subprocess.Popen(
            [str(_binary()), "serve", "--card", image, "--vpcd", f"127.0.0.1:{unused_loopback_port()}", "--wait-for-reader", "forever",
             "--control", str(self.control), *extra],
            cwd=folder, stdout=subprocess.DEVNULL, stderr=open(self.stderr_path, "wb"),
            preexec_fn=(lambda: os.umask(umask)) if umask is not None else None)
        deadline = time.monotonic() + 20
        while not self.control.exists():
            assert self.process.poll() is None, f"serve exited: {self.stderr()}"
            assert time.monotonic() < deadline, f"no control socket: {self.stderr()}"
            time.sleep(0.05)

    def ctl(self, *arguments: str) -> dict:
        done = tool("ctl", "--control", str(self.control), *arguments)
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)

    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        assert self.process.wait(timeout=20) == 0, self.stderr()


@pytest.fixture
def reachable(tmp_path):
    """A fresh directory every user can reach (pytest's own are 0700): for what `nobody` does."""
    path = Path(tempfile.mkdtemp(prefix="arculus-files-"))
    os.chmod(path, 0o755)
    yield path
    for folder, _, _ in os.walk(path):
        os.chmod(folder, 0o755)
    shutil.rmtree(path)


def owned_by_us_0600(path: Path):
    status = os.lstat(path)
    assert stat.S_ISREG(status.st_mode), f"{path} is not a regular file"
    assert status.st_uid == os.geteuid(), f"{path} belongs to uid {status.st_uid}"
    assert stat.S_IMODE(status.st_mode) == 0o600, f"{path} has mode {stat.S_IMODE(status.st_mode):o}"


def test_links_to_a_served_image(tmp_path):
    """b.img -> a.img and a hard link c.img while serve holds a.img: every other opener is refused,
    nothing serve acknowledged is lost, the link stays a link, and the compaction a hard link
    would fork is refused and said on serve's stderr."""
    tool("image", "create", "--card", str(tmp_path / "a.img"))
    (tmp_path / "b.img").symlink_to("a.img")
    serve = Serve(tmp_path, "a.img")
    try:
        added = []
        for number in range(5):
            refused(tool("image", "credentials", "add", "--card", "b.img", "--credential", CREDENTIAL, cwd=tmp_path), "image",
                    "card image b.img is in use by another process (it holds the image's lock); "
                    "to change a card while it is served, use 'arculus-card ctl'")
            added.append(serve.ctl("credentials", "add", "--credential", f"rp=example.com,user=user{number},discoverable=yes")
                         ["credential"]["credentialId"])
        serve.ctl("pin", "--set", "123456")
        serve.ctl("pin", "--retries", "4")
        os.link(tmp_path / "a.img", tmp_path / "c.img")
        refused(tool("image", "pin", "--card", "c.img", cwd=tmp_path), "image",
                "card image c.img is in use by another process (it holds the image's lock); "
                "to change a card while it is served, use 'arculus-card ctl'")
        serve.ctl("credentials", "remove", "--id", added.pop())
        assert ("arculus-card serve: credential deletion was stored, but compacting the image after it failed: card image a.img "
                "has 2 names (hard links); compacting it would leave the others on the old card: remove the other names first\n"
                ) in serve.stderr()
    finally:
        serve.stop()
    refused(tool("image", "pin", "--card", "c.img", cwd=tmp_path), "image",
            "card image c.img has 2 names (hard links); compacting it would leave the others on the old card: remove the other names first")
    os.unlink(tmp_path / "c.img")
    listed = json.loads(tool("image", "credentials", "list", "--card", "b.img", cwd=tmp_path).stdout)
    assert [credential["credentialId"] for credential in listed["credentials"]] == added
    assert json.loads(tool("image", "pin", "--card", "b.img", cwd=tmp_path).stdout)["pin"]["retries"] == 4
    assert os.readlink(tmp_path / "b.img") == "a.img"
    owned_by_us_0600(tmp_path / "a.img")
    assert sorted(os.listdir(tmp_path)) == ["a.img", "b.img", "serve.stderr"]


def shared_directory(tmp_path: Path) -> tuple[Path, Path]:
    """A directory nobody owns and everyone may write (no sticky bit), and root's victim file."""
    shared = tmp_path / "shared"
    shared.mkdir()
    nobody = pwd.getpwnam("nobody")
    os.chown(shared, nobody.pw_uid, nobody.pw_gid)
    os.chmod(shared, 0o777)
    victim = tmp_path / "victim"
    victim.write_bytes(VICTIM_TEXT)
    os.chmod(victim, 0o644)
    return shared, victim


def plant(*command: str):
    subprocess.run(AS_NOBODY + list(command), check=True)


def victim_untouched(victim: Path):
    assert victim.read_bytes() == VICTIM_TEXT
    status = os.lstat(victim)
    assert stat.S_ISREG(status.st_mode) and status.st_uid == 0 and stat.S_IMODE(status.st_mode) == 0o644


@needs_root
def test_planted_links_in_a_shared_directory(reachable):
    tmp_path = reachable
    shared, victim = shared_directory(tmp_path)
    plant("ln", "-s", str(victim), str(shared / "card.img.lock"))
    plant("sh", "-c", f"umask 0; : > {shared / 'card.img.tmp'}")
    done = tool("image", "create", "--card", str(shared / "card.img"), "--pin", "123456", "--credential", CREDENTIAL)
    assert done.returncode == 0, done.stderr
    credential = json.loads(done.stdout)["credentials"][0]["credentialId"]
    assert tool("image", "credentials", "remove", "--card", str(shared / "card.img"), "--id", credential).returncode == 0
    victim_untouched(victim)
    owned_by_us_0600(shared / "card.img")
    assert sorted(os.listdir(shared)) == ["card.img", "card.img.lock", "card.img.tmp"]
    assert os.lstat(shared / "card.img.tmp").st_size == 0

    # The image's own name planted: as a link to root's file, and as a link to nowhere.
    plant("ln", "-s", str(victim), str(shared / "linked.img"))
    refused(tool("image", "create", "--card", str(shared / "linked.img")), "image",
            f"{shared / 'linked.img'} already exists; change it with 'image pin', 'image credentials add' …, or delete it first")
    refused(tool("image", "pin", "--card", str(shared / "linked.img")), "image",
            f"{shared / 'linked.img'} is not an Arculus card image (wrong magic number); refusing to overwrite it")
    plant("ln", "-s", str(tmp_path / "made-through-a-link.img"), str(shared / "dangling.img"))
    refused(tool("serve", "--card", str(shared / "dangling.img"), "--no-control", "--vpcd", f"127.0.0.1:{unused_loopback_port()}"),
            "serve", f"cannot open the card: {shared / 'dangling.img'} is a symbolic link to a file that does not exist; "
                     "a new card image is not created through a link")
    assert not (tmp_path / "made-through-a-link.img").exists()
    victim_untouched(victim)


@needs_root
def test_pid_file_and_recording_in_a_shared_directory(reachable):
    """serve's pid file (0644, a pid is no secret) replaces a link nobody planted at its name; its
    seeded transcript is 0600 (@seed recovers every key), and is not appended to through a link
    (serve --record appends to an existing transcript); under umask 077 too."""
    tmp_path = reachable
    shared, victim = shared_directory(tmp_path)
    plant("ln", "-s", str(victim), str(shared / "serve.pid"))
    plant("ln", "-s", str(victim), str(shared / "planted.transcript"))
    refused(tool("serve", "--card", str(shared / "card.img"), "--record", str(shared / "planted.transcript"), "--no-control",
                 "--vpcd", f"127.0.0.1:{unused_loopback_port()}"), "serve",
            f"cannot open the card: transcript {shared / 'planted.transcript'}: cannot append a session to it: it is a symbolic "
            "link (give the file's own path)")
    os.unlink(shared / "planted.transcript")
    victim_untouched(victim)
    serve = Serve(tmp_path, str(shared / "card.img"), "--pid-file", str(shared / "serve.pid"),
                  "--record", str(shared / "session.transcript"), "--seed", "0102", umask=0o077)
    try:
        pid_file = os.lstat(shared / "serve.pid")
        assert stat.S_ISREG(pid_file.st_mode) and stat.S_IMODE(pid_file.st_mode) == 0o644
        assert (shared / "serve.pid").read_text() == f"{serve.process.pid}\n"
        owned_by_us_0600(shared / "session.transcript")
        assert "@seed 0102" in (shared / "session.transcript").read_text()
        owned_by_us_0600(shared / "card.img")
    finally:
        serve.stop()
    assert not (shared / "serve.pid").exists()
    victim_untouched(victim)
    assert sorted(os.listdir(shared)) == ["card.img", "session.transcript"]


@needs_root
def test_what_nobody_cannot_write(reachable):
    """An image nobody cannot write is refused at open with one line; a directory nobody cannot
    write, or one that does not exist, is said so; no refusal leaves a file behind."""
    tmp_path = reachable
    folder = tmp_path / "nobodys"
    folder.mkdir()
    nobody = pwd.getpwnam("nobody")
    os.chown(folder, nobody.pw_uid, nobody.pw_gid)
    image = folder / "card.img"
    assert tool("image", "create", "--card", str(image), as_nobody=True).returncode == 0
    os.chmod(image, 0o400)
    message = (f"card image {image} cannot be written by this process (open: Permission denied); "
               "the card stores every change in it: make it writable, or use a copy")
    refused(tool("image", "pin", "--card", str(image), as_nobody=True), "image", message)
    refused(tool("serve", "--card", str(image), "--no-control", "--vpcd", f"127.0.0.1:{unused_loopback_port()}", as_nobody=True),
            "serve", f"cannot open the card: {message}")
    assert os.listdir(folder) == ["card.img"]

    os.chmod(folder, 0o555)
    refused(tool("image", "create", "--card", str(folder / "new.img"), as_nobody=True), "image",
            f"card image {folder / 'new.img'}: cannot create it: the directory {folder} is not writable by this process "
            "(open: Permission denied)")
    refused(tool("image", "create", "--card", str(tmp_path / "missing" / "new.img")), "image",
            f"card image {tmp_path / 'missing' / 'new.img'}: cannot create it: there is no directory {tmp_path / 'missing'} "
            "(open: No such file or directory)")
    assert os.listdir(folder) == ["card.img"]
    assert sorted(os.listdir(tmp_path)) == ["nobodys"]


def test_files_that_are_not_card_images(tmp_path):
    """A device, a foreign file and junk after an image: refused at once, with nothing created
    beside them (no /etc/passwd.lock: the name shadow-utils locks with)."""
    refused(tool("image", "pin", "--card", "/dev/zero"), "image",
            "/dev/zero is a character device, not a card image file; refusing to use it")
    passwd = tmp_path / "passwd"
    passwd.write_text("root:x:0:0:root:/root:/bin/bash\n")
    refused(tool("image", "pin", "--card", str(passwd)), "image",
            f"{passwd} is not an Arculus card image (wrong magic number); refusing to overwrite it")
    lock_before = os.lstat("/etc/passwd.lock") if os.path.lexists("/etc/passwd.lock") else None
    done = tool("sdk", "info", "--card-image", "/etc/passwd")
    # A file that is not a card image given to the SDK is a usage error (64), in the loader's words.
    assert done.returncode == 64
    assert done.stderr.splitlines()[0] == ("arculus-card sdk: --card-image: /etc/passwd is not an Arculus card image "
                                            "(wrong magic number); refusing to overwrite it")
    assert (os.lstat("/etc/passwd.lock") if os.path.lexists("/etc/passwd.lock") else None) == lock_before

    image = tmp_path / "card.img"
    tool("image", "create", "--card", str(image))
    size = image.stat().st_size
    with open(image, "ab") as file:
        file.write(b"junk" * (128 * 1024))
    refused(tool("image", "pin", "--card", str(image)), "image",
            f"card image {image} is damaged ({512 * 1024} bytes follow the last whole record (at byte {size}), more than an "
            f"interrupted write leaves; truncating the file to {size} bytes keeps every record before it); it was not reset — "
            "restore it or delete it to start a blank card")
    os.truncate(image, size)
    assert tool("image", "pin", "--card", str(image)).returncode == 0
    assert sorted(os.listdir(tmp_path)) == ["card.img", "passwd"]

    empty = tmp_path / "empty.img"
    empty.touch()
    assert json.loads(tool("image", "pin", "--card", str(empty)).stdout)["pin"]["isSet"] is False
    owned_by_us_0600(empty)
