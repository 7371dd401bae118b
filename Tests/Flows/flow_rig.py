"""The flow test rig: the servers the SDK's flows talk to, none of them written by the SDK, and a
runner for `arculus-card sdk`.

- `ConformanceServer` (conformance_server.py): a FIDO2 server written from the FIDO Alliance's
  conformance server API text, strict about its members, verifying with py_webauthn against
  the emulator's attestation root; what the client-direct flow talks to.
- `SeedServlet` (seed_servlet.py): the seed's Java servlet, line by line, in front of a
  ConformanceServer; what the backend-proxied flow talks to.

Both are HTTP on 127.0.0.1 at ephemeral ports (the FIDO2 server as http://localhost:PORT, an
origin a browser accepts for the RP ID `localhost`), log every request, and have switches to
misbehave for the bad-path tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fido2.utils import websafe_decode, websafe_encode

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests" / "Interop"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from conformance_server import ConformanceServer  # noqa: E402
from seed_servlet import SeedServlet  # noqa: E402

#: The rig's relying party: its FIDO2 server is reached as http://localhost:PORT, an origin a
#: browser accepts for this RP ID (WebAuthn wants the RP ID to be the origin's host or a
#: registrable suffix of it, and no RP ID fits an IP address), so the SDK signs for it as is.
RP_ID = "localhost"
#: The PIN the flow tests give their cards.
PIN = "123456"


def binary_path() -> Path:
    """The arculus-card binary: $ARCULUS_CARD, default .build/debug/arculus-card."""
    path = Path(os.environ.get("ARCULUS_CARD", REPO / ".build" / "debug" / "arculus-card"))
    return path if path.is_absolute() else REPO / path


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
    """`python3 Tests/Flows/flow_rig.py [--port N] [--backend-port N] [--user-ids random|username]`:
    the rig's FIDO2 server and the seed servlet in front of it, standing alone until Ctrl-C, to
    try the flows by hand."""
    import argparse

    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--port", type=int, default=0, help="FIDO2 server port (default: any free one)")
    parser.add_argument("--backend-port", type=int, default=0, help="backend (seed servlet) port (default: any free one)")
    parser.add_argument("--user-ids", choices=("random", "username"), default="random",
                        help="what the server issues as user.id (username: what registerCardOnly's credentials carry)")
    options = parser.parse_args()
    server = ConformanceServer(user_ids=options.user_ids, port=options.port).start()
    backend = SeedServlet(server.url, port=options.backend_port).start()
    print(f"FIDO2 server  {server.url}  (RP ID {server.rp_id}; /fidoapi/certify/attestation|assertion/options|result)")
    print(f"backend       {backend.url}  (the seed servlet: POST /fido/register, /fido/authenticate)", flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        backend.stop()
        server.stop()


if __name__ == "__main__":
    main()
