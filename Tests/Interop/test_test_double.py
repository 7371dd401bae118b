"""The card as a test double, seen by real clients: state set without CTAP (`arculus-card image`,
`arculus-card ctl`), injected faults and realistic timing, each observed by python-fido2 (and
pyscard) through pcscd + vpcd, as a test in any language would steer the card between steps.

Each test starts `arculus-card serve` with a control socket of its own (`--control`) and talks
to it with `arculus-card ctl`, or straight over the socket (one JSON object per line)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import socket
import stat
import subprocess
import time

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from fido2.ctap import CtapError, STATUS
from fido2.ctap1 import ApduError, Ctap1
from fido2.ctap2 import ClientPin, Ctap2
from fido2.webauthn import AuthenticatorData

import interop_support as support
from conftest import _binary, _reader_event_state, _serve, _unavailable

CLIENT_DATA_HASH = hashlib.sha256(b"test double").digest()


def run_json(*command: str, expect_ok: bool = True) -> dict:
    """Runs an arculus-card command that answers one JSON object on stdout."""
    result = subprocess.run(command, capture_output=True, text=True, timeout=30)
    assert result.stdout.strip(), f"no answer from {command}: {result.stderr}"
    answer = json.loads(result.stdout.strip().splitlines()[-1])
    if expect_ok:
        assert answer["ok"] is True and result.returncode == 0, f"{command}: {result.stderr}"
    else:
        assert answer["ok"] is False and result.returncode == 1, f"{command}: {answer}"
    return answer


class Ctl:
    """`arculus-card ctl` against one served card."""

    def __init__(self, binary, path):
        self.binary = str(binary)
        self.path = str(path)

    def __call__(self, *arguments: str, expect_ok: bool = True) -> dict:
        return run_json(self.binary, "ctl", "--control", self.path, *arguments, expect_ok=expect_ok)

    def request(self, *requests: dict) -> list[dict]:
        """Raw protocol: several requests on one connection, one JSON line each way."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
            connection.connect(self.path)
            stream = connection.makefile("rw", encoding="utf-8", newline="\n")
            answers = []
            for request in requests:
                stream.write(json.dumps(request) + "\n")
                stream.flush()
                answers.append(json.loads(stream.readline()))
            return answers


@pytest.fixture
def serve_double(request, pcsc_reader, tmp_path):
    """Starts a card with a control socket: serve_double(image_args, serve_args) -> served card,
    with `.ctl` (a Ctl) and `.created` (the `image create` answer, when image_args were given)."""

    def start(image_args: list[str] | None = None, serve_args: list[str] | None = None):
        binary = _binary()
        if not binary.exists():
            _unavailable(f"no arculus-card binary at {binary} (build it, or set ARCULUS_CARD)")
        image = tmp_path / "card.image"
        created = None
        if image_args is not None:
            created = run_json(str(binary), "image", "create", "--card", str(image), *image_args)
        control = tmp_path / "ctl.sock"
        generator = _serve(request, pcsc_reader, tmp_path, ["--control", str(control), *(serve_args or [])])
        served = next(generator)
        # Finalizers run last-registered first: this one runs after the generator's teardown and
        # stops the card if that teardown failed before stopping it (e.g. pcscd went away).
        request.addfinalizer(lambda: served.process.poll() is None and served.stop())
        request.addfinalizer(lambda: next(generator, None))
        served.ctl = Ctl(binary, control)
        served.created = created
        served.binary = binary
        return served

    return start


def verify(public_key_pem: str, assertion) -> None:
    """Checks an assertion's signature with a public key printed by the card (raises if bad)."""
    key = serialization.load_pem_public_key(public_key_pem.encode())
    key.verify(assertion.signature, bytes(assertion.auth_data) + CLIENT_DATA_HASH, ec.ECDSA(hashes.SHA256()))


def descriptor(credential: dict) -> dict:
    """The CTAP allow-list entry for a credential the card printed."""
    return {"type": "public-key", "id": bytes.fromhex(credential["idHex"])}


def ctap2(served) -> tuple[Ctap2, object]:
    device = served.device()
    return Ctap2(device), device


# -- state control -------------------------------------------------------------------------


