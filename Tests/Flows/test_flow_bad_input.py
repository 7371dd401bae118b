"""Bad input at the command line: a value the SDK refuses exits 65 with 700 Invalid Input, names
the option and what is wrong in the CLI's terms, and leaves the card as it was (the card image's
bytes; on a reader, the card's credentials and PIN retries)."""

from __future__ import annotations

import hashlib

import pytest

from flow_rig import PIN, RP_ID, binary_path, challenge, run_sdk

CHALLENGE = challenge()
ORIGIN = "https://example.com"
ANYWAY = " (with --allow-rp-id-mismatch it is signed anyway, for a test that wants the mismatch)"
TOO_SHORT = "a PIN has at least 4 (CTAP 2.1 §6.5.1; the vendor asks apps for 6 or more digits)"
CANNOT_BE = ", so it cannot be the card's PIN; sending it would only cost one of the card's attempts"
SIXTEEN = "AAAAAAAAAAAAAAAAAAAAAA"  # base64url of 16 zero bytes


def card_only(operation: str, **changed: str) -> list[str]:
    """register-card-only / authenticate-card-only arguments with some options changed."""
    options = {"--pin": PIN, "--username": "alice", "--rp-id": "example.com", "--challenge": CHALLENGE, "--origin": ORIGIN}
    options.update({"--" + key.replace("_", "-"): value for key, value in changed.items()})
    return [operation] + [word for pair in options.items() for word in pair]


