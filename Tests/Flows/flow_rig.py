"""The flow test rig: a FIDO2 server with real WebAuthn verification and a backend that follows
the sample servlet's JSON contract, both on 127.0.0.1 at ephemeral ports, plus a runner for
`arculus-card sdk`.

- `FidoServer` implements the vendor FIDO2 server REST API the SDK's client-direct flow talks to
  (`/fidoapi/certify/attestation/options` → `/attestation/result`, `/fidoapi/certify/assertion/
  options` → `/assertion/result`, and the `/fidoapi/register/begin`-style aliases), with
  python-fido2's `Fido2Server` doing the verification: origin, challenge, RP ID hash, flags,
  packed attestation chained to the emulator's root (`Fixtures/attestation/emulator-root-ca.pem`)
  and assertion signatures. Sessions live server-side behind a cookie.
- `Backend` is the seed's Java servlet in Python: `POST /fido/register` and `/fido/authenticate`
  with `operation`, `username`, `displayName`, `rpId`; phase 1 calls the FIDO2 server's options
  endpoint and answers `status`, `fidoServerResponse`, `rpId`, `fido2ServerOrigin`, `cookies`
  (and `sessionId` for authentication); phase 3 forwards `cardResponseData` to the result
  endpoint with the cookies; failures are `{"status": "failed", "error": ...}`.

Both log every request, and the FIDO2 server has switches to misbehave (reject the next result,
run a hook before answering options) for the bad-path tests.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from http.cookies import SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Callable

from fido2.server import Fido2Server
from fido2.utils import websafe_decode, websafe_encode

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests" / "Interop"))
from interop_support import EmulatorRootVerifier  # noqa: E402  (the Interop suite's attestation root check)

#: The rig's relying party. Its FIDO2 server is reached as http://localhost:PORT, an origin a
#: browser accepts for this RP ID (WebAuthn wants the RP ID to be the origin's host or a
#: registrable suffix of it, and no RP ID fits an IP address), so the SDK signs for it as is.
RP_ID = "localhost"
SESSION_COOKIE = "FIDOSESSION"
#: The PIN the flow tests give their cards.
PIN = "123456"


def binary_path() -> Path:
    """The arculus-card binary: $ARCULUS_CARD, default .build/debug/arculus-card."""
    path = Path(os.environ.get("ARCULUS_CARD", REPO / ".build" / "debug" / "arculus-card"))
    return path if path.is_absolute() else REPO / path


class _JSONHandler(BaseHTTPRequestHandler):
    """POST-only JSON handler; `self.server.app.handle(path, body, cookies)` answers."""

    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002 - keep pytest output clean
        pass

    def do_POST(self):  # noqa: N802 - http.server's naming
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            self._send(400, {"status": "failed", "errorMessage": "the body is not JSON"})
            return
        cookies = SimpleCookie()
        if self.headers.get("Cookie"):
            cookies.load(self.headers["Cookie"])
        status, answer, set_cookie = self.server.app.handle(self.path, body, {k: v.value for k, v in cookies.items()})
        self._send(status, answer, set_cookie)

    def _send(self, status: int, answer: dict, set_cookie: str | None = None):
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if set_cookie:
            self.send_header("Set-Cookie", set_cookie)
        self.end_headers()
        self.wfile.write(data)


class _App:
    """An HTTP server on 127.0.0.1 at an ephemeral port, serving `handle` in threads."""

    def __init__(self):
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), _JSONHandler)
        self.httpd.daemon_threads = True
        self.httpd.app = self
        self.port = self.httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.requests: list[tuple[str, dict, dict]] = []
        self.lock = threading.Lock()
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()

    def handle(self, path: str, body: dict, cookies: dict) -> tuple[int, dict, str | None]:
        with self.lock:
            self.requests.append((path, body, cookies))
        return self.answer(path, body, cookies)

    def answer(self, path, body, cookies):
        raise NotImplementedError


@dataclass
class User:
    user_id: bytes
    display_name: str
    credentials: list = field(default_factory=list)  # AttestedCredentialData
    sign_counts: dict = field(default_factory=dict)  # credential id -> last counter
    registration_info: list = field(default_factory=list)


class FidoServer(_App):
    """The FIDO2 server (vendor REST API shape) with python-fido2's verification."""

    REGISTER_BEGIN = ("/fidoapi/certify/attestation/options", "/fidoapi/register/begin")
    REGISTER_RESULT = ("/fidoapi/certify/attestation/result", "/fidoapi/register/complete")
    ASSERT_BEGIN = ("/fidoapi/certify/assertion/options", "/fidoapi/authenticate/begin")
    ASSERT_RESULT = ("/fidoapi/certify/assertion/result", "/fidoapi/authenticate/complete")

    def __init__(self, rp_id: str = RP_ID):
        super().__init__()
        self.rp_id = rp_id
        self.url = f"http://localhost:{self.port}"
        self.origin = self.url
        self.verifier = EmulatorRootVerifier()
        self.fido = Fido2Server(
            {"id": rp_id, "name": "Flow test RP"},
            attestation="direct",
            verify_origin=lambda origin: origin == self.origin,
            verify_attestation=self.verifier,
        )
        self.users: dict[str, User] = {}
        self.sessions: dict[str, dict] = {}
        #: When set, the next registration result is refused with this message (after verification).
        self.reject_next_registration: str | None = None
        #: Called with "register" or "authenticate" before an options answer is sent.
        self.before_options: Callable[[str], None] | None = None
        self.registered: list[bytes] = []  # credential IDs accepted, in order
        self.authenticated: list[bytes] = []

    @staticmethod
    def _failed(status: int, message: str):
        return status, {"status": "failed", "errorMessage": message}, None

    def answer(self, path, body, cookies):
        route = path.split("?", 1)[0]
        try:
            if route in self.REGISTER_BEGIN:
                return self._register_begin(body)
            if route in self.REGISTER_RESULT:
                return self._register_result(body, cookies)
            if route in self.ASSERT_BEGIN:
                return self._assert_begin(body)
            if route in self.ASSERT_RESULT:
                return self._assert_result(body, cookies)
        except Exception as error:  # noqa: BLE001 - every verification failure is a refusal
            return self._failed(400, f"{type(error).__name__}: {error}")
        return self._failed(404, f"no endpoint {route}")

    def _new_session(self, state: dict) -> str:
        token = secrets.token_urlsafe(16)
        with self.lock:
            self.sessions[token] = state
        return f"{SESSION_COOKIE}={token}; Path=/; HttpOnly"

    def _session(self, cookies: dict, kind: str) -> dict | None:
        with self.lock:
            state = self.sessions.pop(cookies.get(SESSION_COOKIE, ""), None)
        return state if state and state["kind"] == kind else None

    def _register_begin(self, body):
        username = body.get("username")
        if not username:
            return self._failed(400, "username is required")
        with self.lock:
            user = self.users.setdefault(username, User(os.urandom(16), body.get("displayName") or username))
        options, state = self.fido.register_begin(
            {"id": user.user_id, "name": username, "displayName": body.get("displayName") or username},
            credentials=list(user.credentials),
            resident_key_requirement="required",
            user_verification="preferred",
        )
        cookie = self._new_session({"kind": "register", "username": username, "state": state})
        if self.before_options:
            self.before_options("register")
        return 200, {"status": "ok", "errorMessage": "", **dict(options)["publicKey"]}, cookie

    @staticmethod
    def _credential(body: dict) -> dict:
        return {k: body[k] for k in ("id", "rawId", "type", "response", "authenticatorAttachment",
                                     "clientExtensionResults") if k in body}

    def _register_result(self, body, cookies):
        session = self._session(cookies, "register")
        if session is None:
            return self._failed(401, "no registration session (cookie missing or expired)")
        if body.get("username") not in (None, session["username"]):
            return self._failed(400, "the result is for another user than the options")
        auth_data = self.fido.register_complete(session["state"], self._credential(body))
        if self.reject_next_registration is not None:
            message, self.reject_next_registration = self.reject_next_registration, None
            return self._failed(400, message)
        credential = auth_data.credential_data
        with self.lock:
            user = self.users[session["username"]]
            user.credentials.append(credential)
            user.sign_counts[credential.credential_id] = auth_data.counter
            if "registrationInfo" in body:
                user.registration_info.append(body["registrationInfo"])
            self.registered.append(credential.credential_id)
        return 200, {"status": "ok", "errorMessage": "", "credentialId": websafe_encode(credential.credential_id)}, None

    def _assert_begin(self, body):
        username = body.get("username")
        user = self.users.get(username or "")
        if user is None or not user.credentials:
            return self._failed(400, f"User does not exist: {username}")
        options, state = self.fido.authenticate_begin(list(user.credentials), user_verification="preferred")
        cookie = self._new_session({"kind": "authenticate", "username": username, "state": state})
        if self.before_options:
            self.before_options("authenticate")
        return 200, {"status": "ok", "errorMessage": "", **dict(options)["publicKey"]}, cookie

    def _assert_result(self, body, cookies):
        session = self._session(cookies, "authenticate")
        if session is None:
            return self._failed(401, "no authentication session (cookie missing or expired)")
        user = self.users[session["username"]]
        credential = self.fido.authenticate_complete(session["state"], list(user.credentials), self._credential(body))
        from fido2.webauthn import AuthenticationResponse

        counter = AuthenticationResponse.from_dict(self._credential(body)).response.authenticator_data.counter
        with self.lock:
            last = user.sign_counts.get(credential.credential_id, 0)
            if counter <= last:
                return self._failed(400, f"signature counter went from {last} to {counter}")
            user.sign_counts[credential.credential_id] = counter
            self.authenticated.append(credential.credential_id)
        return 200, {"status": "ok", "errorMessage": "", "credentialId": websafe_encode(credential.credential_id)}, None


