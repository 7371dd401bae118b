"""Helpers shared by the interop tests: a relying party with attestation checking, a client
that knows the PIN, and the emulator's attestation root."""

from __future__ import annotations

from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from fido2.attestation import AttestationVerifier
from fido2.client import DefaultClientDataCollector, Fido2Client, UserInteraction
from fido2.server import Fido2Server

REPO = Path(__file__).resolve().parents[2]
ROOT_CA = REPO / "Fixtures" / "attestation" / "emulator-root-ca.pem"
RP = {"id": "example.com", "name": "Example RP"}
ORIGIN = "https://example.com"


def root_certificate_der() -> bytes:
    assert ROOT_CA.exists(), f"the emulator's attestation root is missing: {ROOT_CA}"
    return x509.load_pem_x509_certificate(ROOT_CA.read_bytes()).public_bytes(Encoding.DER)


class EmulatorRootVerifier(AttestationVerifier):
    """Trusts exactly the emulator's attestation root."""

    def __init__(self):
        super().__init__()
        self.root = root_certificate_der()
        self.checked = 0

    def ca_lookup(self, attestation_result, auth_data):
        self.checked += 1
        return self.root


def server(verifier: EmulatorRootVerifier | None = None) -> Fido2Server:
    return Fido2Server(RP, attestation="direct", verify_attestation=verifier)


class PinInteraction(UserInteraction):
    def __init__(self, pin: str | None = None):
        self.pin = pin
        self.pin_requests = 0

    def request_pin(self, permissions, rp_id):
        self.pin_requests += 1
        return self.pin


def client(device, pin: str | None = None) -> Fido2Client:
    return Fido2Client(device, DefaultClientDataCollector(ORIGIN), user_interaction=PinInteraction(pin))


def user(name: str = "alice", user_id: bytes = b"user-id-alice") -> dict:
    return {"id": user_id, "name": name, "displayName": name.title()}
