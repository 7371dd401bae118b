"""Transcripts say what they assume. Findings: `pcsc record` wrote no `@profile`, so replaying a
recording of a ctap-reference card silently assumed arculus-fido21 and failed on
`response.versions{1}`; the stand-in answers with the recorded signatures, which no verifying server
accepts for a fresh challenge, while serve reports no mismatch — and the README offered it as a way
to test a host without saying so.

- `pcsc record` writes `@profile`: --profile, else the built-in profile the card's getInfo names,
  else the card's identity captured to FILE.profile.json; stderr says which. `replay` says which
  profile it used and whether it was assumed.
- A stand-in's recorded signatures do not verify against a fresh challenge (python-fido2's
  Fido2Server refuses them) though the stand-in reports no mismatch; the emulated card, replayed
  against the same transcript, signs afresh and a structural replay verifies every signature.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest
from fido2.attestation import InvalidSignature

import interop_support as support
import record_fixtures as fixtures

BINARY = fixtures.binary()
SELECT = "00A4040008A0000006472F000100"
GET_INFO = "80108000010400"


def run(*arguments: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(BINARY), *arguments], capture_output=True, text=True, timeout=60, cwd=cwd)


def record(card, output: Path, *extra: str) -> subprocess.CompletedProcess:
    done = run("pcsc", "record", "--reader", card.reader, "--wait", "10", "--follow-chaining", "--output", str(output),
               *extra, SELECT, GET_INFO)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def headers(path: Path) -> dict[str, str]:
    return dict(line[1:].split(" ", 1) for line in path.read_text().splitlines() if line.startswith("@"))


def test_a_recording_names_the_built_in_profile_its_card_reports(pcsc_reader, tmp_path):
    recording = tmp_path / "ctap-reference.transcript"
    with fixtures.served(["--profile", "ctap-reference", "--no-control"], tmp_path) as card:
        done = record(card, recording)
    assert headers(recording)["profile"] == "ctap-reference"
    assert "@profile ctap-reference: the card's getInfo is that profile's (AAGUID, versions, extensions)\n" in done.stderr
    replay = run("replay", str(recording))
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert replay.stderr.splitlines()[0] == "arculus-card replay: against profile ctap-reference, the transcript's @profile"

    # Without the header the replay assumes the default, says so, and differs at getInfo.
    bare = tmp_path / "bare.transcript"
    bare.write_text("".join(line for line in recording.read_text().splitlines(keepends=True) if not line.startswith("@profile")))
    replay = run("replay", str(bare))
    assert replay.returncode == 1
    assert replay.stderr.splitlines()[0] == ("arculus-card replay: against profile arculus-fido21, assumed: the transcript has no "
                                             "@profile (--profile names the card's)")
    assert "first difference: response.versions{1}" in replay.stdout
    given = run("replay", str(bare), "--profile", "ctap-reference")
    assert given.returncode == 0, given.stdout + given.stderr
    assert given.stderr.splitlines()[0] == "arculus-card replay: against profile ctap-reference, as given"


def test_a_card_of_no_built_in_profile_is_captured_beside_the_recording(pcsc_reader, tmp_path):
    profile = json.loads(run("profile", "show", "arculus-fido21").stdout)
    profile.update(name="my-card", aaguid="00112233-4455-6677-8899-aabbccddeeff", description="a card of my own")
    source = tmp_path / "my-card.json"
    source.write_text(json.dumps(profile))
    recording = tmp_path / "mine.transcript"
    with fixtures.served(["--profile", str(source), "--no-control"], tmp_path) as card:
        done = record(card, recording)
    assert headers(recording)["profile"] == "mine.transcript.profile.json"
    assert "@profile mine.transcript.profile.json: the card's identity, captured (no built-in profile has it)\n" in done.stderr
    captured = json.loads((tmp_path / "mine.transcript.profile.json").read_text())
    assert captured["aaguid"] == profile["aaguid"] and captured["versions"] == profile["versions"]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    replay = run("replay", str(recording), cwd=elsewhere)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert replay.stderr.splitlines()[0] == "arculus-card replay: against profile mine.transcript.profile.json, the transcript's @profile"


def test_a_profile_named_on_the_command_line_is_the_recordings(pcsc_reader, tmp_path):
    recording = tmp_path / "named.transcript"
    with fixtures.served(["--profile", "arculus-fido2", "--no-control"], tmp_path) as card:
        done = record(card, recording, "--profile", "arculus-fido2")
    assert headers(recording)["profile"] == "arculus-fido2"
    assert "@profile arculus-fido2: given with --profile\n" in done.stderr
    assert run("replay", str(recording)).returncode == 0


def test_recorded_signatures_do_not_verify_for_a_fresh_challenge(pcsc_reader, tmp_path):
    """What the README says a stand-in cannot stand in for: a server checking its own challenge."""
    fixture = next(s for s in fixtures.SCENARIOS if s.name == "webauthn_register_authenticate").file
    for fresh in (False, True):
        with fixtures.served(["--stand-in", str(fixture)], tmp_path) as card:
            device = card.device()
            try:
                rp = support.server(support.EmulatorRootVerifier())
                client = support.client(device)
                # The recorded challenge (the recording's own) verifies; a fresh, random one cannot.
                challenge = None if fresh else fixtures.challenge("register")
                options, state = rp.register_begin(fixtures.user("alice"), resident_key_requirement="discouraged",
                                                   user_verification="discouraged", challenge=challenge)
                response = client.make_credential(options["publicKey"])
                if fresh:
                    with pytest.raises(InvalidSignature):
                        rp.register_complete(state, response)
                else:
                    rp.register_complete(state, response)
            finally:
                device.close()
        assert "stand-in mismatch" not in card.stderr(), "the stand-in took the request as the recorded one: it cannot tell"


def test_the_emulated_card_signs_the_transcripts_requests_afresh(pcsc_reader):
    """The way that verifies: the same transcript replayed against the emulated card, structurally
    (each signature verified over the request's clientDataHash by the card's own keys)."""
    fixture = next(s for s in fixtures.SCENARIOS if s.name == "webauthn_register_authenticate").file
    replay = run("replay", str(fixture), "--structural")
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert re.fullmatch(r"\d+ exchanges replayed, all matched \(structural\)\n", replay.stdout), replay.stdout
    assert "signature not checked" not in replay.stderr, replay.stderr