#: (arguments after `sdk`, kind, option, message)
CASES = [
    (card_only("register-card-only", rp_id=""), "invalidRPID", "--rp-id",
     "sdk register-card-only: --rp-id \"\" is empty; give the relying party's domain, e.g. example.com"),
    (card_only("register-card-only", rp_id="https://example.com"), "invalidRPID", "--rp-id",
     "sdk register-card-only: --rp-id \"https://example.com\" is a URL; give the relying party's domain, e.g. example.com"),
    (card_only("register-card-only", rp_id=" "), "invalidRPID", "--rp-id",
     "sdk register-card-only: --rp-id \" \" is blank; give the relying party's domain, e.g. example.com"),
    (card_only("register-card-only", rp_id="EXAMPLE.com"), "invalidRPID", "--rp-id",
     "sdk register-card-only: --rp-id \"EXAMPLE.com\" has capital letters; RP IDs are lowercase: example.com"),
    (card_only("register-card-only", rp_id="example.com:443"), "invalidRPID", "--rp-id",
     "sdk register-card-only: --rp-id \"example.com:443\" has a port; an RP ID is the domain alone: example.com"),
    (card_only("register-card-only", rp_id="example.com."), "invalidRPID", "--rp-id",
     "sdk register-card-only: --rp-id \"example.com.\" ends in a dot; give it without: example.com"),
    (card_only("register-card-only", rp_id="127.0.0.1"), "invalidRPID", "--rp-id",
     "sdk register-card-only: --rp-id \"127.0.0.1\" is an IP address; WebAuthn RP IDs are domain names "
     "(browsers refuse IP addresses), e.g. localhost for a local test server"),
    (card_only("register-card-only", rp_id="example.org"), "rpIDMismatch", "--rp-id",
     "sdk register-card-only: --rp-id \"example.org\" is neither the host of --origin \"https://example.com\" nor a "
     "registrable suffix of it, so a browser would refuse it (WebAuthn §5.1.3)" + ANYWAY),
    (card_only("register-card-only", rp_id="com"), "rpIDMismatch", "--rp-id",
     "sdk register-card-only: --rp-id \"com\" is a single label, a public suffix of the host of --origin "
     "\"https://example.com\", which no site may claim; give the registrable domain, e.g. example.com" + ANYWAY),
    (card_only("register-card-only", origin="https://example.com/"), "invalidOrigin", "--origin",
     "sdk register-card-only: --origin \"https://example.com/\" ends in '/'; an origin ends after the host and port: "
     "https://example.com"),
    (card_only("register-card-only", origin="example.com"), "invalidOrigin", "--origin",
     "sdk register-card-only: --origin \"example.com\" is not an origin: it has no scheme; give scheme and host, "
     "e.g. https://example.com"),
    (card_only("register-card-only", rp_id="localhost", origin="http://127.0.0.1:8080"), "rpIDMismatch", "--origin",
     "sdk register-card-only: --origin \"http://127.0.0.1:8080\" has an IP address for its host, and WebAuthn wants a "
     "domain there (§5.1.3), so no RP ID fits it; use http://localhost:8080" + ANYWAY),
    (card_only("register-card-only", challenge="not base64!"), "invalidChallenge", "--challenge",
     "sdk register-card-only: --challenge \"not base64!\" contains whitespace, which base64url has not"),
    (card_only("register-card-only", challenge="AAAA"), "invalidChallenge", "--challenge",
     "sdk register-card-only: --challenge \"AAAA\" is 3 bytes; WebAuthn challenges are at least 16 random bytes; "
     "pass the server's challenge as it sent it"),
    (card_only("register-card-only", challenge="q83v+jRWe-Crze8SNFZ4kA"), "invalidChallenge", "--challenge",
     "sdk register-card-only: --challenge \"q83v+jRWe-Crze8SNFZ4kA\" mixes base64url ('-' '_') and standard base64 "
     "('+' '/'); it is neither"),
    (card_only("register-card-only", pin="12"), "invalidPIN", "--pin",
     f"sdk register-card-only: --pin has 2 characters; {TOO_SHORT}{CANNOT_BE}"),
    (card_only("register-card-only", username=""), "invalidUser", "--username",
     "sdk register-card-only: --username \"\" is empty; give the account's name, e.g. alice@example.com"),
    (card_only("authenticate-card-only", rp_id=""), "invalidRPID", "--rp-id",
     "sdk authenticate-card-only: --rp-id \"\" is empty; give the relying party's domain, e.g. example.com"),
    (card_only("authenticate-card-only", allow_credentials="AAAA"), "invalidCredentialID", "--allow-credentials",
     "sdk authenticate-card-only: --allow-credentials \"AAAA\" is 3 bytes; credential IDs are 16 to 1023 bytes (WebAuthn §4)"),
    (card_only("authenticate-card-only", allow_credentials=SIXTEEN + ","), "invalidCredentialID", "--allow-credentials",
     "sdk authenticate-card-only: --allow-credentials \"\" is empty; give the id of a registration response (base64url)"),
    (["delete-credential", "--pin", PIN, "--credential-id", "abc!"], "invalidCredentialID", "--credential-id",
     "sdk delete-credential: --credential-id \"abc!\" has '!', which base64url has not (A-Z a-z 0-9 - _ only)"),
    (["set-pin", "--pin", "123"], "invalidPIN", "--pin", f"sdk set-pin: --pin has 3 characters; {TOO_SHORT}"),
    (["change-pin", "--old-pin", "12", "--new-pin", "24681357"], "invalidPIN", "--old-pin",
     f"sdk change-pin: --old-pin has 2 characters; {TOO_SHORT}{CANNOT_BE}"),
    (["change-pin", "--old-pin", PIN, "--new-pin", "9" * 64], "invalidPIN", "--new-pin",
     "sdk change-pin: --new-pin is 64 bytes of UTF-8; a PIN has at most 63"),
    (["reset-device", "--pin", "1"], "invalidPIN", "--pin", f"sdk reset-device: --pin has 1 character; {TOO_SHORT}"),
    (["list-credentials", "--pin", PIN, "--rp-id", "https://example.com/"], "invalidRPID", "--rp-id",
     "sdk list-credentials: --rp-id \"https://example.com/\" is a URL; give the relying party's domain, e.g. example.com"),
    (["register-user", "--server", "ftp://fido.example.com", "--pin", PIN, "--username", "alice", "--rp-id", RP_ID],
     "invalidServer", "--server",
     "sdk register-user: --server \"ftp://fido.example.com\" is not a server address; give a host name (https) or "
     "http(s)://host:port"),
    (["authenticate-user", "--server", "http://fido.example.com", "--pin", PIN, "--username", "alice", "--rp-id", RP_ID],
     "invalidServer", "--server",
     "sdk authenticate-user: --server \"http://fido.example.com\" gives the origin \"http://fido.example.com\", which is "
     "http; WebAuthn needs a secure origin, https (http only for localhost and loopback addresses): https://fido.example.com"),
    (["register-user", "--server", "http://localhost:9", "--pin", PIN, "--username", "alice", "--rp-id", "https://x.example"],
     "invalidRPID", "--rp-id",
     "sdk register-user: --rp-id \"https://x.example\" is a URL; give the relying party's domain, e.g. x.example"),
    (["register-via-backend", "--backend", "backend.example.com", "--pin", PIN, "--username", "alice", "--rp-id", RP_ID],
     "invalidServer", "--backend",
     "sdk register-via-backend: --backend \"backend.example.com\" is not a server address; give a host name (https) or "
     "http(s)://host:port"),
    (["authenticate-via-backend", "--backend", "http://localhost:9", "--pin", PIN, "--username", " ", "--rp-id", RP_ID],
     "invalidUser", "--username",
     "sdk authenticate-via-backend: --username \" \" is blank; give the account's name, e.g. alice@example.com"),
]


