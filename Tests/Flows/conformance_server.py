"""A FIDO2 server written from the text of the FIDO Alliance's conformance server API
("FIDO2: Conformance testing server API", fido-alliance/conformance-test-tools-resources,
docs/FIDO2/Server/Conformance-Test-API.md), the REST shape the vendor's FIDO2 server follows
(`/fidoapi/certify/attestation/options` ...), verifying with a WebAuthn library of its own
(py_webauthn, PyPI `webauthn`), not with anything of the project's.

Strict, so that a client that does not speak the text's members is refused:

- every request member the text names is checked (required present, types, enumerations), and a
  member it does not name is refused with `unknown member 'X' in <dictionary>`; the members a
  result's `response` may have beyond the text's are WebAuthn's own for that dictionary
  (Level 3's AuthenticatorAttestationResponseJSON: `authenticatorData`, `transports`,
  `publicKey`, `publicKeyAlgorithm`), each checked against the attestation object;
- beyond the text, a result may carry `rawId` (WebAuthn's PublicKeyCredential member; it must
  equal `id`), and the vendor REST API's `username` (the seed servlet sends it; it must be the
  session's user) and `registrationInfo` (the seed's `registerUser(registrationInfo:)`). Nothing
  else: `clientExtensionResults` (WebAuthn's name) and `authenticatorAttachment` are refused at
  the top level, where the text names `getClientExtensionResults`;
- answers are `ServerResponse`s: `{"status": "ok", "errorMessage": ""}` plus the options, or
  `{"status": "failed", "errorMessage": "..."}` with HTTP 4xx/5xx (401 when no session matches);
- `userHandle` of an assertion is required (it may be `""`), and when not empty it must be the
  `user.id` this server issued for the credential's user (the text: "Corresponding to registered
  user ServerPublicKeyCredentialUserEntity.id");
- attestation: `direct` asked, a packed statement must chain to the emulator's root
  (Fixtures/attestation/emulator-root-ca.pem) and `none` is refused; `none` asked, `none` is taken.

`user_ids` says what `user.id` is: "random" (16 random bytes, as servers do) or "username" (the
UTF-8 user name: what a server must issue for credentials registered with the sample app's
`registerCardOnly`, which takes no user ID; see README, "What a server must accept").

Paths: the text's `/attestation/options` etc., the vendor's `/fidoapi/certify/...`, and the
`/fidoapi/register/begin`-style aliases the seed servlet configures.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from webauthn import verify_authentication_response, verify_registration_response
from webauthn.helpers import decode_credential_public_key, decoded_public_key_to_cryptography, parse_attestation_object
from webauthn.helpers.exceptions import InvalidAuthenticationResponse, InvalidRegistrationResponse
from webauthn.helpers.structs import AttestationFormat

from http_app import App

REPO = Path(__file__).resolve().parents[2]
ROOT_CA = REPO / "Fixtures" / "attestation" / "emulator-root-ca.pem"
SESSION_COOKIE = "FIDOSESSION"

REGISTER_OPTIONS = ("/attestation/options", "/fidoapi/certify/attestation/options", "/fidoapi/register/begin")
REGISTER_RESULT = ("/attestation/result", "/fidoapi/certify/attestation/result", "/fidoapi/register/complete")
ASSERT_OPTIONS = ("/assertion/options", "/fidoapi/certify/assertion/options", "/fidoapi/authenticate/begin")
ASSERT_RESULT = ("/assertion/result", "/fidoapi/certify/assertion/result", "/fidoapi/authenticate/complete")

ATTESTATION = ("none", "indirect", "direct", "enterprise")
USER_VERIFICATION = ("required", "preferred", "discouraged")


class Refused(Exception):
    """A request the server refuses: HTTP `status`, `errorMessage` the text."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text, what: str) -> bytes:
    if not isinstance(text, str):
        raise Refused(f"{what} is not a string")
    if any(c not in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_" for c in text):
        raise Refused(f"{what} is not base64url")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError as error:
        raise Refused(f"{what} is not base64url: {error}") from None


def members(value, dictionary: str, required: dict, optional: dict) -> dict:
    """`value` as the IDL dictionary `dictionary`: an object with every `required` member and no
    member outside `required` and `optional`; each maps to its Python type (or a tuple of allowed
    strings)."""
    if not isinstance(value, dict):
        raise Refused(f"{dictionary} is not a JSON object")
    for name in value:
        if name not in required and name not in optional:
            raise Refused(f"unknown member '{name}' in {dictionary}")
    for name in required:
        if name not in value:
            raise Refused(f"{dictionary} has no '{name}', which it requires")
    for name, kind in {**required, **optional}.items():
        if name not in value:
            continue
        item = value[name]
        if isinstance(kind, tuple):
            if item not in kind:
                raise Refused(f"{dictionary}.{name} is {json.dumps(item)}, not one of {', '.join(kind)}")
        elif kind is int:
            if not isinstance(item, int) or isinstance(item, bool):
                raise Refused(f"{dictionary}.{name} is not an integer")
        elif not isinstance(item, kind):
            raise Refused(f"{dictionary}.{name} is not a {kind.__name__}")
    return value


@dataclass
class Credential:
    credential_id: bytes
    public_key: bytes  # COSE
    sign_count: int
    username: str


@dataclass
class Account:
    user_id: bytes
    display_name: str
    credentials: list = field(default_factory=list)
    registration_info: list = field(default_factory=list)


class ConformanceServer(App):
    """The server; `registered` and `authenticated` are its own record (credential IDs, in order)."""

    def __init__(self, rp_id: str = "localhost", user_ids: str = "random", port: int = 0):
        super().__init__(host_name="localhost", port=port)
        assert user_ids in ("random", "username")
        self.rp_id = rp_id
        self.user_ids = user_ids
        self.origin = self.url
        self.root = ROOT_CA.read_bytes()
        self.accounts: dict[str, Account] = {}
        self.sessions: dict[str, dict] = {}
        self.registered: list[bytes] = []
        self.authenticated: list[bytes] = []
        #: Attestation formats verified, in order.
        self.formats: list[str] = []
        #: When set, the attestation every registration's options ask for, whatever was requested
        #: (a server's policy: "none" for one that wants no attestation).
        self.attestation_policy: str | None = None
        #: When set, the next registration result is refused with this message (after verification).
        self.reject_next_registration: str | None = None
        #: Called with "register" or "authenticate" before an options answer is sent.
        self.before_options = None
        #: {route kind: (HTTP status, body bytes, seconds to wait first)}: the next request of
        #: that kind ("register-options", "register-result", "assert-options", "assert-result")
        #: gets this raw answer instead.
        self.misbehave: dict[str, tuple[int, bytes, float]] = {}

    # -- routing

    def answer(self, path, body, cookies, raw):
        route = path.split("?", 1)[0]
        kind = ("register-options" if route in REGISTER_OPTIONS else "register-result" if route in REGISTER_RESULT
                else "assert-options" if route in ASSERT_OPTIONS else "assert-result" if route in ASSERT_RESULT else None)
        if kind in self.misbehave:
            status, data, delay = self.misbehave.pop(kind)
            time.sleep(delay)
            return status, data, None
        try:
            if body is None:
                raise Refused("the body is not JSON")
            if kind == "register-options":
                return self._register_options(body)
            if kind == "register-result":
                return self._register_result(body, cookies)
            if kind == "assert-options":
                return self._assert_options(body)
            if kind == "assert-result":
                return self._assert_result(body, cookies)
            raise Refused(f"no endpoint {route}", 404)
        except Refused as refusal:
            return refusal.status, {"status": "failed", "errorMessage": str(refusal)}, None

    def _new_session(self, state: dict) -> str:
        token = secrets.token_urlsafe(16)
        with self.lock:
            self.sessions[token] = state
        return f"{SESSION_COOKIE}={token}; Path=/; HttpOnly"

    def _session(self, cookies: dict, kind: str) -> dict:
        with self.lock:
            state = self.sessions.pop(cookies.get(SESSION_COOKIE, ""), None)
        if state is None or state["kind"] != kind:
            raise Refused("no session for this result (the session cookie is missing or expired)", 401)
        return state

    # -- registration

    def _register_options(self, body):
        request = members(body, "ServerPublicKeyCredentialCreationOptionsRequest",
                          {"username": str, "displayName": str},
                          {"authenticatorSelection": dict, "attestation": ATTESTATION})
        selection = members(request.get("authenticatorSelection", {}), "AuthenticatorSelectionCriteria", {},
                            {"authenticatorAttachment": ("platform", "cross-platform"), "requireResidentKey": bool,
                             "residentKey": ("discouraged", "preferred", "required"), "userVerification": USER_VERIFICATION})
        username = request["username"]
        if not username:
            raise Refused("username is empty")
        with self.lock:
            account = self.accounts.get(username)
            if account is None:
                user_id = os.urandom(16) if self.user_ids == "random" else username.encode()
                account = self.accounts[username] = Account(user_id, request["displayName"] or username)
        challenge = os.urandom(32)
        attestation = self.attestation_policy or request.get("attestation", "none")
        options = {
            "status": "ok", "errorMessage": "",
            "rp": {"id": self.rp_id, "name": "Conformance API test RP"},
            "user": {"id": b64url(account.user_id), "name": username, "displayName": request["displayName"] or username},
            "challenge": b64url(challenge),
            "pubKeyCredParams": [{"type": "public-key", "alg": -7}, {"type": "public-key", "alg": -257}],
            "timeout": 60000,
            "excludeCredentials": [{"type": "public-key", "id": b64url(c.credential_id)} for c in account.credentials],
            "attestation": attestation,
        }
        if selection:
            options["authenticatorSelection"] = selection
        cookie = self._new_session({"kind": "register", "username": username, "challenge": challenge,
                                    "attestation": attestation, "uv": selection.get("userVerification", "preferred")})
        if self.before_options:
            self.before_options("register")
        return 200, options, cookie

    def _credential(self, body: dict, response_required: dict, response_optional: dict) -> dict:
        credential = members(body, "ServerPublicKeyCredential",
                             {"type": ("public-key",), "id": str, "response": dict},
                             {"getClientExtensionResults": dict, "rawId": str, "username": str, "registrationInfo": str})
        b64url_decode(credential["id"], "ServerPublicKeyCredential.id")
        if "rawId" in credential and credential["rawId"] != credential["id"]:
            raise Refused("ServerPublicKeyCredential.rawId is not its id")
        members(credential["response"], "ServerAuthenticatorResponse", response_required, response_optional)
        return credential

    def _register_result(self, body, cookies):
        session = self._session(cookies, "register")
        credential = self._credential(
            body, {"clientDataJSON": str, "attestationObject": str},
            {"authenticatorData": str, "transports": list, "publicKey": str, "publicKeyAlgorithm": int})
        if credential.get("username", session["username"]) != session["username"]:
            raise Refused("the result is for another user than the options")
        response = credential["response"]
        attestation = parse_attestation_object(b64url_decode(response["attestationObject"], "attestationObject"))
        fmt = attestation.fmt.value if hasattr(attestation.fmt, "value") else str(attestation.fmt)
        if session["attestation"] == "direct" and fmt == "none":
            raise Refused("direct attestation was asked for and none was given")
        try:
            verified = verify_registration_response(
                credential={"id": credential["id"], "rawId": credential["id"], "type": "public-key",
                            "response": {"clientDataJSON": response["clientDataJSON"],
                                         "attestationObject": response["attestationObject"]}},
                expected_challenge=session["challenge"], expected_rp_id=self.rp_id, expected_origin=self.origin,
                require_user_verification=session["uv"] == "required",
                pem_root_certs_bytes_by_fmt={AttestationFormat.PACKED: [self.root]})
        except InvalidRegistrationResponse as error:
            raise Refused(f"the registration does not verify: {error}") from None
        self._check_level_three(response, attestation, verified)
        if self.reject_next_registration is not None:
            message, self.reject_next_registration = self.reject_next_registration, None
            raise Refused(message)
        with self.lock:
            account = self.accounts[session["username"]]
            account.credentials.append(Credential(verified.credential_id, verified.credential_public_key,
                                                  verified.sign_count, session["username"]))
            if "registrationInfo" in credential:
                account.registration_info.append(credential["registrationInfo"])
            self.registered.append(verified.credential_id)
            self.formats.append(fmt)
        return 200, {"status": "ok", "errorMessage": ""}, None

    @staticmethod
    def _check_level_three(response: dict, attestation, verified):
        """WebAuthn Level 3's extra members, when present, must say what the attestation object says."""
        if "authenticatorData" in response:
            raw = attestation_raw_auth_data(b64url_decode(response["attestationObject"], "attestationObject"))
            if b64url_decode(response["authenticatorData"], "authenticatorData") != raw:
                raise Refused("response.authenticatorData is not the attestation object's authData")
        if "transports" in response and not all(isinstance(t, str) for t in response["transports"]):
            raise Refused("response.transports is not a list of strings")
        key = decode_credential_public_key(verified.credential_public_key)
        if "publicKeyAlgorithm" in response and response["publicKeyAlgorithm"] != key.alg:
            raise Refused(f"response.publicKeyAlgorithm is {response['publicKeyAlgorithm']}, the credential's key is {key.alg}")
        if "publicKey" in response:
            spki = decoded_public_key_to_cryptography(key).public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
            if b64url_decode(response["publicKey"], "publicKey") != spki:
                raise Refused("response.publicKey is not the credential's key (SubjectPublicKeyInfo DER)")

    # -- authentication

    def _assert_options(self, body):
        request = members(body, "ServerPublicKeyCredentialGetOptionsRequest", {"username": str},
                          {"userVerification": USER_VERIFICATION})
        account = self.accounts.get(request["username"])
        if account is None or not account.credentials:
            raise Refused("User does not exists!")
        challenge = os.urandom(32)
        uv = request.get("userVerification", "preferred")
        cookie = self._new_session({"kind": "authenticate", "username": request["username"], "challenge": challenge, "uv": uv})
        if self.before_options:
            self.before_options("authenticate")
        return 200, {"status": "ok", "errorMessage": "", "challenge": b64url(challenge), "timeout": 60000, "rpId": self.rp_id,
                     "allowCredentials": [{"type": "public-key", "id": b64url(c.credential_id)} for c in account.credentials],
                     "userVerification": uv}, cookie

    def _assert_result(self, body, cookies):
        session = self._session(cookies, "authenticate")
        credential = self._credential(
            body, {"clientDataJSON": str, "authenticatorData": str, "signature": str, "userHandle": str}, {})
        if credential.get("username", session["username"]) != session["username"]:
            raise Refused("the result is for another user than the options")
        account = self.accounts[session["username"]]
        credential_id = b64url_decode(credential["id"], "id")
        stored = next((c for c in account.credentials if c.credential_id == credential_id), None)
        if stored is None:
            raise Refused("the credential is not one of this user's")
        response = credential["response"]
        if response["userHandle"] and b64url_decode(response["userHandle"], "userHandle") != account.user_id:
            raise Refused("userHandle is not the user.id this server issued for the credential's user")
        webauthn_response = {k: response[k] for k in ("clientDataJSON", "authenticatorData", "signature")}
        if response["userHandle"]:
            webauthn_response["userHandle"] = response["userHandle"]
        try:
            verified = verify_authentication_response(
                credential={"id": credential["id"], "rawId": credential["id"], "type": "public-key", "response": webauthn_response},
                expected_challenge=session["challenge"], expected_rp_id=self.rp_id, expected_origin=self.origin,
                credential_public_key=stored.public_key, credential_current_sign_count=stored.sign_count,
                require_user_verification=session["uv"] == "required")
        except InvalidAuthenticationResponse as error:
            raise Refused(f"the assertion does not verify: {error}") from None
        with self.lock:
            stored.sign_count = verified.new_sign_count
            self.authenticated.append(credential_id)
        return 200, {"status": "ok", "errorMessage": ""}, None


def attestation_raw_auth_data(attestation_object: bytes) -> bytes:
    """The authData bytes inside an attestation object (CBOR map with text keys)."""
    import cbor2

    return cbor2.loads(attestation_object)["authData"]
