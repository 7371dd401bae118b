"""No secret a client sees or derives reaches `arculus-card serve --verbose`'s trace or log.

One ctap-reference card (every CTAP feature on) is driven through every CTAP command and U2F by
python-fido2 over pcscd + vpcd: reset, getInfo, clientPIN (every subcommand the card has, both
PIN protocols), makeCredential and getAssertion / getNextAssertion with largeBlobKey,
hmac-secret and hmac-secret-mc, credential management (0x0A and the 0x41 preview), selection,
large blobs, authenticatorConfig, the bio enrollment commands it refuses, and U2F version /
register / authenticate. The secrets it collects on the way — PINs and their hashes, every
shared secret, every PIN/UV auth token (the persistent one too), the encrypted forms the card
sent, every largeBlobKey, the hmac-secret outputs, the pinUvAuthParams and salts it sent, a
large blob's plaintext — are then looked for in serve's stderr (trace and log) as hex (any case,
spaced or not: 8 bytes in a row), base64 and base64url.
"""

from __future__ import annotations

import base64
import os

import pytest
from fido2 import cbor
from fido2.ctap import CtapError
from fido2.ctap1 import Ctap1
from fido2.ctap2 import Ctap2
from fido2.ctap2.blob import LargeBlobs
from fido2.ctap2.config import Config
from fido2.ctap2.credman import CredentialManagement
from fido2.ctap2.pin import ClientPin, PinProtocolV1, PinProtocolV2
from fido2.utils import sha256

from test_secrets import _normalized, _sent_ctap_requests, _shows, verbose_served

PIN, NEW_PIN = "31415926", "27182818"
RP = {"id": "example.com", "name": "Example"}
PERMISSION = ClientPin.PERMISSION


@pytest.fixture
def reference_card(pcsc_reader, tmp_path):
    """A ctap-reference card served with --verbose."""
    with verbose_served(tmp_path, ["--profile", "ctap-reference"]) as served:
        yield served


class Secrets:
    """What the client saw or derived, by name."""

    def __init__(self):
        self.values: list[tuple[str, bytes]] = []

    def add(self, name: str, value: bytes | None):
        if value:
            self.values.append((name, bytes(value)))


@pytest.fixture
def secrets(monkeypatch):
    """Every shared secret python-fido2 derives, recorded as it is made."""
    found = Secrets()
    original = PinProtocolV1.encapsulate

    def recording(self, peer_cose_key):
        key_agreement, shared_secret = original(self, peer_cose_key)
        found.add(f"shared secret (protocol {self.VERSION})", shared_secret)
        return key_agreement, shared_secret

    monkeypatch.setattr(PinProtocolV1, "encapsulate", recording)
    return found


def _hmac_secret_input(ctap2, protocol, salts: bytes, found: Secrets):
    """The hmac-secret input for `salts`, and the shared secret that decrypts the output."""
    key_agreement, shared_secret = ClientPin(ctap2, protocol)._get_shared_secret()
    salt_enc = protocol.encrypt(shared_secret, salts)
    salt_auth = protocol.authenticate(shared_secret, salt_enc)
    found.add("saltEnc", salt_enc)
    found.add("saltAuth", salt_auth)
    return {1: key_agreement, 2: salt_enc, 3: salt_auth, 4: protocol.VERSION}, shared_secret


