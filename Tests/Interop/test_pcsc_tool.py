"""`arculus-card pcsc`: the tool's own PC/SC client driving the emulated card through pcscd + vpcd,
as it would drive a real card on an NFC reader. The card comes from conftest's fixtures."""

from __future__ import annotations

import json
import subprocess

import pytest

from conftest import _binary, _serve

SELECT = "00A4040008A0000006472F000100"
GET_INFO = "80100000010400"
GET_INFO_LE_32 = "80100000010420"  # Le 0x20: the card answers in pieces behind 61xx


@pytest.fixture
def fido2_card(request, pcsc_reader, tmp_path):
    """A fresh card of the CTAP 2.0 model (serve --profile arculus-fido2)."""
    yield from _serve(request, pcsc_reader, tmp_path, ["--profile", "arculus-fido2"])


@pytest.fixture
def reference_card(request, pcsc_reader, tmp_path):
    """A fresh card of the reference profile, every CTAP 2.1 feature on."""
    yield from _serve(request, pcsc_reader, tmp_path, ["--profile", "ctap-reference"])


def tool(*arguments: str, check: bool = True) -> subprocess.CompletedProcess:
    result = subprocess.run([str(_binary()), *arguments], capture_output=True, text=True, timeout=60)
    if check:
        assert result.returncode == 0, f"arculus-card {' '.join(arguments)} exited {result.returncode}:\n{result.stderr}"
    return result


def built_in_profile(name: str) -> dict:
    return json.loads(tool("profile", "show", name).stdout)


# Every field authenticatorGetInfo of a CTAP 2.0 card reports, plus what the card shows
# otherwise (ATR, SELECT answer).
REPORTED_BY_EVERY_CARD = [
    "aaguid", "versions", "extensions", "pinUvAuthProtocols", "credentialManagement", "pinUvAuthToken",
    "makeCredUvNotRqd", "maxMsgSize", "maxCredentialCountInList", "maxCredentialIdLength", "atr", "selectResponse",
]
# What only CTAP 2.1 cards report (getInfo members 0x09 and up).
REPORTED_BY_CTAP21_CARDS = ["transports", "algorithms", "minPINLength", "firmwareVersion", "residentKeyCapacity"]
# The optional CTAP 2.1/2.2 features, each an option or member a card reports when it has it.
FEATURES = ["authenticatorConfig", "alwaysUv", "setMinPINLength", "maxRPIDsForSetMinPINLength",
            "enterpriseAttestation", "largeBlobs", "maxSerializedLargeBlobArray", "maxCredBlobLength",
            "credentialManagementPreview", "persistentCredentialManagement"]


@pytest.mark.parametrize("base", ["arculus-fido21", "arculus-fido2"])
def test_capture_profile_of_the_ctap20_card(fido2_card, tmp_path, base):
    output = tmp_path / "captured.json"
    result = tool("pcsc", "capture-profile", "--reader", fido2_card.reader, "--wait", "10",
                  "--base", base, "--output", str(output))
    captured = json.loads(output.read_text())
    served = built_in_profile("arculus-fido2")
    base_profile = built_in_profile(base)
    for field in REPORTED_BY_EVERY_CARD:
        assert captured[field] == served[field], field
    # Features the card does not announce are off, whatever the base has.
    for field in FEATURES:
        assert captured.get(field) == served.get(field), field
    # A CTAP 2.0 card does not report these: they come from --base, and the tool says so.
    for field in REPORTED_BY_CTAP21_CARDS:
        assert captured[field] == base_profile[field], field
    assert "not reported by the card" in result.stderr
    for field in ["transports", "algorithms", "minPINLength", "firmwareVersion", "residentKeyCapacity"]:
        assert field in result.stderr
    assert captured["name"] == "captured-9d3df6ba"
    assert captured["description"] == f"Captured from {fido2_card.reader}"
    assert captured["resetWindowSeconds"] == base_profile["resetWindowSeconds"]
    assert captured["attestation"] == base_profile["attestation"]
    # The emulator loads it (CardProfile.load validates).
    assert json.loads(tool("profile", "show", str(output)).stdout) == captured


def test_capture_profile_of_the_ctap21_card(card, tmp_path):
    output = tmp_path / "captured.json"
    tool("pcsc", "capture-profile", "--reader", "00 01", "--wait", "10", "--output", str(output))
    captured = json.loads(output.read_text())
    served = built_in_profile("arculus-fido21")
    # A blank CTAP 2.1 card reports everything, its whole capacity as remaining.
    for field in REPORTED_BY_EVERY_CARD + REPORTED_BY_CTAP21_CARDS:
        assert captured[field] == served[field], field
    assert captured["name"] == "captured-3f59672f"
    for field in FEATURES:
        assert captured.get(field) == served.get(field), field


