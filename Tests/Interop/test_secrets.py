"""Secrets hygiene of `arculus-card serve`, end to end:

- the card image (and its lock) is created owner-only (0600), whatever the umask;
- the --verbose APDU trace never shows the PIN, the pinUvAuthToken, or PIN/UV material in full
  (newPinEnc, pinHashEnc, pinUvAuthParam, the encrypted token) — for python-fido2's own PIN
  session and for a client that chains in short pieces and fetches short responses — and the
  control channel's trace never shows a PIN set through it;
- the reader bridge connects only where configured: loopback by default (also with --slot), and
  another host only when --vpcd names it.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from fido2 import cbor
from fido2.ctap2 import Ctap2
from fido2.ctap2.pin import ClientPin, PinProtocolV1, PinProtocolV2
from fido2.utils import sha256

from conftest import ServedCard, _binary, first_device
from test_power_kill import reader_state, slot_lock, wait_card_seen, wait_slot_free

SLOT = int(os.environ.get("ARCULUS_SLOT", "1"))
PIN, NEW_PIN = "864209", "97531864"


def _binary_or_skip() -> Path:
    binary = _binary()
    if not binary.exists():
        pytest.skip(f"no arculus-card binary at {binary}")
    return binary


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


@contextmanager
def verbose_served(tmp_path: Path, extra: list[str] | None = None):
    """A card served with --verbose (ServedCard's default), a control socket of its own and
    `extra` serve options; stopped, and seen gone by pcscd, on the way out."""
    binary = _binary_or_skip()
    with slot_lock(SLOT):
        wait_slot_free(SLOT)
        served = ServedCard(binary, SLOT, tmp_path / "card.img",
                            ["--control", str(tmp_path / "control.sock"), *(extra or [])], tmp_path)
        counter = reader_state(served.reader) >> 16
        try:
            served.wait_present(1)
            wait_card_seen(served.reader, present=True)
            counter = reader_state(served.reader) >> 16
            yield served
        finally:
            status = served.stop()
            wait_card_seen(served.reader, present=False, counter_before=counter)
        assert status == 0, served.stderr()[-4000:]


@pytest.fixture
def verbose_card(pcsc_reader, tmp_path):
    """A card served with --verbose and a control socket of its own."""
    with verbose_served(tmp_path) as served:
        yield served


# --- file permissions ---------------------------------------------------------------------------


def test_image_created_owner_only_whatever_the_umask(tmp_path):
    binary = _binary_or_skip()
    image = tmp_path / "offline.img"
    result = subprocess.run([str(binary), "image", "create", "--card", str(image), "--pin", PIN,
                             "--credential", "rp=example.com,user=alice"],
                            capture_output=True, text=True, preexec_fn=lambda: os.umask(0), timeout=60)
    assert result.returncode == 0, result.stderr
    assert _mode(image) == 0o600, oct(_mode(image))
    assert os.listdir(tmp_path) == ["offline.img"], "nothing beside the image (its lock is the image's own)"


def test_served_image_stays_owner_only(pcsc_reader, tmp_path):
    binary = _binary_or_skip()
    image = tmp_path / "served.img"
    with slot_lock(SLOT):
        wait_slot_free(SLOT)
        process = subprocess.Popen([str(binary), "serve", "--card", str(image), "--slot", str(SLOT), "--no-control"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                   preexec_fn=lambda: os.umask(0))
        try:
            line = process.stdout.readline()
            assert line.startswith("card present on"), line + process.stderr.read()
            assert _mode(image) == 0o600
            assert os.listdir(tmp_path) == ["served.img"], "nothing beside the image (its lock is the image's own)"
            reader = f"Virtual PCD 00 {SLOT:02X}"
            wait_card_seen(reader, present=True)
            device = first_device(reader, process)
            try:
                ctap2 = Ctap2(device)
                ClientPin(ctap2, PinProtocolV2()).set_pin(PIN)
                for n in range(5):
                    ctap2.make_credential(sha256(b"perm %d" % n), {"id": "example.com"},
                                          {"id": b"u%d" % n, "name": "u"}, [{"type": "public-key", "alg": -7}])
            finally:
                device.close()
            assert _mode(image) == 0o600, "after the card wrote to its image"
            assert os.listdir(tmp_path) == ["served.img"], "no temporary file left beside the image"
        finally:
            counter = reader_state(f"Virtual PCD 00 {SLOT:02X}") >> 16
            process.terminate()
            process.wait(timeout=10)
            wait_card_seen(f"Virtual PCD 00 {SLOT:02X}", present=False, counter_before=counter)


# --- the --verbose trace ------------------------------------------------------------------------


def _sent_ctap_requests(sent_hex: list[str]) -> list[bytes]:
    """The CTAP requests (command byte + CBOR) in python-fido2's sent APDUs, chains reassembled."""
    requests, pending = [], b""
    for line in sent_hex:
        apdu = bytes.fromhex(line)
        if len(apdu) < 5 or apdu[1] != 0x10:
            continue
        if apdu[4] == 0 and len(apdu) > 7:
            data = apdu[7:7 + (apdu[5] << 8 | apdu[6])]
        else:
            data = apdu[5:5 + apdu[4]]
        pending += data
        if not apdu[0] & 0x10:
            requests.append(pending)
            pending = b""
    return requests


def _secrets_of(request: bytes) -> list[tuple[str, bytes]]:
    """PIN/UV material in a CTAP request: keys by command (CTAP 2.1 §6)."""
    keys = {0x01: {8: "pinUvAuthParam"}, 0x02: {6: "pinUvAuthParam"},
            0x06: {4: "pinUvAuthParam", 5: "newPinEnc", 6: "pinHashEnc"}, 0x0A: {4: "pinUvAuthParam"}}
    if len(request) < 2 or request[0] not in keys:
        return []
    body = cbor.decode(request[1:])
    return [(name, body[key]) for key, name in keys[request[0]].items() if isinstance(body.get(key), bytes)]


def _normalized(text: str) -> str:
    return re.sub(r"[^0-9A-F]", "", text.upper())


def _shows(secret: bytes, trace_hex: str, window: int = 8) -> bool:
    """Whether `window` bytes in a row of `secret` appear in the (normalized) trace."""
    if len(secret) < window:
        return secret.hex().upper() in trace_hex
    return any(secret[i:i + window].hex().upper() in trace_hex for i in range(len(secret) - window + 1))


def _short_pieces(connection, request: bytes, piece: int = 24, le: int = 16) -> bytes:
    """An NFCCTAP_MSG chained in `piece`-byte pieces, its response fetched `le` bytes at a time."""
    rest = request
    while len(rest) > piece:
        _, sw1, sw2 = connection.transmit([0x90, 0x10, 0x00, 0x00, piece] + list(rest[:piece]))
        assert (sw1, sw2) == (0x90, 0x00)
        rest = rest[piece:]
    data, sw1, sw2 = connection.transmit([0x80, 0x10, 0x00, 0x00, len(rest)] + list(rest) + [le])
    while sw1 == 0x61:
        more, sw1, sw2 = connection.transmit([0x00, 0xC0, 0x00, 0x00, min(le, sw2 or 256)])
        data += more
    assert (sw1, sw2) == (0x90, 0x00), f"{sw1:02X}{sw2:02X}"
    return bytes(data)


def test_verbose_trace_shows_no_pin_material(verbose_card, traffic):
    device = verbose_card.device()
    tokens = []
    try:
        ctap2 = Ctap2(device)
        ClientPin(ctap2, PinProtocolV1()).set_pin(PIN)
        for protocol in (PinProtocolV1(), PinProtocolV2()):
            client_pin = ClientPin(ctap2, protocol)
            client_pin.change_pin(PIN, NEW_PIN)
            client_pin.change_pin(NEW_PIN, PIN)
            token = client_pin.get_pin_token(PIN, ClientPin.PERMISSION.MAKE_CREDENTIAL | ClientPin.PERMISSION.GET_ASSERTION,
                                             "example.com")
            tokens.append(token)
            client_data_hash = sha256(b"trace")
            ctap2.make_credential(client_data_hash, {"id": "example.com"}, {"id": b"alice", "name": "alice"},
                                  [{"type": "public-key", "alg": -7}], options={"rk": True},
                                  pin_uv_param=protocol.authenticate(token, client_data_hash), pin_uv_protocol=protocol.VERSION)
    finally:
        device.close()
    secrets = [(name, value) for request in _sent_ctap_requests(traffic.sent()) for name, value in _secrets_of(request)]
    assert {name for name, _ in secrets} >= {"newPinEnc", "pinHashEnc", "pinUvAuthParam"}, secrets

    # A client that chains in short pieces and fetches its answers 16 bytes at a time.
    connection = verbose_card.connection()
    try:
        connection.transmit([0x00, 0xA4, 0x04, 0x00, 0x08, 0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01, 0x00])
        protocol = PinProtocolV2()
        agreement = cbor.decode(_short_pieces(connection, b"\x06" + cbor.encode({1: 2, 2: 2}))[1:])[1]
        key_agreement, shared_secret = protocol.encapsulate(agreement)
        pin_hash_enc = protocol.encrypt(shared_secret, sha256(PIN.encode())[:16])
        answer = _short_pieces(connection, b"\x06" + cbor.encode({1: 2, 2: 5, 3: key_agreement, 6: pin_hash_enc}))
        assert answer[0] == 0, answer[:1].hex()
        encrypted_token = cbor.decode(answer[1:])[2]
        tokens.append(protocol.decrypt(shared_secret, encrypted_token))
        secrets += [("pinHashEnc (short pieces)", pin_hash_enc), ("encrypted token (short pieces)", encrypted_token)]
    finally:
        connection.disconnect()

    trace = verbose_card.stderr()
    assert "NFCCTAP_MSG" in trace, "serve --verbose wrote no APDU trace"
    trace_hex = _normalized(trace)
    for name, value in secrets + [(f"pinUvAuthToken {n}", token) for n, token in enumerate(tokens)]:
        assert not _shows(value, trace_hex), f"the --verbose trace shows 8 bytes in a row of the {name}"
    for pin in (PIN, NEW_PIN):
        assert pin not in trace
        assert pin.encode().hex().upper() not in trace_hex
        assert sha256(pin.encode())[:16].hex().upper() not in trace_hex


def test_control_channel_trace_shows_no_pin(verbose_card, tmp_path):
    binary = _binary_or_skip()
    control = str(tmp_path / "control.sock")
    ok = subprocess.run([str(binary), "ctl", "--control", control, "pin", "--set", "55443322"],
                        capture_output=True, text=True, timeout=30)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    refused = subprocess.run([str(binary), "ctl", "--control", control, "pin", "--set", "12"],
                             capture_output=True, text=True, timeout=30)
    assert refused.returncode != 0, "a 2-digit PIN was accepted"
    time.sleep(0.2)
    trace = verbose_card.stderr()
    assert "control:" in trace, "the control requests were not traced"
    assert "55443322" not in trace and "--set 12" not in trace and '"12"' not in trace
    assert "55443322" not in ok.stdout, "the control answer echoes the PIN"


# --- where the bridge connects ------------------------------------------------------------------


def _peer_addresses(pid: int) -> set[tuple[str, int]]:
    """(address, port) of the TCP sockets process `pid` has, from /proc (IPv4 and IPv6)."""
    inodes = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    peers = set()
    for table, family in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            if len(fields) > 9 and fields[9] in inodes:
                address, port = fields[2].split(":")
                raw = bytes.fromhex(address)
                if family == socket.AF_INET:
                    host = socket.inet_ntop(family, raw[::-1])
                else:
                    host = socket.inet_ntop(family, b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4)))
                peers.add((host, int(port, 16)))
    return peers


