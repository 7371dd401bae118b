"""Failures are spoken, through the built binary as a user runs it (no card needed): each one line in
the user's terms. Findings of a new user's first hour: no `--version`; `profile show bad.json`
printed `DecodingError.keyNotFound: … CodingKeys(…)`; an edited copy of a built-in profile was
reported under the built-in's name; a transcript cut inside a command's hex said "command is not hex
bytes"; `replay --card-image garbage.img` named its own temporary copy; `transcript import-pcsc-spy
nothere.log` printed `Error Domain=NSCocoaErrorDomain …`; `probe fixtures --check` outside the
repository blamed the files instead of saying they are not there. (Every file argument against every
kind of wrong file: CLITests' FileArgumentSweepTests.)"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run(binary, *args, cwd=None):
    return subprocess.run([str(binary), *args], capture_output=True, text=True, cwd=cwd, timeout=60)


def test_version(sdk_binary):
    for word in ("--version", "version"):
        done = run(sdk_binary, word)
        assert done.returncode == 0, done.stderr
        assert re.fullmatch(r"arculus-card \d+\.\d+\.\d+ \(transcript format 1, fingerprint format 1, probe battery \d+\)\n",
                            done.stdout), done.stdout
    assert "  version      Show the tool's version (also --version)\n" in run(sdk_binary, "--help").stdout
    extra = run(sdk_binary, "--version", "x")
    assert (extra.returncode, extra.stderr) == (64, "arculus-card --version: takes no arguments\n")


def test_profile_json_errors_name_the_member(sdk_binary, tmp_path):
    base = json.loads((REPO / "Fixtures" / "profiles" / "arculus-fido21.json").read_text())
    cases = {
        "empty.json": ("{}", 'not a card profile: the member "name" is missing'),
        "no-description.json": (json.dumps({k: v for k, v in base.items() if k != "description"}),
                                'not a card profile: the member "description" is missing'),
        "text-size.json": (json.dumps({**base, "maxMsgSize": "big"}), 'not a card profile: "maxMsgSize" is not a whole number'),
        "list.json": ("[1, 2]", "not a card profile: it is JSON, but not an object of profile members"),
        "cut.json": (json.dumps(base)[:100], "not a card profile: it is not JSON (an empty or cut-short file, or another kind of file?)"),
    }
    for name, (text, reason) in cases.items():
        path = tmp_path / name
        path.write_text(text)
        done = run(sdk_binary, "profile", "show", str(path))
        assert done.returncode == 1
        assert done.stderr == f"arculus-card profile: cannot read profile {path}: {reason}\n"


def test_an_edited_built_in_profile_is_named_by_its_file(sdk_binary, tmp_path):
    """The copy keeps "name": "arculus-fido21"; the error names the file the user edited."""
    profile = json.loads((REPO / "Fixtures" / "profiles" / "arculus-fido21.json").read_text())
    profile["maxMsgSize"] = 5
    path = tmp_path / "my-card.json"
    path.write_text(json.dumps(profile))
    done = run(sdk_binary, "profile", "show", str(path))
    assert done.returncode == 1
    assert done.stderr == (f"arculus-card profile: profile {path} (named 'arculus-fido21') is invalid: maxMsgSize is 5, outside "
                           "1024...65535 (CTAP 2.1 §6.4 asks at least 1024; an extended APDU carries at most 65535 bytes)\n")
    serve = run(sdk_binary, "serve", "--profile", str(path), "--no-control")
    assert serve.returncode == 64
    assert serve.stderr.startswith(f"arculus-card serve: --profile: profile {path} (named 'arculus-fido21') is invalid: ")


def test_a_transcript_cut_inside_a_hex_line(sdk_binary, tmp_path):
    lines = (REPO / "Fixtures" / "transcripts" / "reset.transcript").read_text().splitlines(keepends=True)
    command = next(index for index, line in enumerate(lines) if line.startswith("> 8010"))
    path = tmp_path / "cut.transcript"
    path.write_text("".join(lines[:command]) + lines[command][:9])
    done = run(sdk_binary, "transcript", "check", str(path))
    assert (done.returncode, done.stderr) == (1, f"{path}:{command + 1}: command cut short: the file ends in the middle of a byte\n")
    path.write_text("".join(lines[:command]) + lines[command][:10])
    done = run(sdk_binary, "replay", str(path))
    assert (done.returncode, done.stderr) == (
        1, f"arculus-card replay: {path}:{command + 1}: command without a response: the file ends on it (cut short?)\n")


def test_replay_names_the_image_given_not_its_copy(sdk_binary, tmp_path):
    image = tmp_path / "garbage.img"
    assert run(sdk_binary, "image", "create", "--card", str(image)).returncode == 0
    data = image.read_bytes()
    image.write_bytes(data[: len(data) // 2])
    done = run(sdk_binary, "replay", str(REPO / "Fixtures" / "transcripts" / "reset.transcript"), "--card-image", str(image))
    assert done.returncode == 1
    assert done.stderr == (f"arculus-card replay: cannot open the card image {image}: card image {image} is damaged (no complete "
                           "snapshot record); it was not reset — restore it or delete it to start a blank card\n")


def test_files_that_cannot_be_read(sdk_binary, tmp_path):
    missing = tmp_path / "nothere.log"
    done = run(sdk_binary, "transcript", "import-pcsc-spy", str(missing))
    assert (done.returncode, done.stderr) == (
        1, f"arculus-card transcript: {missing}: cannot read the pcsc-spy log: there is no such file\n")
    done = run(sdk_binary, "replay", str(tmp_path))
    assert (done.returncode, done.stderr) == (
        1, f"arculus-card replay: transcript {tmp_path}: cannot read: it is a directory, not a file\n")
    not_a_log = tmp_path / "notes.txt"
    not_a_log.write_text("hello\n")
    done = run(sdk_binary, "transcript", "import-pcsc-spy", str(not_a_log))
    assert (done.returncode, done.stderr) == (
        1, f"arculus-card transcript: {not_a_log}:1: no PC/SC calls found: not a pcsc-spy log (its text output or its raw FIFO log)\n")


def test_fixtures_check_outside_the_repository(sdk_binary, tmp_path):
    done = run(sdk_binary, "probe", "fixtures", "--check", cwd=tmp_path)
    assert (done.returncode, done.stdout) == (1, "")
    assert done.stderr == ("arculus-card probe: the fixtures are not there: Fixtures/fingerprints is no directory "
                           "(run it in the repository, or give --dir)\n")
    inside = run(sdk_binary, "probe", "fixtures", "--check", cwd=REPO)
    assert (inside.returncode, inside.stdout) == (0, "the fixtures in Fixtures/fingerprints are the emulator's fingerprints\n")