def test_capture_profile_of_the_reference_card_keeps_every_feature(reference_card, tmp_path):
    output = tmp_path / "captured.json"
    result = tool("pcsc", "capture-profile", "--reader", reference_card.reader, "--wait", "10",
                  "--base", "arculus-fido2", "--output", str(output))
    captured = json.loads(output.read_text())
    served = built_in_profile("ctap-reference")
    for field in REPORTED_BY_EVERY_CARD + REPORTED_BY_CTAP21_CARDS + FEATURES:
        assert captured.get(field) == served.get(field), field
    # The vendor-facilitated enterprise attestation list is not in getInfo: from the base.
    assert captured["enterpriseAttestationRPIDs"] == built_in_profile("arculus-fido2")["enterpriseAttestationRPIDs"]
    assert "enterpriseAttestationRPIDs" in result.stderr


def test_list_shows_the_card_and_its_atr(fido2_card):
    tool("pcsc", "send", "--reader", fido2_card.reader, "--wait", "10", SELECT)  # pcscd has seen it
    lines = tool("pcsc", "list").stdout.splitlines()
    ours = [line for line in lines if line.startswith(fido2_card.reader)]
    assert len(ours) == 1, lines
    assert "card present" in ours[0]
    assert ours[0].endswith("ATR " + built_in_profile("arculus-fido2")["atr"])


def test_send_prints_commands_and_responses(fido2_card):
    result = tool("pcsc", "send", "--reader", "00 01", "--wait", "10", SELECT, "80 10 00 00 01 04 00")
    lines = result.stdout.splitlines()
    assert lines[0] == "> " + SELECT
    assert lines[1] == "< " + "FIDO_2_0".encode().hex().upper() + "9000"
    assert lines[2] == "> " + GET_INFO
    assert lines[3].startswith("< 00") and lines[3].endswith("9000")


def test_send_follows_response_chaining_only_when_asked(fido2_card):
    whole = tool("pcsc", "send", "--reader", "00 01", "--wait", "10", SELECT, GET_INFO).stdout.splitlines()[3]
    plain = tool("pcsc", "send", "--reader", "00 01", SELECT, GET_INFO_LE_32).stdout.splitlines()[3]
    assert len(plain) == len("< ") + 2 * 34 and plain[-4:-2] == "61"
    chained = tool("pcsc", "send", "--reader", "00 01", "--follow-chaining", "--verbose", SELECT, GET_INFO_LE_32)
    assert chained.stdout.splitlines()[3] == whole
    assert "  > 00C00000" in chained.stderr


def test_record_writes_a_transcript(fido2_card, tmp_path):
    apdus = tmp_path / "apdus.txt"
    apdus.write_text(f"# SELECT, then getInfo in 32-byte pieces\n{SELECT}\n\n{GET_INFO_LE_32}\n")
    output = tmp_path / "session.transcript"
    tool("pcsc", "record", "--reader", fido2_card.reader, "--wait", "10", "--follow-chaining",
         "--from", str(apdus), "--output", str(output))
    lines = output.read_text().splitlines()
    headers = [line for line in lines if line.startswith("@")]
    assert f"@source pcsc reader {fido2_card.reader}" in headers
    assert "@atr " + built_in_profile("arculus-fido2")["atr"] in headers
    assert any(line.startswith("@date 20") for line in headers)
    entries = [line for line in lines if line[:1] in ("!", ">", "<")]
    assert entries[0] == "! power-on"
    assert entries[1:3] == ["> " + SELECT, "< " + "FIDO_2_0".encode().hex().upper() + "9000"]
    assert entries[3] == "> " + GET_INFO_LE_32
    assert entries[4][-4:-2] == "61"
    get_responses = [line for line in entries if line.startswith("> 00C00000")]
    assert get_responses, entries
    assert entries[-1].endswith("9000")


def test_record_refuses_apdus_both_ways(tmp_path):
    apdus = tmp_path / "apdus.txt"
    apdus.write_text(SELECT + "\n")
    result = tool("pcsc", "record", "--output", str(tmp_path / "out"), "--from", str(apdus), SELECT, check=False)
    assert result.returncode == 64
    assert "not both" in result.stderr