def test_preloaded_card_is_what_python_fido2_sees(serve_double, tmp_path):
    """`image create` with a PIN, retries, a counter, a discoverable and a non-discoverable
    credential (with a key of our own): python-fido2 asserts both, and the printed public keys
    verify the signatures."""
    bob_key = ec.generate_private_key(ec.SECP256R1())
    (tmp_path / "bob.pem").write_bytes(bob_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    served = serve_double(image_args=[
        "--pin", "123456", "--retries", "5", "--counter", "41",
        "--credential", "rp=example.com,user=alice,display=Alice,discoverable=yes",
        "--credential", f"rp=example.com,user=bob,discoverable=no,key={tmp_path / 'bob.pem'}",
    ])
    alice, bob = served.created["credentials"]
    assert served.created["pin"]["isSet"] and served.created["pin"]["retries"] == 5
    assert alice["discoverable"] and not bob["discoverable"]
    bob_public = bob_key.public_key().public_bytes(serialization.Encoding.X962,
                                                   serialization.PublicFormat.UncompressedPoint)
    assert bytes.fromhex(bob["publicKeyHex"]) == bob_public

    ctap, device = ctap2(served)
    try:
        assert ClientPin(ctap).get_pin_retries()[0] == 5
        assert ctap.info.options["clientPin"] is True
        # The discoverable one needs no allow list (no PIN token: user details are withheld).
        found = ctap.get_assertion("example.com", CLIENT_DATA_HASH, options={"up": True})
        assert found.credential["id"] == bytes.fromhex(alice["idHex"])
        assert found.user["id"] == b"alice"
        assert found.auth_data.counter == 42
        verify(alice["publicKeyPEM"], found)
        # The non-discoverable one is a minted ID: the card knows it when it is sent back.
        by_id = ctap.get_assertion("example.com", CLIENT_DATA_HASH, allow_list=[descriptor(bob)])
        assert by_id.credential["id"] == bytes.fromhex(bob["idHex"])
        assert by_id.auth_data.counter == 43
        verify(bob["publicKeyPEM"], by_id)
    finally:
        device.close()


def test_state_control_of_a_running_card(serve_double):
    """`ctl pin`, `ctl counter`, `ctl credentials add|list|remove` change the card between two
    steps of a client."""
    served = serve_double()
    ctap, device = ctap2(served)
    try:
        assert served.ctl("pin")["pin"]["isSet"] is False
        served.ctl("pin", "--set", "123456", "--retries", "3")
        assert ClientPin(ctap).get_pin_retries()[0] == 3
        token = ClientPin(ctap).get_pin_token("123456")
        assert token and served.ctl("pin")["pin"]["retries"] == 8

        served.ctl("counter", "--set", "100")
        carol = served.ctl("credentials", "add", "--credential", "rp=example.org,user=carol")["credential"]
        assert [c["idHex"] for c in served.ctl("credentials", "list")["credentials"]] == [carol["idHex"]]
        found = ctap.get_assertion("example.org", CLIENT_DATA_HASH)
        assert found.auth_data.counter == 101
        verify(carol["publicKeyPEM"], found)

        served.ctl("credentials", "remove", "--id", carol["id"])
        with pytest.raises(CtapError) as error:
            ctap.get_assertion("example.org", CLIENT_DATA_HASH)
        assert error.value.code == CtapError.ERR.NO_CREDENTIALS
    finally:
        device.close()


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def webdriver_credential(key, rp_id: str, user: bytes, sign_count: int, **extra) -> dict:
    """A credential as WebDriver's virtual authenticator (and a browser test's fixture) has it."""
    der = key.private_bytes(serialization.Encoding.DER, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    return {"isResidentCredential": True, "rpId": rp_id, "privateKey": b64url(der), "userHandle": b64url(user),
            "signCount": sign_count, **extra}


def test_webdriver_credential_fixtures_carry_over(serve_double, tmp_path):
    """Credentials in WebDriver's shape load with `image create --credential @FILE` and `ctl
    credentials add`, print back in that shape, and python-fido2 asserts with them: the printed
    key is the fixture's, and signCount raised the card's one counter."""
    alice_key = ec.generate_private_key(ec.SECP256R1())
    fixture = tmp_path / "credentials.json"
    fixture.write_text(json.dumps([webdriver_credential(alice_key, "example.com", b"alice", 41)]))
    served = serve_double(image_args=["--credential", f"@{fixture}"])
    alice = served.created["credentials"][0]
    assert alice["privateKey"] == json.loads(fixture.read_text())[0]["privateKey"]
    assert alice["isResidentCredential"] is True and alice["userHandle"] == b64url(b"alice")
    assert alice["signCount"] == 41 and served.created["counter"] == 41

    carol_key = ec.generate_private_key(ec.SECP256R1())
    carol = served.ctl("credentials", "add", "--credential",
                       json.dumps(webdriver_credential(carol_key, "example.org", b"carol", 100)))["credential"]
    assert carol["signCount"] == 100
    listed = served.ctl("credentials", "list")["credentials"]
    assert [c["credentialId"] for c in listed] == [alice["credentialId"], carol["credentialId"]]
    assert {c["signCount"] for c in listed} == {100}

    refused = served.ctl("credentials", "add", "--credential",
                         json.dumps(webdriver_credential(carol_key, "example.org", b"carol", 0,
                                                         credentialId=b64url(bytes(16)))), expect_ok=False)
    assert refused["error"].startswith("credential: credentialId ")

    ctap, device = ctap2(served)
    try:
        found = ctap.get_assertion("example.com", CLIENT_DATA_HASH)
        assert b64url(found.credential["id"]) == alice["credentialId"]
        assert found.auth_data.counter == 101
        alice_key.public_key().verify(found.signature, bytes(found.auth_data) + CLIENT_DATA_HASH, ec.ECDSA(hashes.SHA256()))
    finally:
        device.close()


def test_image_commands_refuse_a_served_card_and_work_after(serve_double, tmp_path):
    served = serve_double(image_args=["--counter", "7"])
    answer = run_json(str(served.binary), "image", "counter", "--card", str(tmp_path / "card.image"), expect_ok=False)
    assert "in use by another process" in answer["error"]
    served.ctl("counter", "--set", "9")
    served.stop()
    assert run_json(str(served.binary), "image", "counter", "--card", str(tmp_path / "card.image"))["counter"] == 9


# -- faults --------------------------------------------------------------------------------


def test_injected_ctap_error_surfaces_as_ctap_error(serve_double):
    served = serve_double(image_args=["--credential", "rp=example.com,user=alice"])
    fault = served.ctl("fault", "add", "--command", "getAssertion", "--ctap-error", "0x2E", "--once")["fault"]
    assert fault["ctapError"] == 0x2E and fault["once"] is True
    ctap, device = ctap2(served)
    try:
        with pytest.raises(CtapError) as error:
            ctap.get_assertion("example.com", CLIENT_DATA_HASH)
        assert error.value.code == CtapError.ERR.NO_CREDENTIALS
        ctap.get_assertion("example.com", CLIENT_DATA_HASH)  # one-shot: gone
        served.ctl("fault", "add", "--command", "makeCredential", "--ctap-error", "KEY_STORE_FULL")
        for _ in range(2):
            with pytest.raises(CtapError) as error:
                ctap.make_credential(CLIENT_DATA_HASH, support.RP, support.user(), [{"type": "public-key", "alg": -7}])
            assert error.value.code == CtapError.ERR.KEY_STORE_FULL
    finally:
        device.close()
    listed = served.ctl("fault", "list")
    assert [entry["effect"] for entry in listed["log"]] == ["ctap-error"] * 3
    assert served.ctl("fault", "clear")["removed"] == 1
    assert "! fault injected: authenticatorGetAssertion: answered CTAP2_ERR_NO_CREDENTIALS (0x2E)" in served.stderr()


def test_status_word_on_any_command(serve_double):
    served = serve_double()
    served.ctl("fault", "add", "--command", "any", "--status-word", "6A82", "--once")
    connection = served.connection()
    try:
        select = [0x00, 0xA4, 0x04, 0x00, 0x08, 0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01]
        data, sw1, sw2 = connection.transmit(select)
        assert (data, sw1, sw2) == ([], 0x6A, 0x82)
        data, sw1, sw2 = connection.transmit(select)
        assert (bytes(data), sw1, sw2) == (b"FIDO_2_0", 0x90, 0x00)
    finally:
        connection.disconnect()


def test_bogus_signature_fails_the_relying_party(serve_double):
    served = serve_double()
    rp = support.server()
    device = served.device()
    try:
        client = support.client(device)
        options, state = rp.register_begin(support.user(), user_verification="discouraged")
        credential = rp.register_complete(state, client.make_credential(options["publicKey"])).credential_data
        # Persistent: python-fido2 pre-flights an allow list with up=false, which signs too.
        served.ctl("fault", "add", "--command", "getAssertion", "--bogus-signature")

        request, state = rp.authenticate_begin([credential], user_verification="discouraged")
        result = client.get_assertion(request["publicKey"]).get_response(0)
        with pytest.raises(ValueError, match="Invalid signature"):
            rp.authenticate_complete(state, [credential], result)
        served.ctl("fault", "clear")

        request, state = rp.authenticate_begin([credential], user_verification="discouraged")
        rp.authenticate_complete(state, [credential], client.get_assertion(request["publicKey"]).get_response(0))
    finally:
        device.close()


def test_cleared_up_flag_is_visible_in_auth_data(serve_double):
    served = serve_double(image_args=["--credential", "rp=example.com,user=alice"])
    alice = served.created["credentials"][0]
    served.ctl("fault", "add", "--command", "getAssertion", "--flags", "up=0,uv=1")
    ctap, device = ctap2(served)
    try:
        assertion = ctap.get_assertion("example.com", CLIENT_DATA_HASH)
        assert not assertion.auth_data.flags & AuthenticatorData.FLAG.UP
        assert assertion.auth_data.flags & AuthenticatorData.FLAG.UV
        verify(alice["publicKeyPEM"], assertion)  # the card signs what it sends
        served.ctl("fault", "clear")
        assert ctap.get_assertion("example.com", CLIENT_DATA_HASH).auth_data.flags & AuthenticatorData.FLAG.UP
    finally:
        device.close()


def test_leaving_the_field_mid_command(serve_double):
    """The client sees the card vanish (pyscard CardConnectionException) before the response;
    the card is back a moment later, and the command it ran counted."""
    from smartcard.Exceptions import CardConnectionException

    served = serve_double(image_args=["--credential", "rp=example.com,user=alice"])
    served.ctl("fault", "add", "--command", "getAssertion", "--leave-field", "--away", "1")
    ctap, device = ctap2(served)
    try:
        with pytest.raises(CardConnectionException):
            ctap.get_assertion("example.com", CLIENT_DATA_HASH)
    finally:
        try:
            device.close()
        except CardConnectionException:
            pass
    served.wait_present(2)
    assert "card off the reader" in served.stderr()
    ctap, device = ctap2(served)
    try:
        assertion = ctap.get_assertion("example.com", CLIENT_DATA_HASH)
        assert assertion.auth_data.counter == 2, "the vanished getAssertion ran"
    finally:
        device.close()
    assert served.ctl("fault", "list")["faults"] == [], "leave-field is one-shot"


def test_failed_write_is_torn(serve_double, tmp_path):
    """The next write fails: the command answers CTAP1_ERR_OTHER and the card's memory stays as
    it was — also in the image, read after the card stopped."""
    served = serve_double(image_args=["--credential", "rp=example.com,user=alice", "--counter", "5"])
    served.ctl("fault", "add", "--fail-next-write")
    ctap, device = ctap2(served)
    try:
        with pytest.raises(CtapError) as error:
            ctap.make_credential(CLIENT_DATA_HASH, support.RP, support.user("bob", b"bob"),
                                 [{"type": "public-key", "alg": -7}], options={"rk": True})
        assert error.value.code == CtapError.ERR.OTHER
        assert len(served.ctl("credentials", "list")["credentials"]) == 1
        assert served.ctl("counter")["counter"] == 5
    finally:
        device.close()
    served.stop()
    image = str(tmp_path / "card.image")
    listed = run_json(str(served.binary), "image", "credentials", "list", "--card", image)["credentials"]
    assert [c["idHex"] for c in listed] == [served.created["credentials"][0]["idHex"]]
    assert run_json(str(served.binary), "image", "counter", "--card", image)["counter"] == 5


def test_declined_presence(serve_double):
    served = serve_double(image_args=["--credential", "rp=example.com,user=alice"])
    served.ctl("fault", "add", "--decline-presence")
    ctap, device = ctap2(served)
    try:
        with pytest.raises(CtapError) as error:
            ctap.make_credential(CLIENT_DATA_HASH, support.RP, support.user(), [{"type": "public-key", "alg": -7}])
        assert error.value.code == CtapError.ERR.OPERATION_DENIED
        with pytest.raises(CtapError) as error:
            ctap.get_assertion("example.com", CLIENT_DATA_HASH)
        assert error.value.code == CtapError.ERR.OPERATION_DENIED
        with pytest.raises(ApduError) as apdu_error:
            Ctap1(device).register(CLIENT_DATA_HASH, hashlib.sha256(b"https://u2f.example").digest())
        assert apdu_error.value.code == 0x6985
    finally:
        device.close()


# -- timing, reader, protocol ----------------------------------------------------------------


def test_realistic_timing_sends_keepalives(serve_double):
    served = serve_double(image_args=["--credential", "rp=example.com,user=alice"], serve_args=["--timing", "realistic"])
    ctap, device = ctap2(served)
    try:
        keepalives = []
        started = time.monotonic()
        ctap.get_assertion("example.com", CLIENT_DATA_HASH, on_keepalive=keepalives.append)
        assert time.monotonic() - started >= 0.08
        assert keepalives == [STATUS.PROCESSING]

        assert served.ctl("timing", "off")["timing"]["name"] == "off"
        keepalives.clear()
        ctap.get_assertion("example.com", CLIENT_DATA_HASH, on_keepalive=keepalives.append)
        assert keepalives == [], "no 9100 without simulated time"
    finally:
        device.close()


def test_remove_and_insert(serve_double):
    from smartcard import scard

    served = serve_double()
    served.ctl("remove")
    deadline = time.monotonic() + 5
    while not _reader_event_state(served.reader) & scard.SCARD_STATE_EMPTY:
        assert time.monotonic() < deadline, "pcscd never saw the card go"
        time.sleep(0.05)
    status = served.ctl("status")
    assert (status["onReader"], status["inField"]) == (False, False), "a card off its reader is out of the field"
    assert "control: remove: the card is off the reader until 'insert'\n" in served.stderr()
    time.sleep(0.6)
    assert _reader_event_state(served.reader) & scard.SCARD_STATE_EMPTY, "held off the reader"
    served.ctl("insert")
    served.wait_present(2)
    assert "control: insert: the card is put back on the reader\n" in served.stderr()
    status = served.ctl("status")
    assert (status["onReader"], status["inField"]) == (True, True)
    served.ctl("tap", "--delay", "0.6")
    served.wait_present(3)
    assert "control: tap: the card leaves the reader and is back after 0.6 s\n" in served.stderr()
    device = served.device()
    device.close()


def test_credentials_remove_echoes_the_id_as_typed(serve_double):
    """An ID that is valid base64url or hex but on no credential is named as the user wrote it;
    one that is neither is a usage error naming it."""
    served = serve_double()
    tail = "; non-discoverable credentials are not stored on the card, so they cannot be removed"
    for typed, read in (("nope", "base64url: 3 bytes, hex 9e8a5e"), ("0a0b", "hex: 2 bytes")):
        result = subprocess.run([served.ctl.binary, "ctl", "--control", served.ctl.path, "credentials", "remove", "--id", typed],
                                capture_output=True, text=True, timeout=30)
        message = f"no discoverable credential on the card has the ID '{typed}' (read as {read}){tail}"
        assert (result.returncode, json.loads(result.stdout), result.stderr) == (
            1, {"ok": False, "error": message}, f"arculus-card ctl: {message}\n")
    result = subprocess.run([served.ctl.binary, "ctl", "--control", served.ctl.path, "credentials", "remove", "--id", "no!pe"],
                            capture_output=True, text=True, timeout=30)
    assert (result.returncode, result.stdout) == (64, "")
    assert result.stderr.startswith("arculus-card ctl: --id wants a credential ID in base64url or hex, not 'no!pe'\n")


def test_control_socket_is_owner_only_json_lines(serve_double):
    served = serve_double()
    mode = os.stat(served.ctl.path).st_mode
    assert stat.S_ISSOCK(mode) and stat.S_IMODE(mode) == 0o600
    answers = served.ctl.request(
        {"op": "status", "tag": 1},
        {"op": "fault.add", "fault": {"command": "getInfo", "effect": "status-word", "statusWord": "6F00"}},
        {"op": "fault.list"},
        {"op": "no-such-op"},
    )
    assert answers[0]["ok"] and answers[0]["tag"] == 1 and answers[0]["profile"] == "arculus-fido21"
    assert answers[1]["fault"]["statusWord"] == "6F00"
    assert len(answers[2]["faults"]) == 1
    assert answers[3]["ok"] is False and answers[3]["error"].startswith("bad request: unknown op 'no-such-op'")
    # getInfo answering 6F00 makes python-fido2 reject the reader: "Unsupported device".
    from fido2.pcsc import CtapPcscDevice

    assert next(CtapPcscDevice.list_devices(served.reader), None) is None
    served.ctl("fault", "clear")
    served.stop()
    assert not os.path.exists(served.ctl.path), "the socket is removed when the card stops"


def test_every_algorithm_is_listed_and_counted(serve_double, tmp_path):
    """On ctap-reference an Ed25519 resident key made by python-fido2 over CTAP is what
    `ctl credentials list` shows (with its algorithm and a key that verifies the card's
    signature) and `ctl status` counts; after a reset both say none. `ctl credentials add` and
    `image credentials add|list` take and show an EdDSA credential the same way."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    served = serve_double(serve_args=["--profile", "ctap-reference"])
    ctap, device = ctap2(served)
    try:
        ctap.reset()
        ctap.make_credential(CLIENT_DATA_HASH, {"id": "example.com"}, {"id": b"es", "name": "es"},
                             [{"type": "public-key", "alg": -7}], options={"rk": True})
        ctap.make_credential(CLIENT_DATA_HASH, {"id": "example.com"}, {"id": b"ed", "name": "ed"},
                             [{"type": "public-key", "alg": -8}], options={"rk": True})
        listed = served.ctl("credentials", "list")["credentials"]
        assert [(c["algorithm"], c["algorithmName"]) for c in listed] == [(-7, "ES256"), (-8, "EdDSA")]
        assert served.ctl("status")["credentials"] == 2
        ed = listed[1]
        assertion = ctap.get_assertion("example.com", CLIENT_DATA_HASH, [descriptor(ed)])
        key = serialization.load_pem_public_key(ed["publicKeyPEM"].encode())
        assert isinstance(key, Ed25519PublicKey)
        key.verify(assertion.signature, bytes(assertion.auth_data) + CLIENT_DATA_HASH)
        added = served.ctl("credentials", "add", "--credential", "rp=example.org,user=carol,alg=EdDSA")["credential"]
        assert added["algorithm"] == -8
        device.close()
        served.ctl("tap", "--delay", "0")
        ctap, device = ctap2(served)
        ctap.reset()
        assert served.ctl("credentials", "list")["credentials"] == []
        assert served.ctl("status")["credentials"] == 0
    finally:
        device.close()

    image = tmp_path / "offline.img"
    run_json(str(served.binary), "image", "create", "--card", str(image), "--profile", "ctap-reference",
             "--credential", "rp=example.com,user=dave,alg=EdDSA")
    offline = run_json(str(served.binary), "image", "credentials", "list", "--card", str(image))["credentials"]
    assert [c["algorithmName"] for c in offline] == ["EdDSA"]
    refused = subprocess.run([str(served.binary), "image", "create", "--card", str(tmp_path / "fido21.img"),
                              "--credential", "rp=example.com,user=erin,alg=EdDSA"], capture_output=True, text=True)
    assert refused.returncode != 0 and "has no EdDSA credentials" in refused.stdout + refused.stderr