@pytest.fixture(scope="module")
def image(tmp_path_factory):
    """A card image with a PIN and one credential, made once; each test checks it is unchanged."""
    path = tmp_path_factory.mktemp("bad-input") / "card.img"
    args = ["--card-image", str(path)]
    run_sdk(binary_path(), "set-pin", args, "--pin", PIN).ok()
    run_sdk(binary_path(), "register-card-only", args, *card_only("register-card-only")[1:]).ok()
    return path


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("arguments, kind, option, message", CASES, ids=[" ".join(c[0])[:60] for c in CASES])
def test_refused_before_the_card(image, sdk_binary, arguments, kind, option, message):
    before = digest(image)
    result = run_sdk(sdk_binary, arguments[0], ["--card-image", str(image)], *arguments[1:])
    result.refused(kind, option, message)
    assert digest(image) == before, "the card image is byte for byte as it was"


def test_refused_on_a_reader_leaves_the_card_alone(card):
    """Through pcscd too (and on an image): after a refused registration the card holds what it
    held and no PIN attempt was used; the served card saw no APDU for it."""
    def apdus():
        """The served card's APDU trace ('>' commands, '<' answers); pcscd's own power events
        (it powers an idle card down after a while) are not the SDK's."""
        text = card.served.stderr() if card.served else ""
        return [line for line in text.splitlines() if line.startswith((">", "<"))]

    registered = card.sdk(*card_only("register-card-only")).ok()["id"]
    trace = apdus()
    assert not card.served or trace, "the trace shows the registration's APDUs"
    for arguments, kind, option, message in CASES[:3] + CASES[7:9]:
        card.sdk(*arguments).refused(kind, option, message)
    if card.served:
        assert apdus() == trace, "no APDU reached the served card"
    assert card.credential_ids() == [registered]
    assert card.sdk("info").ok()["pinRetries"] == 8


def test_allow_rp_id_mismatch_signs_what_it_is_given(card):
    """The rare test that wants a mismatch: the credential is made for the RP ID as given."""
    made = card.sdk(*card_only("register-card-only", rp_id="example.org"), "--allow-rp-id-mismatch").ok()
    listed = card.sdk("list-credentials", "--pin", PIN, "--rp-id", "example.org").ok()["credentials"]
    assert [c["credentialId"] for c in listed] == [made["id"]]
    card.sdk(*card_only("authenticate-card-only", rp_id="example.org"), "--allow-rp-id-mismatch").ok()
    card.sdk(*card_only("authenticate-card-only", rp_id="example.org")).refused(
        "rpIDMismatch", "--rp-id", CASES[7][3].replace("register-card-only", "authenticate-card-only"))


def test_server_rp_id_that_does_not_fit_its_origin(card):
    """A FIDO2 server whose RP ID its own origin cannot claim is the server's fault: 601, naming the
    server's values, nothing registered; --allow-rp-id-mismatch signs anyway."""
    from flow_rig import ConformanceServer

    server = ConformanceServer(rp_id="example.com").start()
    try:
        args = ["--server", server.url, "--pin", PIN, "--username", "alice", "--rp-id", "example.com"]
        error = card.sdk("register-user", *args).failed(601)
        assert error["message"] == (
            "sdk register-user: the FIDO2 server's registration options: the RP ID \"example.com\" is neither the host "
            f"of the server's origin \"{server.url}\" nor a registrable suffix of it, so a browser would refuse it "
            "(WebAuthn §5.1.3)" + ANYWAY)
        assert card.credential_ids() == []
        registered = card.sdk("register-user", *args, "--allow-rp-id-mismatch").ok()
        assert card.credential_ids() == [registered["credentialId"]]
    finally:
        server.stop()