@pytest.mark.parametrize("apdu, message", [
    ("00A4", "needs at least CLA INS P1 P2"),
    ("01", "needs at least CLA INS P1 P2"),
    ("00A40", "is not an APDU in hex"),
    ("hello", "is not an APDU in hex"),
])
def test_send_refuses_what_is_not_an_apdu(apdu, message):
    result = tool("pcsc", "send", apdu, check=False)
    assert result.returncode == 64
    assert message in result.stderr


def test_unknown_reader_is_named(pcsc_reader):
    result = tool("pcsc", "send", "--reader", "No Such Reader", SELECT, check=False)
    assert result.returncode == 64
    assert "no reader matches 'No Such Reader'" in result.stderr
    assert pcsc_reader in result.stderr


def test_help_explains_recording_with_pcsc_spy():
    result = tool("pcsc", "--help")
    for words in ["list", "send", "record", "capture-profile", "pcsc-spy", "import-pcsc-spy"]:
        assert words in result.stdout


def stand_in_transcript(path, info: dict) -> None:
    """A transcript in which a card answers SELECT and then getInfo with `info`, twice: what
    capture-profile sends (its client reads getInfo when it opens, then once more), for two
    captures through `serve --stand-in`."""
    from fido2 import cbor

    body = "00" + cbor.encode(info).hex().upper()
    capture = ["> 00A4040008A0000006472F000100", "< 4649444F5F325F309000"] + ["> 80108000010400", f"< {body}9000"] * 2
    path.write_text("\n".join(["@format 1", "@atr 3B8A8001417263756C7573456D7519", "! power-on", *capture, *capture, ""]))


# A CTAP 2.1 card (FIDO2Applet-like: it lists uvm) that also advertises what this build lacks.
STAND_IN_INFO = {
    1: ["U2F_V2", "FIDO_2_0", "FIDO_2_1", "FIDO_2_2"], 2: ["credProtect", "hmac-secret", "uvm", "credBlobV2"],
    3: bytes.fromhex("00112233445566778899aabbccddeeff"),
    4: {"plat": False, "rk": True, "up": True, "clientPin": False, "uv": True, "pinUvAuthToken": True},
    5: 1200, 6: [2, 1], 7: 8, 8: 128, 9: ["nfc", "usb"],
    10: [{"alg": -7, "type": "public-key"}, {"alg": -48, "type": "public-key"}],
    13: 4, 14: 5, 17: 3, 20: 10,
}


def test_capture_profile_of_a_card_with_features_the_emulator_lacks_writes_the_nearest_profile(pcsc_reader, tmp_path):
    import record_fixtures

    transcript = tmp_path / "stand-in.transcript"
    stand_in_transcript(transcript, STAND_IN_INFO)
    with record_fixtures.served(["--stand-in", str(transcript)], tmp_path) as served:
        output = tmp_path / "captured.json"
        result = tool("pcsc", "capture-profile", "--reader", served.reader, "--wait", "10", "--output", str(output))
        dropped = [line for line in result.stderr.splitlines() if line.startswith("dropped: ")]
        assert dropped == [
            "dropped: versions: FIDO_2_2 (not implemented by this build)",
            "dropped: extensions: credBlobV2 (not implemented by this build)",
            "dropped: algorithms: -48 (not implemented by this build)",
            "dropped: transports: usb (the emulator is an NFC card)",
            "dropped: options.uv: true (the emulator answers absent; no profile field holds it)",
            "dropped: preferredPlatformUvAttempts: 3 (the emulator answers nothing; no profile field holds it)",
        ]
        captured = json.loads(output.read_text())
        assert captured["versions"] == ["U2F_V2", "FIDO_2_0", "FIDO_2_1"]
        assert captured["extensions"] == ["credProtect", "hmac-secret", "uvm"], "uvm is served (the reference profile's)"
        assert captured["algorithms"] == [-7] and captured["transports"] == ["nfc"]
        assert captured["description"] == (f"Captured from {served.reader}; dropped (the emulator cannot serve them): "
                                           + "; ".join(line[len("dropped: "):] for line in dropped))
        assert json.loads(tool("profile", "show", str(output)).stdout) == captured
        # --strict keeps the old refusal: nothing written, exit 1, the first field named.
        strict = tmp_path / "strict.json"
        refused = tool("pcsc", "capture-profile", "--reader", served.reader, "--output", str(strict), "--strict", check=False)
        assert refused.returncode == 1
        assert refused.stderr == ("arculus-card pcsc: the card's answers do not make a profile the emulator can serve: "
                                  "profile captured-00112233 is invalid: versions: FIDO_2_2 is not implemented "
                                  "(this build speaks U2F_V2, FIDO_2_0, FIDO_2_1_PRE, FIDO_2_1)\n")
        assert not strict.exists()


