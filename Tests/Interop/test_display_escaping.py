"""A card's or a file's strings are printed escaped (FIDOWire's DisplayText): an extension named
ESC [2J and a newline, an RP name with C1 and bidirectional controls, neither clear the terminal
nor forge a line — in pcsc capture-profile, profile show, probe diff and --emulate, image
credentials list, and serve's APDU trace. JSON output stays the same JSON."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from conftest import REPO, _binary, _serve
from test_pcsc_tool import GET_INFO, SELECT, stand_in_transcript

FORGED = "\x1b[2Jevil\nforged: line"
# Control characters a terminal acts on: C0 but newline, DEL, C1, the bidirectional controls.
ACTED_ON = [chr(c) for c in range(0x20) if c != 0x0A] + [chr(c) for c in range(0x7F, 0xA0)] + ["\u202e", "\u2066", "\u2028"]


def tool(*arguments: str, expect: int = 0) -> subprocess.CompletedProcess:
    result = subprocess.run([str(_binary()), *arguments], capture_output=True, text=True, timeout=120)
    assert result.returncode == expect, f"arculus-card {' '.join(arguments)} exited {result.returncode}:\n{result.stderr}"
    return result


def assert_inert(*texts: str) -> None:
    for text in texts:
        acted = sorted({hex(ord(c)) for c in text if c in ACTED_ON})
        assert not acted, f"raw control characters {acted} in: {text!r}"


def test_capture_profile_and_profile_show_print_a_forged_extension_escaped(pcsc_reader, tmp_path):
    import record_fixtures

    info = {
        1: ["FIDO_2_0", "FIDO_2_1"], 2: ["credProtect", FORGED], 3: bytes.fromhex("0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f0f"),
        4: {"rk": True, "up": True, "clientPin": False, "pinUvAuthToken": True}, 5: 2048, 6: [2, 1], 7: 8, 8: 128,
        9: ["nfc"], 10: [{"alg": -7, "type": "public-key"}], 13: 4, 14: 5, 20: 10,
    }
    transcript = tmp_path / "stand-in.transcript"
    stand_in_transcript(transcript, info)
    output = tmp_path / "captured.json"
    with record_fixtures.served(["--stand-in", str(transcript)], tmp_path) as served:
        result = tool("pcsc", "capture-profile", "--reader", served.reader, "--wait", "10", "--output", str(output))
    assert_inert(result.stdout, result.stderr)
    assert "dropped: extensions: \\u001b[2Jevil\\nforged: line (not implemented by this build)" in result.stderr.splitlines()
    assert not any(line.startswith("forged") for line in result.stderr.splitlines())
    captured = json.loads(output.read_text())
    assert FORGED in captured["description"], "the file keeps the card's string as it was"
    shown = tool("profile", "show", str(output))
    assert_inert(shown.stdout)
    assert json.loads(shown.stdout) == captured


def forged_fingerprint(tmp_path: Path) -> Path:
    fingerprint = json.loads((REPO / "Fixtures" / "fingerprints" / "arculus-fido21.fingerprint.json").read_text())
    fingerprint["probes"]["getInfo"]["answer"]["body"]["extensions"].append(FORGED + "\u202e\x9b")
    path = tmp_path / "forged.fingerprint.json"
    path.write_text(json.dumps(fingerprint, indent=1, sort_keys=True))
    return path


def test_probe_diff_and_emulate_print_a_forged_extension_escaped(tmp_path):
    forged = forged_fingerprint(tmp_path)
    fixture = REPO / "Fixtures" / "fingerprints" / "arculus-fido21.fingerprint.json"
    diff = tool("probe", "diff", str(fixture), str(forged), expect=1)
    assert_inert(diff.stdout, diff.stderr)
    assert ('- getInfo, extensions: arculus-fido21 ["credProtect","hmac-secret","largeBlobKey"], forged ["credProtect",'
            '"hmac-secret","largeBlobKey","\\u001b[2Jevil\\nforged: line\\u202e\\u009b"]  [probes/getInfo/answer/body/extensions]'
            in diff.stdout.splitlines())
    emulated = tool("probe", "--emulate", str(forged), "--no-timing", expect=1)
    assert_inert(emulated.stdout, emulated.stderr)
    assert ("the emulator's profile could not hold: extensions: \\u001b[2Jevil\\nforged: line\\u202e\\u009b "
            "(not implemented by this build)") in emulated.stdout.splitlines()
    assert not any(line.startswith("forged") for line in emulated.stdout.splitlines())


def test_image_credentials_list_prints_forged_names_escaped_and_the_same_json(tmp_path):
    image = tmp_path / "card.image"
    name, rp_name = "alice\x1b[2J\x9b31m", "Evil\u202egnp.exe\x85"
    tool("image", "create", "--card", str(image), "--credential", f"rp=evil.example,user=alice,name={name},rp-name={rp_name}")
    listed = tool("image", "credentials", "list", "--card", str(image))
    assert_inert(listed.stdout, listed.stderr)
    credential = json.loads(listed.stdout)["credentials"][0]
    assert (credential["userName"], credential["rpName"]) == (name, rp_name)


def test_serve_trace_prints_a_forged_rp_id_escaped(request, pcsc_reader, tmp_path):
    from fido2 import cbor

    generator = _serve(request, pcsc_reader, tmp_path, [])
    served = next(generator)
    try:
        body = cbor.encode({1: "\x1b[2Jx\x85\u202e.example", 2: bytes(32)})
        request_apdu = "80108000" + f"{len(body) + 1:02X}" + "02" + body.hex().upper() + "00"
        lines = tool("pcsc", "send", "--reader", served.reader, "--wait", "10", SELECT, request_apdu, GET_INFO).stdout.splitlines()
        assert lines[3] == "< 2E9000", "CTAP2_ERR_NO_CREDENTIALS"
    finally:
        next(generator, None)
    trace = served.stderr()
    assert_inert(trace)
    assert '\\u001b[2Jx\\u0085\\u202e.example' in trace