def test_bridge_connects_to_loopback_by_default(verbose_card):
    peers = _peer_addresses(verbose_card.process.pid)
    port = 35963 + SLOT
    assert peers == {("127.0.0.1", port)}, f"serve --slot {SLOT} connects to {peers}"
    assert f"for vpcd at 127.0.0.1:{port}" in verbose_card.stderr()


def test_bridge_uses_another_host_only_when_given(tmp_path):
    binary = _binary_or_skip()
    # TEST-NET-1 (RFC 5737): routable nowhere, so the bridge keeps trying and we can watch it.
    process = subprocess.Popen([str(binary), "serve", "--card", str(tmp_path / "remote.img"), "--vpcd", "192.0.2.1:35964",
                                "--no-control", "--wait-for-reader", "forever"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 8
        seen: set[tuple[str, int]] = set()
        while time.monotonic() < deadline and ("192.0.2.1", 35964) not in seen:
            seen |= _peer_addresses(process.pid)
            time.sleep(0.05)
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=10)
    assert "for vpcd at 192.0.2.1:35964" in stderr, stderr
    assert seen <= {("192.0.2.1", 35964)}, f"serve --vpcd 192.0.2.1:35964 also connected to {seen}"
    assert not any(host.startswith("127.") or host == "::1" for host, _ in seen)