# A hostile card: numbers no profile can hold (maxMsgSize 2^63 − 1, negative counts, more key
# bytes than a credential ID carries) beside features the emulator has.
HOSTILE_INFO = {
    1: ["U2F_V2", "FIDO_2_0", "FIDO_2_1"], 2: ["credProtect", "hmac-secret", "credBlob", "largeBlobKey"],
    3: bytes.fromhex("0badc0de0badc0de0badc0de0badc0de"),
    4: {"rk": True, "up": True, "clientPin": False, "pinUvAuthToken": True, "credMgmt": True, "largeBlobs": True},
    5: 2**63 - 1, 6: [2, 1], 7: -5, 8: 128, 9: ["nfc"], 10: [{"alg": -7, "type": "public-key"}],
    11: 2**40, 13: 4, 14: 5, 15: 100000, 20: -3,
}


def test_capture_profile_of_a_hostile_card_clamps_each_number_and_says_so(pcsc_reader, tmp_path):
    import record_fixtures

    transcript = tmp_path / "stand-in.transcript"
    stand_in_transcript(transcript, HOSTILE_INFO)
    with record_fixtures.served(["--stand-in", str(transcript)], tmp_path) as served:
        output = tmp_path / "captured.json"
        result = tool("pcsc", "capture-profile", "--reader", served.reader, "--wait", "10", "--output", str(output))
        clamped = [line for line in result.stderr.splitlines() if line.startswith("clamped: ")]
        assert clamped == [
            "clamped: maxMsgSize: 9223372036854775807 (clamped to 65535: the emulator serves 1024...65535, CTAP 2.1 §6.4 "
            "asks at least 1024; an extended APDU carries at most 65535 bytes)",
            "clamped: maxCredentialCountInList: -5 (clamped to 1: the emulator serves 1...255, at least one credential; at most 255)",
            "clamped: residentKeyCapacity: -3 (clamped to 0: the emulator serves 0...1000000, the emulator keeps at most a "
            "million discoverable credentials)",
            "clamped: maxSerializedLargeBlobArray: 1099511627776 (clamped to 1048576: the emulator serves 1024...1048576, "
            "CTAP 2.1 §6.10 asks at least 1024; the emulator keeps at most 1 MiB)",
            "clamped: maxCredBlobLength: 100000 (clamped to 255: the emulator serves 32...255, CTAP 2.1 §12.2 asks at least 32; "
            "a credential ID carries at most 255)",
        ]
        captured = json.loads(output.read_text())
        assert (captured["maxMsgSize"], captured["maxCredentialCountInList"], captured["residentKeyCapacity"]) == (65535, 1, 0)
        assert (captured["maxSerializedLargeBlobArray"], captured["maxCredBlobLength"]) == (1048576, 255)
        assert captured["description"].endswith(
            "; clamped to what the emulator serves: " + "; ".join(line[len("clamped: "):] for line in clamped))
        # --strict refuses instead, naming the first number out of range; nothing written.
        strict = tmp_path / "strict.json"
        refused = tool("pcsc", "capture-profile", "--reader", served.reader, "--output", str(strict), "--strict", check=False)
        assert refused.returncode == 1
        assert refused.stderr == (
            "arculus-card pcsc: the card's answers do not make a profile the emulator can serve: profile captured-0badc0de is "
            "invalid: maxMsgSize is 9223372036854775807, outside 1024...65535 (CTAP 2.1 §6.4 asks at least 1024; an extended "
            "APDU carries at most 65535 bytes)\n")
        assert not strict.exists()

    # The captured profile served: a large-blob read at offset 116 for 2^63 − 65 bytes (no PIN needed)
    # is CTAP1_ERR_INVALID_LENGTH, and the card goes on answering.
    with record_fixtures.served(["--profile", str(output)], tmp_path) as served:
        read = "80108000" + "0F" + "0CA2011B7FFFFFFFFFFFFFBF031874" + "00"
        lines = tool("pcsc", "send", "--reader", served.reader, "--wait", "10", SELECT, read, GET_INFO).stdout.splitlines()
        assert lines[3] == "< 039000"
        assert lines[5].startswith("< 00") and lines[5].endswith("9000")