class Backend(_App):
    """The sample servlet's contract, in front of a `FidoServer`."""

    def __init__(self, fido: FidoServer):
        super().__init__()
        self.fido = fido

    def _call(self, path: str, body: dict, cookies: str | None = None) -> tuple[int, dict, str | None]:
        request = urllib.request.Request(
            self.fido.url + path, data=json.dumps(body).encode(), method="POST",
            headers={"Content-Type": "application/json", **({"Cookie": cookies} if cookies else {})},
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, data, headers = response.status, response.read(), response.headers
        except urllib.error.HTTPError as error:
            status, data, headers = error.code, error.read(), error.headers
        set_cookies = headers.get_all("Set-Cookie") or []
        cookie = "; ".join(c.split(";", 1)[0].strip() for c in set_cookies) or None
        return status, json.loads(data or b"{}"), cookie

    @staticmethod
    def _error(status: int, message: str):
        return status, {"status": "failed", "error": message}, None

    @staticmethod
    def _clean(cookies: str | None) -> str | None:
        if not cookies or not cookies.strip():
            return None
        cleaned = cookies.strip()
        if cleaned.lower().startswith("cookie:"):
            cleaned = cleaned[len("cookie:"):].strip()
        return cleaned or None

    def answer(self, path, body, cookies):
        operation = (body.get("operation") or "").lower()
        if not operation:
            return self._error(400, "Missing operation parameter")
        username = body.get("username")
        rp_id = body.get("rpId") or RP_ID
        if path == "/fido/register" and operation == "register":
            if "cardResponseData" not in body:
                return self._register_begin(username, body.get("displayName") or username, rp_id)
            return self._register_complete(username, body["cardResponseData"], body.get("cookies"))
        if path == "/fido/authenticate" and operation == "authenticate":
            if "cardResponseData" not in body:
                return self._authenticate_begin(username, rp_id)
            return self._authenticate_complete(username, body["cardResponseData"], body.get("cookies"))
        return self._error(400, f"Unknown operation: {operation}")

    def _register_begin(self, username, display_name, rp_id):
        status, fido, cookie = self._call(FidoServer.REGISTER_BEGIN[0], {"username": username, "displayName": display_name})
        if status != 200 or fido.get("status") != "ok":
            return self._error(500, f"FIDO2 server error: {fido.get('errorMessage')}")
        answer = {"status": "success", "operation": "register", "rpId": rp_id, "username": username,
                  "fidoServerResponse": fido, "fido2ServerOrigin": self.fido.origin}
        if cookie:
            answer["cookies"] = cookie
        return 200, answer, None

    @staticmethod
    def _fido_request(username, card):
        request = {"username": username, "type": card.get("type", "public-key")}
        if "id" in card:
            request["id"] = card["id"]
        request["rawId"] = card.get("rawId", card.get("id"))
        request["response"] = card.get("response", card)
        return request

    def _register_complete(self, username, card, cookies):
        status, fido, _ = self._call(FidoServer.REGISTER_RESULT[0], self._fido_request(username, card), self._clean(cookies))
        if status != 200 or fido.get("status") != "ok":
            return self._error(400, f"FIDO2 registration failed: {fido.get('errorMessage')}")
        return 200, {"status": "success", "operation": "register", "message": "Registration completed successfully"}, None

    def _authenticate_begin(self, username, rp_id):
        status, fido, cookie = self._call(FidoServer.ASSERT_BEGIN[0], {"username": username, "displayName": username})
        if status != 200 or fido.get("status") != "ok":
            return self._error(500, f"FIDO2 server error: {fido.get('errorMessage')}")
        answer = {"status": "success", "operation": "authenticate", "rpId": rp_id, "username": username,
                  "fidoServerResponse": fido, "fido2ServerOrigin": self.fido.origin}
        allowed = fido.get("allowCredentials") or []
        if allowed and "id" in allowed[0]:
            answer["sessionId"] = allowed[0]["id"]
        if cookie:
            answer["cookies"] = cookie
        return 200, answer, None

    def _authenticate_complete(self, username, card, cookies):
        status, fido, _ = self._call(FidoServer.ASSERT_RESULT[0], self._fido_request(username, card), self._clean(cookies))
        if status == 401:
            return self._error(401, "FIDO2 server session expired. Please retry authentication from the beginning.")
        if status != 200 or fido.get("status") != "ok":
            return self._error(400, f"FIDO2 authentication failed: {fido.get('errorMessage')}")
        return 200, {"status": "success", "operation": "authenticate", "message": "Authentication completed successfully"}, None


@dataclass
class SDKResult:
    """One `arculus-card sdk` run."""

    args: list[str]
    returncode: int
    stdout: str
    stderr: str

    @property
    def json(self) -> Any:
        try:
            return json.loads(self.stdout)
        except ValueError as error:
            raise AssertionError(f"sdk {self.args[0]} printed no JSON: {self.stdout!r}\nstderr: {self.stderr}") from error

    @property
    def error_code(self) -> int | None:
        document = self.json
        return document.get("error", {}).get("code") if isinstance(document, dict) else None

    def ok(self) -> Any:
        assert self.returncode == 0, f"sdk {' '.join(self.args)} failed ({self.returncode}):\n{self.stdout}\n{self.stderr}"
        return self.json

    def failed(self, code: int) -> dict:
        assert self.returncode == 1, f"sdk {self.args[0]} should fail with {code}, exited {self.returncode}:\n{self.stdout}\n{self.stderr}"
        error = self.json["error"]
        assert error["code"] == code, f"expected error {code}, got {error}"
        assert self.stderr == f"arculus-card {error['message']} [{code} {error['name']}]\n", "the message is on stderr too"
        return error

    def refused(self, kind: str, parameter: str, message: str) -> dict:
        """A value the SDK refuses before touching the card: exit 65, 700 Invalid Input, the
        parameter named as its option, the message exactly, on stdout (JSON) and stderr."""
        assert self.returncode == 65, f"sdk {self.args[0]} should be refused (65), exited {self.returncode}:\n{self.stdout}\n{self.stderr}"
        error = self.json["error"]
        assert error == {"code": 700, "name": "Invalid Input", "kind": kind, "parameter": parameter, "message": message}, error
        assert self.stderr == f"arculus-card {message}\n"
        return error


def run_sdk(binary: Path, operation: str, card_args: list[str], *args: str, timeout: float = 60) -> SDKResult:
    command = [str(binary), "sdk", operation, *card_args, *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    return SDKResult([operation, *card_args, *args], done.returncode, done.stdout.strip(), done.stderr)


def challenge() -> str:
    return websafe_encode(os.urandom(32))


def decode(text: str) -> bytes:
    return websafe_decode(text)


def main():
    """`python3 Tests/Flows/flow_rig.py [--port N] [--backend-port N]`: the FIDO2 server and the
    backend of the rig, standing alone until Ctrl-C, to try the flows by hand."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--port", type=int, default=0, help="FIDO2 server port (default: any free one)")
    parser.add_argument("--backend-port", type=int, default=0, help="backend port (default: any free one)")
    options = parser.parse_args()
    server = FidoServer()
    backend = Backend(server)
    for app, port in ((server, options.port), (backend, options.backend_port)):
        if port:
            app.httpd.server_close()
            app.httpd = ThreadingHTTPServer(("127.0.0.1", port), _JSONHandler)
            app.httpd.daemon_threads = True
            app.httpd.app = app
            app.port = port
            app.url = f"http://{'localhost' if app is server else '127.0.0.1'}:{port}"
            app._thread = threading.Thread(target=app.httpd.serve_forever, daemon=True)
    server.origin = server.url
    server.start()
    backend.start()
    print(f"FIDO2 server  {server.url}  (RP ID {server.rp_id}; /fidoapi/certify/attestation|assertion/options|result)")
    print(f"backend       {backend.url}  (POST /fido/register, /fido/authenticate)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        backend.stop()
        server.stop()


if __name__ == "__main__":
    main()