def _every_command(ctap2: Ctap2, device, found: Secrets):
    ctap2.reset()  # within the reset window of the card's first power-up
    info = ctap2.get_info()
    assert "FIDO_2_1" in info.versions and info.options.get("credentialMgmtPreview")

    # clientPIN: setPIN, getPINRetries, changePIN both ways, getPinToken, the permissions token.
    v1, v2 = PinProtocolV1(), PinProtocolV2()
    ClientPin(ctap2, v2).set_pin(PIN)
    assert ClientPin(ctap2, v1).get_pin_retries()[0] == 8
    for protocol in (v1, v2):
        ClientPin(ctap2, protocol).change_pin(PIN, NEW_PIN)
        ClientPin(ctap2, protocol).change_pin(NEW_PIN, PIN)
    for pin in (PIN, NEW_PIN):
        found.add(f"PIN {pin}", pin.encode())
        found.add(f"PIN hash {pin}", sha256(pin.encode())[:16])
    legacy = ClientPin(ctap2, v1).get_pin_token(PIN)  # getPinToken (0x05)
    found.add("getPinToken token", legacy)
    mc_ga = PERMISSION.MAKE_CREDENTIAL | PERMISSION.GET_ASSERTION
    token = ClientPin(ctap2, v2).get_pin_token(PIN, mc_ga, RP["id"])
    found.add("mc|ga token", token)

    # makeCredential: two discoverable credentials with largeBlobKey, hmac-secret and hmac-secret-mc.
    made = []
    for n in range(2):
        token = ClientPin(ctap2, v2).get_pin_token(PIN, mc_ga, RP["id"])
        found.add(f"token {n}", token)
        salts = os.urandom(32)
        mc_input, mc_secret = _hmac_secret_input(ctap2, v2, salts, found)
        client_data_hash = sha256(b"mc %d" % n)
        response = ctap2.make_credential(
            client_data_hash, RP, {"id": b"user%d" % n, "name": "user %d" % n},
            [{"type": "public-key", "alg": -7}],
            extensions={"largeBlobKey": True, "hmac-secret": True, "hmac-secret-mc": mc_input, "credBlob": b"blob"},
            options={"rk": True}, pin_uv_param=v2.authenticate(token, client_data_hash), pin_uv_protocol=2)
        assert response.large_blob_key, "makeCredential returned no largeBlobKey"
        found.add("largeBlobKey (makeCredential)", response.large_blob_key)
        encrypted = response.auth_data.extensions["hmac-secret-mc"]
        found.add("hmac-secret-mc output (encrypted)", encrypted)
        found.add("hmac-secret-mc output", v2.decrypt(mc_secret, encrypted))
        made.append(response)

    # getAssertion with both outputs, then getNextAssertion.
    for protocol in (v1, v2):
        token = ClientPin(ctap2, protocol).get_pin_token(PIN, PERMISSION.GET_ASSERTION, RP["id"])
        found.add(f"ga token (protocol {protocol.VERSION})", token)
        ga_input, ga_secret = _hmac_secret_input(ctap2, protocol, os.urandom(64), found)
        client_data_hash = sha256(b"ga %d" % protocol.VERSION)
        first = ctap2.get_assertion(RP["id"], client_data_hash, extensions={"hmac-secret": ga_input, "largeBlobKey": True},
                                    pin_uv_param=protocol.authenticate(token, client_data_hash),
                                    pin_uv_protocol=protocol.VERSION)
        assert first.number_of_credentials == 2
        following = ctap2.get_next_assertion()
        for assertion in (first, following):
            found.add("largeBlobKey (getAssertion)", assertion.large_blob_key)
            encrypted = assertion.auth_data.extensions["hmac-secret"]
            found.add("hmac-secret output (encrypted)", encrypted)
            found.add("hmac-secret output", protocol.decrypt(ga_secret, encrypted))

    # Credential management, 0x0A and the 0x41 preview.
    cm_token = ClientPin(ctap2, v2).get_pin_token(PIN, PERMISSION.CREDENTIAL_MGMT)
    found.add("cm token", cm_token)
    credman = CredentialManagement(ctap2, v2, cm_token)
    assert credman.get_metadata()[1] == 2
    assert [rp[3]["id"] for rp in credman.enumerate_rps()] == [RP["id"]]
    credentials = credman.enumerate_creds(sha256(RP["id"].encode()))
    for credential in credentials:
        found.add("largeBlobKey (credential management)", credential.get(0x0B))
    descriptor = credentials[0][7]
    credman.update_user_info(descriptor, {"id": credentials[0][6]["id"], "name": "renamed"})
    message = bytes([0x01])
    preview = ctap2.send_cbor(0x41, {1: 1, 3: 2, 4: v2.authenticate(cm_token, message)})
    assert preview[1] == 2
    persistent = ClientPin(ctap2, v2).get_pin_token(PIN, PERMISSION.PERSISTENT_CREDENTIAL_MGMT)
    found.add("persistent token", persistent)
    assert CredentialManagement(ctap2, v2, persistent).get_metadata()[1] == 2
    assert ctap2.get_info().enc_identifier

    # Large blobs: a blob under each credential's largeBlobKey.
    lbw = ClientPin(ctap2, v2).get_pin_token(PIN, PERMISSION.LARGE_BLOB_WRITE)
    found.add("lbw token", lbw)
    blobs = LargeBlobs(ctap2, v2, lbw)
    plaintext = b"large blob plaintext " + os.urandom(16)
    found.add("large blob plaintext", plaintext)
    blobs.put_blob(made[0].large_blob_key, plaintext)
    assert LargeBlobs(ctap2).get_blob(made[0].large_blob_key) == plaintext

    # authenticatorConfig, selection, the bio enrollment commands the card does not have.
    acfg = ClientPin(ctap2, v2).get_pin_token(PIN, PERMISSION.AUTHENTICATOR_CFG)
    found.add("acfg token", acfg)
    config = Config(ctap2, v2, acfg)
    config.toggle_always_uv()
    config.toggle_always_uv()
    config.enable_enterprise_attestation()
    config.set_min_pin_length(min_pin_length=6)
    ctap2.selection()
    for command in (0x09, 0x40):
        with pytest.raises(CtapError):
            ctap2.send_cbor(command, {1: 1, 2: 4})

    # credential management's delete, last.
    delete_token = ClientPin(ctap2, v1).get_pin_token(PIN, PERMISSION.CREDENTIAL_MGMT)
    found.add("delete token", delete_token)
    CredentialManagement(ctap2, v1, delete_token).delete_cred(descriptor)

    # U2F.
    ctap1 = Ctap1(device)
    assert ctap1.get_version() == "U2F_V2"
    application = sha256(b"https://u2f.example")
    registration = ctap1.register(os.urandom(32), application)
    ctap1.authenticate(os.urandom(32), application, registration.key_handle)


