"""Who decides the relying party, and what a server can make the SDK do, through the built binary.

The server (or backend) names the RP and the card signs for it, as in the vendor's sample apps;
`--rp-id` is only the fallback, so it may be left out; every flow's result names the RP ID the card
signed for; `--strict-rp` refuses a server naming another one (702) before the card is touched.
No redirect is followed, a trickling server cannot outlive `--timeout`, and a server given
without a scheme that does not speak TLS gets advice in the user's terms."""

from __future__ import annotations

import hashlib
import socket
import threading
import time

from fido2.utils import websafe_encode

from flow_rig import PIN, RP_ID

STRICT = "with --strict-rp the card signs for --rp-id only, so it was not used"


def untouched(card):
    """A snapshot of the card for `assert untouched(card) == before`: the image's bytes, or the
    served card's APDU trace (no APDU reached it; pcscd's own power events are not the SDK's)."""
    if card.served is not None:
        return [line for line in card.served.stderr().splitlines() if line.startswith((">", "<"))]
    return hashlib.sha256(card.image.read_bytes()).hexdigest()


def test_the_server_decides_and_the_result_names_the_rp(card, fido_server):
    registered = card.sdk("register-user", "--server", fido_server.url, "--pin", PIN, "--username", "alice",
                          "--rp-id", "example.com").ok()
    assert registered["rpId"] == RP_ID, "signed for the server's RP, not --rp-id, and the result says so"
    listed = card.sdk("list-credentials", "--pin", PIN).ok()["credentials"]
    assert [(c["credentialId"], c["rpId"]) for c in listed] == [(registered["credentialId"], RP_ID)]


def test_rp_id_may_be_left_out(card, fido_server, backend):
    """--rp-id is the fallback for a server that names no RP: without it the server's is used."""
    registered = card.sdk("register-user", "--server", fido_server.url, "--pin", PIN, "--username", "alice").ok()
    assert registered["rpId"] == RP_ID and registered["credentialId"] == websafe_encode(fido_server.registered[0])
    signed = card.sdk("authenticate-user", "--server", fido_server.url, "--pin", PIN, "--username", "alice").ok()
    assert signed["rpId"] == RP_ID and fido_server.authenticated == fido_server.registered
    via = card.sdk("register-via-backend", "--backend", backend.url, "--pin", PIN, "--username", "bob").ok()
    assert via["operation"] == "register-via-backend" and via["rpId"] == RP_ID
    assert backend.requests[0][1] == {"operation": "register", "username": "bob", "displayName": "bob"}, \
        "no rpId in phase 1 when none was given"
    assert card.sdk("authenticate-via-backend", "--backend", backend.url, "--pin", PIN, "--username", "bob").ok()["rpId"] == RP_ID


def test_strict_rp_refuses_another_rp_and_leaves_the_card_alone(card, fido_server, backend):
    before = untouched(card)
    assert before, "the set-up's APDUs (or the image) are there to compare"
    cases = [
        ("register-user", ["--server", fido_server.url],
         f"sdk register-user: the FIDO2 server's registration options: rp.id is \"{RP_ID}\", not --rp-id \"example.com\"; {STRICT}"),
        ("register-via-backend", ["--backend", backend.url],
         f"sdk register-via-backend: the backend's fidoServerResponse: rp.id is \"{RP_ID}\", not --rp-id \"example.com\"; {STRICT}"),
    ]
    for operation, server, message in cases:
        error = card.sdk(operation, *server, "--pin", PIN, "--username", "alice", "--rp-id", "example.com", "--strict-rp").failed(702)
        assert error == {"code": 702, "name": "Relying Party Mismatch", "message": message}, error
    assert untouched(card) == before, "no APDU reached the card"
    assert fido_server.registered == []
    # Strict, and the server names the caller's RP: signed as usual.
    strict = card.sdk("register-user", "--server", fido_server.url, "--pin", PIN, "--username", "alice", "--rp-id", RP_ID,
                      "--strict-rp").ok()
    assert strict["rpId"] == RP_ID and len(fido_server.registered) == 1
    # Signing in, alice known to the server: refused the same way, nothing signed.
    before = untouched(card)
    for operation, server, field, source in (
            ("authenticate-user", ["--server", fido_server.url], "rpId", "the FIDO2 server's authentication options"),
            ("authenticate-via-backend", ["--backend", backend.url], "rpId", "the backend's fidoServerResponse")):
        error = card.sdk(operation, *server, "--pin", PIN, "--username", "alice", "--rp-id", "example.com", "--strict-rp").failed(702)
        assert error["message"] == f"sdk {operation}: {source}: {field} is \"{RP_ID}\", not --rp-id \"example.com\"; {STRICT}"
    assert untouched(card) == before and fido_server.authenticated == []


