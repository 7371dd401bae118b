"""The seed's own Swift code, run: the sample apps' text (Tests/Seed: taken from the seed by
extract_seed.py, compiled against ArculusFidoSDKFramework with stand-in UIKit, WebKit and
CommonCrypto) drives a card served on vpcd through pcscd, against the conformance-API FIDO2
server and the seed's servlet in front of one; every alert the apps show is checked word for
word, and every registration and authentication on the servers' own record.

The seed-app binary is $ARCULUS_SEED_APP (test.sh builds it: Tests/Seed/build.sh). When the seed
text itself is not on this machine ($ARCULUS_SEED_MISSING, set by test.sh), these tests skip and
say so.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest
from fido2.utils import websafe_encode

import conftest
from flow_rig import PIN, REPO, RP_ID, ConformanceServer, SeedServlet

BEGIN_REGISTRATION = "fidoapi/certify/attestation/options"
COMPLETE_REGISTRATION = "fidoapi/certify/attestation/result"
BEGIN_AUTHENTICATION = "fidoapi/certify/assertion/options"
COMPLETE_AUTHENTICATION = "fidoapi/certify/assertion/result"
#: The minimal example's user, as the seed's text writes it (an e-mail address a web page's
#: obfuscation replaced, with a no-break space).
SEED_USER = "[email\u00a0protected]"


def seed_app() -> Path:
    if os.environ.get("ARCULUS_SEED_MISSING"):
        pytest.skip(f"the seed text is not on this machine: {os.environ['ARCULUS_SEED_MISSING']}")
    path = Path(os.environ.get("ARCULUS_SEED_APP", REPO / "Tests" / "Seed" / ".build" / "debug" / "seed-app"))
    if not path.exists():
        conftest.interop._unavailable(f"no seed-app at {path} (run Tests/Seed/build.sh, or set ARCULUS_SEED_APP)")
    return path


class Seed:
    """Runs the seed's apps against one card and the servers."""

    def __init__(self, card, fido: ConformanceServer, backend_fido: ConformanceServer, backend: SeedServlet):
        self.card, self.fido, self.backend_fido, self.backend = card, fido, backend_fido, backend
        self.binary = seed_app()

    def environment(self, discovery: dict[str, str]) -> dict[str, str]:
        environment = {k: v for k, v in os.environ.items() if not k.startswith("ARCULUS_FIDO_")}
        environment.update(discovery, SEED_FIDO_SERVER=self.fido.url, SEED_BACKEND=self.backend.url)
        return environment

    def run(self, *arguments: str, discovery: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        if discovery is None:
            discovery = {"ARCULUS_FIDO_READER": self.card.served.reader}
        done = subprocess.run([str(self.binary), *arguments], capture_output=True, text=True, timeout=50,
                              env=self.environment(discovery))
        assert done.returncode == 0, f"seed-app {' '.join(arguments)} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
        return done

    def alert(self, app: str, message: str, *parameters, discovery: dict[str, str] | None = None) -> str:
        """Posts the page's `message` to the `app` and returns the alert it shows."""
        lines = self.run(app, message, json.dumps(list(parameters)), discovery=discovery).stdout.splitlines()
        assert len(lines) == 1, lines
        return json.loads(lines[0])["alert"]

    def client_direct(self, message: str, *parameters) -> str:
        return self.alert("client-direct", message, *parameters)

    def backend_proxied(self, message: str, *parameters) -> str:
        return self.alert("backend-proxied", message, *parameters)

    def retries(self) -> int:
        return self.card.sdk("info").ok()["pinRetries"]


@pytest.fixture
def seed(make_card):
    card = make_card()
    fido = ConformanceServer().start()
    # Behind the servlet, a server whose user.id is the user name: the handle registerCardOnly,
    # which takes no user ID, gives the card's credentials (README: what a server must accept).
    backend_fido = ConformanceServer(user_ids="username").start()
    backend = SeedServlet(backend_fido.url).start()
    try:
        yield Seed(card, fido, backend_fido, backend)
    finally:
        backend.stop()
        backend_fido.stop()
        fido.stop()


pcsc = pytest.mark.parametrize("make_card", ["pcsc"], indirect=True)


@pcsc
def test_set_pin_and_change_pin_handlers(seed):
    assert seed.client_direct("SetPin", PIN) == "PIN set"
    assert seed.client_direct("SetPin", "654321") == ("601 Unknown: setPin: the card already has a PIN; change it with "
                                                      "changePin(oldPin:newPin:), or erase the card with resetDevice(pin:)")
    assert seed.client_direct("ChangePin", PIN, "24681357") == "PIN changed"
    assert seed.client_direct("ChangePin", PIN, "11112222") == ("608 Get PIN Token Failed: changePin: the PIN is wrong "
                                                                "(CTAP2_ERR_PIN_INVALID); 7 attempts left before the card blocks its PIN")
    assert seed.retries() == 7
    assert seed.client_direct("ChangePin", "24681357", PIN) == "PIN changed"
    assert seed.retries() == 8


@pcsc
def test_minimal_client_direct_example(seed):
    seed.card.set_pin()
    registered = seed.run("minimal", "register")
    assert registered.stdout == "Registration: Registration successful\n"
    assert len(seed.fido.registered) == 1 and seed.fido.formats == ["packed"]
    assert list(seed.fido.accounts) == [SEED_USER]
    authenticated = seed.run("minimal", "authenticate")
    assert authenticated.stdout == "Authentication: Authentication successful\n"
    assert seed.fido.authenticated == seed.fido.registered
    assert seed.card.credential_ids() == [websafe_encode(seed.fido.registered[0])]


@pcsc
def test_client_direct_webview_handlers(seed):
    seed.card.set_pin()
    register = (seed.fido.url, "bob@example.com", "seed test device", RP_ID, BEGIN_REGISTRATION, COMPLETE_REGISTRATION)
    assert seed.client_direct("Register", PIN, *register) == "Registration successful"
    account = seed.fido.accounts["bob@example.com"]
    assert account.registration_info == ["seed test device"] and seed.fido.formats == ["packed"]
    listed = seed.card.sdk("list-credentials", "--pin", PIN).ok()["credentials"]
    assert [c["userHandle"] for c in listed] == [websafe_encode(account.user_id)], "the server's user.id is the card's handle"

    authenticate = (seed.fido.url, "bob@example.com", "Bob", RP_ID, BEGIN_AUTHENTICATION, COMPLETE_AUTHENTICATION)
    assert seed.client_direct("Authenticate", PIN, *authenticate) == "Authentication successful"
    assert seed.fido.authenticated == seed.fido.registered

    assert seed.client_direct("Register", "999999", *register) == ("608 Get PIN Token Failed: registerUser: the PIN is wrong "
                                                                   "(CTAP2_ERR_PIN_INVALID); 7 attempts left before the card "
                                                                   "blocks its PIN")
    unknown = (seed.fido.url, "nobody", "Nobody", RP_ID, BEGIN_AUTHENTICATION, COMPLETE_AUTHENTICATION)
    assert seed.client_direct("Authenticate", PIN, *unknown) == ("603 User Not Found: authenticateUser: the FIDO2 server "
                                                                 "refused to start an authentication for 'nobody': HTTP 400: "
                                                                 "User does not exists!")
    assert len(seed.fido.registered) == 1 and len(seed.fido.authenticated) == 1


@pcsc
def test_backend_proxied_handlers(seed):
    seed.card.set_pin()
    assert seed.backend_proxied("Register", PIN, "carol", "Carol", RP_ID) == "Registration successful!"
    assert len(seed.backend_fido.registered) == 1
    assert seed.backend_fido.formats == ["packed"], "registerCardOnly sees no options: the card's own attestation, verified"
    forwarded = [body for path, body, _ in seed.backend_fido.requests if path == "/fidoapi/register/complete"]
    assert set(forwarded[0]) == {"username", "type", "id", "rawId", "response"}
    assert seed.backend_proxied("Authenticate", PIN, "carol", RP_ID) == "Authentication successful!"
    assert seed.backend_fido.authenticated == seed.backend_fido.registered

    assert seed.backend_proxied("Register", "999999", "dave", "Dave", RP_ID) == (
        "Error: 608 Get PIN Token Failed: registerCardOnly: the PIN is wrong (CTAP2_ERR_PIN_INVALID); 7 attempts left before "
        "the card blocks its PIN"), "the seed's catch shows localizedDescription: the cause, not 'error 1'"
    assert seed.retries() == 7


@pcsc
def test_backend_proxied_unknown_users_and_rollback(seed):
    seed.card.set_pin()
    assert seed.backend_proxied("Register", PIN, "carol", "Carol", RP_ID) == "Registration successful!"
    assert seed.backend_proxied("Register", PIN, "erin", "Erin", RP_ID) == "Registration successful!"
    erin = websafe_encode(seed.backend_fido.registered[1])
    seed.card.sdk("delete-credential", "--pin", PIN, "--credential-id", erin).ok()
    # A user the server knows and the card does not: the card says so.
    assert seed.backend_proxied("Authenticate", PIN, "erin", RP_ID) == (
        "Error: 603 User Not Found: authenticateCardOnly: the card has 1 credential(s) for localhost, none of them for 'erin'")
    # A user the server does not know: the servlet writes its reason in "error", the app reads
    # "message" and "errorMessage", so the seed's own code can only show its fallback text.
    assert seed.backend_proxied("Authenticate", PIN, "nobody", RP_ID) == "Backend authentication begin failed"
    assert seed.backend.requests[-1][1] == {"operation": "authenticate", "username": "nobody", "rpId": RP_ID}

    # Phase 3 refused: the app deletes the new credential again (deleteCredentialByCredentialId).
    before = seed.card.credential_ids()
    seed.backend_fido.reject_next_registration = "attestation not trusted (seed test)"
    assert seed.backend_proxied("Register", PIN, "frank", "Frank", RP_ID) == "Registration failed"
    assert seed.card.credential_ids() == before, "rolled back on the card"
    assert seed.backend_fido.authenticated == []


@pcsc
def test_arculus_fido_finds_the_card_by_itself(seed):
    """ArculusFido() with nothing set: the first PC/SC reader whose card answers the FIDO SELECT."""
    others = [reader for reader in conftest.interop._readers() if reader != seed.card.served.reader
              and conftest._card_in(reader)]
    if others:
        pytest.skip(f"another card is on {others}: ArculusFido() would find that one first")
    assert seed.alert("client-direct", "SetPin", PIN, discovery={}) == "PIN set"
    assert seed.card.sdk("info").ok()["pinRetries"] == 8


def test_in_process_card_from_an_image(tmp_path, fido_server):
    """ARCULUS_FIDO_CARD_IMAGE: the seed's minimal example on an in-process card, no reader."""
    binary = seed_app()
    image = tmp_path / "seed.img"
    subprocess.run([str(conftest.binary()), "sdk", "set-pin", "--card-image", str(image), "--pin", PIN], check=True,
                   capture_output=True)
    environment = {k: v for k, v in os.environ.items() if not k.startswith("ARCULUS_FIDO_")}
    environment.update(ARCULUS_FIDO_CARD_IMAGE=str(image), SEED_FIDO_SERVER=fido_server.url)
    for step, shown in (("register", "Registration: Registration successful\n"),
                        ("authenticate", "Authentication: Authentication successful\n")):
        done = subprocess.run([str(binary), "minimal", step], capture_output=True, text=True, timeout=50, env=environment)
        assert (done.returncode, done.stdout) == (0, shown), done.stderr
    assert fido_server.authenticated == fido_server.registered and len(fido_server.registered) == 1


@pcsc
def test_the_readmes_first_sdk_example(make_card):
    """README, "The SDK": its first code block, run as written (Tests/Seed/Sources/ReadmeExample),
    against the rig's FIDO2 server on port 8080, where the README starts it."""
    binary = seed_app()
    card = make_card()
    card.set_pin()
    try:
        server = ConformanceServer(port=8080).start()
    except OSError as error:
        conftest.interop._unavailable(f"port 8080, where the README's example finds its FIDO2 server, is taken: {error}")
    try:
        environment = {k: v for k, v in os.environ.items() if not k.startswith("ARCULUS_FIDO_")}
        environment["ARCULUS_FIDO_READER"] = card.served.reader
        for step, shown in (("register", "Registration: Registration successful\n"),
                            ("authenticate", "Authentication: Authentication successful\n")):
            done = subprocess.run([str(binary), "readme", step], capture_output=True, text=True, timeout=50, env=environment)
            assert (done.returncode, done.stdout) == (0, shown), done.stderr
        assert list(server.accounts) == ["alice@example.com"]
        assert server.authenticated == server.registered and len(server.registered) == 1
    finally:
        server.stop()