def _encodings(value: bytes) -> list[str]:
    return [base64.b64encode(value).decode().rstrip("="), base64.urlsafe_b64encode(value).decode().rstrip("=")]


def test_no_secret_of_any_command_in_the_trace(reference_card, traffic, secrets):
    device = reference_card.device()
    try:
        _every_command(Ctap2(device), device, secrets)
    finally:
        device.close()
    for request in _sent_ctap_requests(traffic.sent()):
        if len(request) < 2 or request[0] not in (0x01, 0x02, 0x06, 0x0A, 0x0C, 0x0D, 0x41):
            continue
        body = cbor.decode(request[1:])
        key = {0x01: 8, 0x02: 6, 0x06: 4, 0x0A: 4, 0x0C: 5, 0x0D: 4, 0x41: 4}[request[0]]
        secrets.add(f"pinUvAuthParam of command 0x{request[0]:02X}", body.get(key))
        if request[0] == 0x06:
            secrets.add("newPinEnc", body.get(5))
            secrets.add("pinHashEnc", body.get(6))

    names = {name.split(" (")[0] for name, _ in secrets.values}
    for expected in ("shared secret", "largeBlobKey", "hmac-secret output", "persistent token", "pinUvAuthParam of command 0x0A"):
        assert any(name.startswith(expected) for name in names), f"the workload collected no {expected}"

    trace = reference_card.stderr()
    for marker in ("authenticatorLargeBlobs", "authenticatorCredentialManagement (preview)", "authenticatorSelection",
                   "authenticatorConfig", "authenticatorReset", "authenticatorGetNextAssertion", "U2F"):
        assert marker in trace, f"the --verbose trace shows no {marker}"
    trace_hex = _normalized(trace)
    for name, value in secrets.values:
        assert not _shows(value, trace_hex), f"the --verbose trace shows 8 bytes in a row of the {name}"
        if len(value) >= 8:
            for encoded in _encodings(value):
                assert encoded not in trace, f"the --verbose trace shows the {name} in base64"
    for pin in (PIN, NEW_PIN):
        assert pin not in trace