class RawServer:
    """An HTTP server on 127.0.0.1 that answers every request with `reply(connection)`."""

    def __init__(self, reply):
        self.reply = reply
        self.requests = 0
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._one, args=(connection,), daemon=True).start()

    def _one(self, connection):
        with connection:
            data = b""
            while b"\r\n\r\n" not in data and not data.startswith(b"\x16"):  # 0x16: a TLS ClientHello
                chunk = connection.recv(4096)
                if not chunk:
                    return
                data += chunk
            self.requests += 1
            try:
                self.reply(connection, data)
            except OSError:
                pass

    def stop(self):
        self.listener.close()


def test_a_redirect_is_not_followed(card):
    elsewhere = RawServer(lambda c, _: c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}"))
    target = f"http://127.0.0.1:{elsewhere.port}/collect"
    server = RawServer(lambda c, _: c.sendall(
        f"HTTP/1.1 307 Temporary Redirect\r\nLocation: {target}\r\nSet-Cookie: S=1\r\nContent-Length: 0\r\n\r\n".encode()))
    try:
        url = f"http://localhost:{server.port}"
        error = card.sdk("register-user", "--server", url, "--pin", PIN, "--username", "alice").failed(601)
        assert error["message"] == (f"sdk register-user: registration begin: {url}/fidoapi/certify/attestation/options answered "
                                    f"HTTP 307, a redirect to {target}; the SDK follows no redirect (the session cookie and the "
                                    "card's response would go with it): give the server's own address")
        assert error["httpStatus"] == 307
        assert elsewhere.requests == 0, "nothing went where the redirect pointed"
    finally:
        server.stop()
        elsewhere.stop()


def test_a_trickling_server_cannot_outlive_the_timeout(card):
    def trickle(connection, _):
        connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n")
        for _ in range(100):
            time.sleep(0.5)
            connection.sendall(b" ")

    server = RawServer(trickle)
    try:
        url = f"http://localhost:{server.port}"
        start = time.monotonic()
        error = card.sdk("register-user", "--server", url, "--pin", PIN, "--username", "alice", "--timeout", "2").failed(601)
        assert time.monotonic() - start < 20, "ended by --timeout 2, not by the server's 50 s"
        assert error["message"] == f"sdk register-user: registration begin: {url}/fidoapi/certify/attestation/options did not answer within 2 s"
        assert error["urlError"] == -1001
    finally:
        server.stop()


def test_a_server_given_without_a_scheme_that_speaks_plain_http(card):
    server = RawServer(lambda c, _: c.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n"))
    try:
        host = f"localhost:{server.port}"
        error = card.sdk("register-user", "--server", host, "--pin", PIN, "--username", "alice").failed(601)
        assert error["message"].startswith(f"sdk register-user: registration begin: cannot reach https://{host}/fidoapi/"), error
        assert error["message"].endswith(f"; '{host}' has no scheme, so the SDK spoke https to it and the TLS handshake failed: "
                                         f"for a server without TLS give http://{host}, with TLS https://{host}"), error
    finally:
        server.stop()
