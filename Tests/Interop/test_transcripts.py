"""Transcripts through the real PC/SC stack and the command line.

- A recorded fixture stands in for the card (`arculus-card serve --stand-in FIXTURE`) and
  python-fido2 runs the very scenario that recorded it (record_fixtures.py): the stand-in must
  answer every request, with no mismatch. A host that strays gets CTAP1_ERR_OTHER and serve
  says why on stderr.
- A live session recorded with `serve --seed --record` replays byte for byte.
- `arculus-card replay` exit codes: 0 all matched, 1 a difference or an unusable file, 64 usage.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from fido2.ctap import CtapError
from fido2.ctap2 import Ctap2
from fido2.ctap2.pin import ClientPin

import record_fixtures as fixtures

BINARY = fixtures.binary()


@pytest.fixture(scope="module")
def arculus_card() -> Path:
    if not BINARY.exists():
        pytest.fail(f"no arculus-card binary at {BINARY} (build it, or set ARCULUS_CARD)", pytrace=False)
    return BINARY


@pytest.fixture(scope="module")
def serve_with_transcripts(arculus_card) -> Path:
    """The binary, once its serve has the transcript options the lead wires in."""
    help_text = subprocess.run([str(arculus_card), "serve", "--help"], capture_output=True, text=True).stdout
    missing = [option for option in ("--stand-in", "--record", "--seed") if option not in help_text]
    if missing:
        pytest.fail(f"arculus-card serve has no {', '.join(missing)} option(s) yet", pytrace=False)
    return arculus_card


def run(*arguments: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(BINARY), *arguments], capture_output=True, text=True, timeout=60)


# --- The stand-in on the virtual reader ------------------------------------------------------


@pytest.mark.parametrize("scenario", fixtures.SCENARIOS, ids=lambda scenario: scenario.name)
def test_stand_in_answers_the_recorded_python_fido2_session(serve_with_transcripts, pcsc_reader, tmp_path, scenario):
    assert scenario.file.exists(), f"missing fixture {scenario.file}: run record_fixtures.py"
    with fixtures.served(["--stand-in", str(scenario.file)], tmp_path) as card:
        scenario.run(card)
    stderr = card.stderr()
    assert "stand-in mismatch" not in stderr, stderr
    summary = re.search(r"stand-in: (\d+) of (\d+) expected requests answered, no mismatches", stderr)
    assert summary, f"no stand-in summary on stderr:\n{stderr}"
    assert summary.group(1) == summary.group(2), summary.group(0)


def test_stand_in_answers_a_stray_request_with_ctap1_err_other(serve_with_transcripts, pcsc_reader, tmp_path):
    fixture = next(s for s in fixtures.SCENARIOS if s.name == "webauthn_register_authenticate").file
    with fixtures.served(["--stand-in", str(fixture)], tmp_path) as card:
        device = card.device()
        try:
            # The device's and Ctap2's getInfo are as recorded; then Fido2Client's own getInfo
            # is expected, and getPINRetries comes instead.
            with pytest.raises(CtapError) as raised:
                ClientPin(Ctap2(device)).get_pin_retries()
            assert raised.value.code == CtapError.ERR.OTHER
        finally:
            device.close()
    stderr = card.stderr()
    assert re.search(r"stand-in mismatch: expected authenticatorGetInfo \(transcript line \d+\), "
                     r"got authenticatorClientPIN \(getPINRetries\); answered CTAP1_ERR_OTHER", stderr), stderr
    assert "first difference: request.command: different command" in stderr, stderr
    assert re.search(r"stand-in: 2 of \d+ expected requests answered, 1 mismatch", stderr), stderr


# --- Recording a live session ----------------------------------------------------------------


def test_a_live_recording_replays_byte_for_byte(serve_with_transcripts, pcsc_reader, tmp_path):
    scenario = next(s for s in fixtures.SCENARIOS if s.name == "discoverable_credentials")
    recording = tmp_path / "live.transcript"
    with fixtures.served(["--seed", "00" * 32, "--record", str(recording)], tmp_path) as card:
        scenario.run(card)
    text = recording.read_text()
    assert "@seed " + "00" * 32 in text
    assert "# authenticatorMakeCredential" in text
    replay = run("replay", str(recording))
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert re.fullmatch(r"\d+ exchanges replayed, all matched \(byte-exact\)\n", replay.stdout), replay.stdout


def test_a_second_recording_to_the_same_file_is_appended_as_its_next_session(serve_with_transcripts, pcsc_reader, tmp_path):
    scenario = next(s for s in fixtures.SCENARIOS if s.name == "discoverable_credentials")
    recording = tmp_path / "two.transcript"
    for _ in range(2):
        with fixtures.served(["--seed", "00" * 32, "--record", str(recording)], tmp_path) as card:
            scenario.run(card)
    text = recording.read_text()
    assert text.count("@seed ") == 1, "the second session repeated the headers"
    assert len(re.findall(r"^# session 2 recorded ", text, re.MULTILINE)) == 1, text[:2000]
    # Both sessions are kept in full: the second added as many exchanges as the first.
    first, second = text.split("# session 2 recorded ", 1)
    assert first.count("\n> ") == second.count("\n> ") > 0
    replay = run("replay", str(recording))
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert re.fullmatch(r"\d+ exchanges replayed in 2 sessions, all matched \(byte-exact\)\n", replay.stdout), replay.stdout


def test_appending_a_session_with_another_seed_is_refused_and_leaves_the_file(serve_with_transcripts, pcsc_reader, tmp_path):
    scenario = next(s for s in fixtures.SCENARIOS if s.name == "discoverable_credentials")
    recording = tmp_path / "seeded.transcript"
    with fixtures.served(["--seed", "00" * 32, "--record", str(recording)], tmp_path) as card:
        scenario.run(card)
    before = recording.read_bytes()
    served = subprocess.run([str(BINARY), "serve", "--seed", "01" * 32, "--record", str(recording), "--no-control",
                             "--slot", "1"], capture_output=True, text=True, timeout=30)
    assert served.returncode == 1, served.stdout + served.stderr
    assert f"transcript {recording}: cannot append a session to it: this session has @seed " in served.stderr
    assert recording.read_bytes() == before


# --- arculus-card replay ---------------------------------------------------------------------


@pytest.mark.parametrize("scenario", fixtures.SCENARIOS, ids=lambda scenario: scenario.name)
def test_replay_of_each_fixture_exits_0(arculus_card, scenario):
    replay = run("replay", str(scenario.file))
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "all matched (byte-exact)" in replay.stdout


def test_replay_of_a_tampered_transcript_exits_1_with_the_report(arculus_card, tmp_path):
    source = next(s for s in fixtures.SCENARIOS if s.name == "pin_set_and_change").file
    lines = source.read_text().splitlines()
    # The last getPINRetries answer (the first, on the blank card, is PIN_NOT_SET) says 8
    # retries (`... 03 08 ...`): make it say 7.
    index = max(i for i, line in enumerate(lines) if line.endswith("# authenticatorClientPIN (getPINRetries)"))
    assert lines[index + 1] == "< 00A2030804F49000"
    lines[index + 1] = "< 00A2030704F49000"
    tampered = tmp_path / "tampered.transcript"
    tampered.write_text("\n".join(lines) + "\n")
    replay = run("replay", str(tampered))
    assert replay.returncode == 1, replay.stdout + replay.stderr
    assert f"replay mismatch at transcript line {index + 1}: authenticatorClientPIN (getPINRetries)" in replay.stdout
    assert "first difference: response.pinRetries{3}: different value: expected 7, got 8" in replay.stdout


def test_replay_with_another_profile_exits_1(arculus_card):
    source = next(s for s in fixtures.SCENARIOS if s.name == "u2f_register_authenticate").file
    replay = run("replay", str(source), "--profile", "arculus-fido2")
    assert replay.returncode == 1
    assert "authenticatorGetInfo" in replay.stdout and "first difference: response.versions{1}" in replay.stdout


def test_replay_of_a_malformed_transcript_exits_1_naming_the_line(arculus_card, tmp_path):
    broken = tmp_path / "broken.transcript"
    broken.write_text("@format 1\n! power-on\n> 00A4040008A0000006472F000100\n> 80108000010400\n")
    replay = run("replay", str(broken))
    assert replay.returncode == 1
    assert f"{broken}:4: expected the response ('<') to the command on line 3" in replay.stderr


def test_replay_usage_errors_exit_64(arculus_card):
    assert run("replay").returncode == 64
    assert run("replay", "a", "b").returncode == 64
    assert run("replay", "x.transcript", "--bogus").returncode == 64


def test_transcript_check_and_show(arculus_card):
    files = [str(s.file) for s in fixtures.SCENARIOS]
    check = run("transcript", "check", *files)
    assert check.returncode == 0, check.stderr
    assert check.stdout.count(": ok, ") == len(files)
    show = run("transcript", "show", str(fixtures.SCENARIOS[0].file))
    assert show.returncode == 0
    assert "authenticatorClientPIN (setPIN)" in show.stdout and "CTAP2_OK" in show.stdout
