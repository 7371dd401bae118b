"""The probe through the real pcscd + vpcd: `arculus-card pcsc probe` against served cards, the
fingerprints diffed (`probe diff`), emulated (`probe --emulate`) and compared with the fixtures in
Fixtures/fingerprints; the known departures the emulator's own fault knobs make; a probe that
must not change the card; and the bad input every command refuses with a reason."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import time
from pathlib import Path

import pytest

from conftest import REPO, _binary, _reader_event_state, _serve, _unavailable

FIXTURES = REPO / "Fixtures" / "fingerprints"
PROFILES = ["arculus-fido21", "arculus-fido2", "ctap-reference"]


def tool(*arguments: str, expect: int | None = 0) -> subprocess.CompletedProcess:
    result = subprocess.run([str(_binary()), *arguments], capture_output=True, text=True, timeout=120)
    if expect is not None:
        assert result.returncode == expect, (
            f"arculus-card {' '.join(arguments)} exited {result.returncode}, not {expect}:\n{result.stdout}\n{result.stderr}")
    return result


def probe(reader: str, out: Path, *options: str, expect: int = 0) -> subprocess.CompletedProcess:
    return tool("pcsc", "probe", "--reader", reader, "--wait", "10", "--out", str(out), *options, expect=expect)


def paths(diff_output: str) -> list[str]:
    """The bracketed paths of a diff's difference lines."""
    return [line.rsplit("  [", 1)[1].rstrip("]") for line in diff_output.splitlines() if line.startswith("- ")]


def sentences(diff_output: str) -> list[str]:
    return [line[2:].rsplit("  [", 1)[0] for line in diff_output.splitlines() if line.startswith("- ")]


@pytest.fixture
def served(request, pcsc_reader, tmp_path):
    """served(serve_args, image_args=None) -> a card on the vpcd reader, with `.ctl(...)` through
    its own control socket; `image_args` first create its image with `image create`."""

    started = []

    def start(serve_args: list[str] | None = None, image_args: list[str] | None = None):
        if not _binary().exists():
            _unavailable(f"no arculus-card binary at {_binary()} (build it, or set ARCULUS_CARD)")
        folder = tmp_path / f"card-{len(started)}"
        folder.mkdir()
        started.append(folder)
        if image_args is not None:
            tool("image", "create", "--card", str(folder / "card.image"), *image_args)
        control = folder / "ctl.sock"
        generator = _serve(request, pcsc_reader, folder, ["--control", str(control), *(serve_args or [])])
        card = next(generator)
        request.addfinalizer(lambda: card.process.poll() is None and card.stop())
        request.addfinalizer(lambda: next(generator, None))
        card.ctl = lambda *words: json.loads(tool("ctl", "--control", str(control), *words).stdout)
        return card

    return start


# --- The fixtures -----------------------------------------------------------------------------


@pytest.mark.parametrize("profile", PROFILES)
def test_each_profile_reproduces_its_fixture_over_pcsc(served, tmp_path, profile):
    card = served(["--profile", profile])
    out = tmp_path / "probed.json"
    result = probe(card.reader, out, "--allow-writes", "--no-timing")
    assert "probed " in result.stderr and " entries (" in result.stderr
    diff = tool("probe", "diff", str(FIXTURES / f"{profile}.fingerprint.json"), str(out))
    assert diff.stdout.splitlines() == [f"{profile} against probed: no differences"]
    # The profile learned from it sets no switch, and the emulator with it answers as the card.
    learned = tool("probe", "profile", str(out), "--out", str(tmp_path / "learned.json"))
    assert not [line for line in learned.stdout.splitlines() if line.startswith("set ")], learned.stdout
    assert "the emulator with this profile against your card: no differences" in learned.stdout.splitlines()
    assert tool("probe", "--emulate", str(out)).stdout.splitlines()[-1].endswith(": no differences")


# Every way the CTAP 2.0 model differs from the 2.1 model, by path: getInfo (versions, options,
# the CTAP 2.1 members), the PIN protocol 2 and permission tokens it lacks (the token rules:
# a 2.0 pinToken is not used up by makeCredential, not replaced, not bound to an RP), the error
# codes CTAP 2.0 gives (options, a pinUvAuthParam on a card without a PIN, a pinAuth whose
# pinProtocol is absent or unsupported: CTAP 2.0 §5.1 step 7, §5.2 step 3), the commands it has
# not (selection, credential management, large blobs; the config entries' acfg token), its AAGUID
# and attestation certificate (its subject: the model's name).
FIDO2_AGAINST_FIDO21 = [
    "probes/clientPIN.getKeyAgreement.protocol-2/answer",
    *[f"probes/credentialManagement.{entry}/answer" for entry in [
        "cbor-cut-short", "empty-map", "metadata-junk-token", "metadata-without-token", "no-parameters", "not-a-map",
        "subcommand-text", "trailing-byte", "unknown-subcommand"]],
    "probes/getAssertion.junk-pinUvAuthParam/answer", "probes/getAssertion.pin-protocol-3/answer",
    "probes/getAssertion.pinUvAuthParam-without-protocol/answer", "probes/getAssertion.rk-option/answer",
    "probes/getAssertion.uv-true/answer",
    *[f"probes/getInfo/answer/body/{member}" for member in [
        "aaguid", "algorithms", "extensions", "firmwareVersion", "forcePINChange", "maxMsgSize", "maxSerializedLargeBlobArray",
        "minPINLength", "options/credMgmt", "options/largeBlobs", "options/makeCredUvNotRqd", "options/pinUvAuthToken",
        "pinUvAuthProtocols", "remainingDiscoverableCredentials", "transports", "versions"]],
    "probes/iso.get-response-le-16/answer/0", "probes/iso.get-response-le-16/answer/1",
    "probes/iso.getinfo-case-3/answer/data", "probes/iso.getinfo-extended/answer/data", "probes/iso.getinfo-le-32/answer",
    *[f"probes/largeBlobs.{entry}/answer" for entry in [
        "cbor-cut-short", "empty-map", "get", "get-beyond", "get-too-long", "get-without-offset", "no-parameters", "not-a-map",
        "trailing-byte"]],
    *[f"probes/makeCredential.{entry}/answer" for entry in [
        "clientDataHash-16", "enterprise-attestation", "junk-pinUvAuthParam", "pin-protocol-3", "pinUvAuthParam-without-protocol",
        "unknown-member", "unknown-option"]],
    "probes/selection/answer",
    *[f"probes/write.credentialManagement.{entry}/answer" for entry in [
        "credentials", "delete", "delete-again", "metadata", "metadata-after-delete", "rps", "update-user"]],
    "probes/write.getPINRetries.after-setPIN/answer/body/powerCycleState",
    "probes/write.getPinToken.protocol-2/answer", "probes/write.getPinUvAuthToken.protocol-1/answer",
    "probes/write.getPinUvAuthToken.protocol-2/answer",
    "probes/write.makeCredential/answer/body/attStmt/x5c/0/subject",
    "probes/write.makeCredential/answer/body/authData/attestedCredential/aaguid",
    "probes/write.makeCredential.discoverable/answer/body/attStmt/x5c/0/subject",
    "probes/write.makeCredential.discoverable/answer/body/authData/attestedCredential/aaguid",
    "probes/write.makeCredential.without-token/answer", "probes/write.makeCredential.junk-without-pin/answer",
    *[f"probes/write.config.{entry}/answer" for entry in [
        "setMinPINLength", "setMinPINLength-lower", "setMinPINLength-rpids", "toggleAlwaysUv", "toggleAlwaysUv-again"]],
    "probes/write.getInfo.after-discoverable/answer/body/remainingDiscoverableCredentials",
    *[f"probes/write.largeBlobs.{entry}/answer" for entry in [
        "get-after-set", "get-first-part", "set", "set-bad-hash", "set-in-two", "set-interrupted", "set-too-long", "set-without-token"]],
    "probes/write.pin.retries-after-right/answer/body/powerCycleState",
    "probes/write.pin.retries-after-three-wrong/answer/body/powerCycleState",
    "probes/write.pin.retries-when-blocked/answer/body/powerCycleState",
    *[f"probes/write.token.{entry}/answer" for entry in [
        "be-permission", "ga-for-makeCredential", "getPinToken-other-rp", "no-permissions", "other-rp", "replaced",
        "up-false-then-up", "used-again-after-makeCredential", "without-rpId"]],
    "probes/write.u2f.register/answer/certificate/subject",
]


def test_fido2_against_fido21_reports_the_known_differences_and_nothing_else(served, tmp_path):
    card = served(["--profile", "arculus-fido2"])
    out = tmp_path / "fido2.json"
    probe(card.reader, out, "--allow-writes", "--no-timing")
    diff = tool("probe", "diff", str(out), str(FIXTURES / "arculus-fido21.fingerprint.json"), "--as", "the 2.0 card,the 2.1 card",
                expect=1)
    assert sorted(paths(diff.stdout)) == sorted(FIDO2_AGAINST_FIDO21)
    said = sentences(diff.stdout)
    assert "getInfo, versions: the 2.0 card [\"U2F_V2\",\"FIDO_2_0\"], the 2.1 card [\"U2F_V2\",\"FIDO_2_0\",\"FIDO_2_1\"]" in said
    assert ("a getPinToken token used for a second makeCredential: the 2.0 card answers CTAP2_OK, "
            "the 2.1 card CTAP2_ERR_PIN_AUTH_INVALID") in said
    assert "getAssertion with the rk option: the 2.0 card answers CTAP2_ERR_INVALID_OPTION, the 2.1 card CTAP2_ERR_UNSUPPORTED_OPTION" in said
    assert diff.stdout.splitlines()[0] == f"the 2.0 card against the 2.1 card: {len(FIDO2_AGAINST_FIDO21)} differences"


# --- Emulating a probed card ------------------------------------------------------------------


def test_capture_profile_of_a_served_card_then_emulate_it_is_an_empty_diff(served, tmp_path):
    first = served(["--profile", "ctap-reference"])
    profile = tmp_path / "captured.json"
    tool("pcsc", "capture-profile", "--reader", first.reader, "--wait", "10", "--output", str(profile))
    first.stop()
    second = served(["--profile", str(profile)])
    fingerprint = tmp_path / "card.fingerprint.json"
    probe(second.reader, fingerprint)
    emulated = tool("probe", "--emulate", str(fingerprint), "--out", str(tmp_path / "emulated.json"))
    assert emulated.stdout.splitlines() == [
        f"your card ({fingerprint}) against the emulator (profile learned-801878dc): no differences"]
    # The emulator's own fingerprint says which profile it was loaded with.
    assert json.loads((tmp_path / "emulated.json").read_text())["profile"] == {"dropped": [], "name": "learned-801878dc"}


def test_emulate_names_what_a_profile_could_not_hold_and_which_field_would(tmp_path):
    """A fingerprint of a card that advertises what this build lacks: the profile drops it, says
    so, and each difference says which profile field would hold it."""
    fingerprint = json.loads((FIXTURES / "ctap-reference.fingerprint.json").read_text())
    body = fingerprint["probes"]["getInfo"]["answer"]["body"]
    body["versions"].append("FIDO_2_2")
    body["extensions"].append("credBlobV2")
    body["options"]["uv"] = True
    card = tmp_path / "card.fingerprint.json"
    card.write_text(json.dumps(fingerprint))
    rules = tmp_path / "attestation.rules"
    rules.write_text("# the emulator's attestation is its own\nignore probes/*/answer/body/attStmt/x5c\n"
                     "ignore probes/write.u2f.register/answer/certificate\n")
    result = tool("probe", "--emulate", str(card), "--rules", str(rules), expect=1)
    lines = result.stdout.splitlines()
    assert lines[:3] == [
        "the emulator's profile could not hold: versions: FIDO_2_2 (not implemented by this build)",
        "the emulator's profile could not hold: extensions: credBlobV2 (not implemented by this build)",
        "the emulator's profile could not hold: options.uv: true (the emulator answers absent; no profile field holds it)",
    ]
    assert lines[3] == f"your card ({card}) against the emulator (profile learned-801878dc): 3 differences"
    assert lines[4:] == [
        "- getInfo, extensions: your card [\"credBlob\",\"credProtect\",\"hmac-secret\",\"hmac-secret-mc\",\"largeBlobKey\",\"minPinLength\","
        "\"thirdPartyPayment\",\"uvm\",\"credBlobV2\"], the emulator [\"credBlob\",\"credProtect\",\"hmac-secret\",\"hmac-secret-mc\",\"largeBlobKey\","
        "\"minPinLength\",\"thirdPartyPayment\",\"uvm\"]  [probes/getInfo/answer/body/extensions]",
        "    → the profile field `extensions` would hold this, but the profile had to drop it: extensions: credBlobV2 (not implemented by this build)",
        "- getInfo, options.uv: your card true, the emulator absent  [probes/getInfo/answer/body/options/uv]",
        "    → no profile field holds this getInfo member",
        "- getInfo, versions: your card [\"U2F_V2\",\"FIDO_2_0\",\"FIDO_2_1_PRE\",\"FIDO_2_1\",\"FIDO_2_2\"], the emulator "
        "[\"U2F_V2\",\"FIDO_2_0\",\"FIDO_2_1_PRE\",\"FIDO_2_1\"]  [probes/getInfo/answer/body/versions]",
        "    → the profile field `versions` would hold this, but the profile had to drop it: versions: FIDO_2_2 (not implemented by this build)",
    ]


# --- Learning a card's profile: probe, probe profile, serve, probe --emulate --------------------


def switches(profile: Path) -> list[str]:
    """Every switch of a profile file with its value, as `profile show --switches` lists them (a
    list's items sorted: getInfoAbsent names the same members in any order)."""
    def normal(line: str) -> str:
        head, _, rest = line.partition("[")
        items, _, tail = rest.partition("]")
        return f"{head}[{', '.join(sorted(items.split(', ')))}]{tail}" if rest else line
    return [normal(line) for line in tool("profile", "show", "--switches", str(profile)).stdout.splitlines()]


@pytest.mark.parametrize("name", ["many-switches", "other-switches"])
def test_a_card_with_many_switches_is_learned_back_served_and_emulated(served, tmp_path, name):
    """A served card that sets many switches at once, probed through pcscd + vpcd: `probe profile`
    recovers every switch (and nothing else), `probe --emulate` finds nothing, and the learned
    profile served and probed again answers the battery as the card did."""
    source = REPO / "Fixtures" / "behaviour" / f"{name}.json"
    card = served(["--profile", str(source)])
    fingerprint = tmp_path / "card.fingerprint.json"
    probe(card.reader, fingerprint, "--allow-writes", "--no-timing")
    card.stop()
    learned = tmp_path / "card.profile.json"
    result = tool("probe", "profile", str(fingerprint), "--out", str(learned))
    assert switches(learned) == switches(source)
    set_lines = [line for line in result.stdout.splitlines() if line.startswith("set ")]
    assert len(set_lines) == len([line for line in switches(source) if "(default " in line]), result.stdout
    assert "the emulator with this profile against your card: no differences" in result.stdout.splitlines()
    emulated = tool("probe", "--emulate", str(fingerprint))
    assert emulated.stdout.splitlines()[-1] == f"your card ({fingerprint}) against the emulator (profile {json.loads(learned.read_text())['name']}): no differences"
    again = served(["--profile", str(learned)])
    probed = tmp_path / "served.fingerprint.json"
    probe(again.reader, probed, "--allow-writes", "--no-timing")
    assert tool("probe", "diff", str(fingerprint), str(probed)).stdout.splitlines()[0].endswith(": no differences")


def test_spec_only_leaves_the_departures_out_and_names_them(tmp_path):
    fingerprint = tmp_path / "card.fingerprint.json"
    tool("probe", "--profile", str(REPO / "Fixtures" / "behaviour" / "many-switches.json"), "--out", str(fingerprint),
         "--allow-writes", "--no-timing")
    learned = tmp_path / "spec.json"
    result = tool("probe", "profile", str(fingerprint), "--out", str(learned), "--spec-only")
    assert "departures" not in json.loads(learned.read_text())
    left_out = [line for line in result.stdout.splitlines() if line.startswith("left out (--spec-only): departures.")]
    assert len(left_out) == 7, result.stdout
    assert "left out (--spec-only): departures.longerAIDSelects = true  (select.longer-aid: the card selects the applet)" in left_out


# --- A probe that must not change the card, and one that may ----------------------------------


def image_state(image: Path) -> tuple[str, list, dict]:
    digest = hashlib.sha256(image.read_bytes()).hexdigest()
    credentials = json.loads(tool("image", "credentials", "list", "--card", str(image)).stdout)
    pin = json.loads(tool("image", "pin", "--card", str(image)).stdout)
    return digest, credentials, pin


def test_a_probe_without_allow_writes_leaves_the_image_byte_identical(served, tmp_path):
    image = tmp_path / "card-0" / "card.image"
    card = served(image_args=["--pin", "123456", "--retries", "5", "--counter", "41",
                              "--credential", "rp=example.com,user=alice,discoverable=yes"])
    before = hashlib.sha256(image.read_bytes()).hexdigest()
    out = tmp_path / "card.json"
    probe(card.reader, out)
    assert card.stop() == 0
    digest, credentials, pin = image_state(image)
    assert digest == before
    assert pin["pin"]["retries"] == 5 and pin["pin"]["isSet"] is True
    recorded = json.loads(out.read_text())["probes"]["clientPIN.getPINRetries.protocol-1"]["answer"]
    assert recorded["body"]["pinRetries"] == 5


def test_with_allow_writes_the_card_ends_reset(served, tmp_path):
    image = tmp_path / "card-0" / "card.image"
    card = served(image_args=["--pin", "123456", "--credential", "rp=example.com,user=alice,discoverable=yes"])
    probe(card.reader, tmp_path / "card.json", "--allow-writes", "--no-timing")
    assert card.stop() == 0
    _, credentials, pin = image_state(image)
    assert credentials["credentials"] == []
    assert pin["pin"]["isSet"] is False and pin["pin"]["retries"] == 8


def test_a_card_that_refuses_the_reset_stops_the_writing_part_before_any_pin_entry(served, tmp_path):
    """A real card refuses authenticatorReset more than 10 s after power-up: the writing part then
    stops before any PIN entry (exit 1, no fingerprint), and the user's PIN — the README's old
    example PIN, once the probe's own — its retries and its credential stay as they were."""
    image = tmp_path / "card-0" / "card.image"
    card = served(image_args=["--pin", "24681357", "--retries", "5",
                              "--credential", "rp=user.example,user=alice,discoverable=yes"])
    card.ctl("fault", "add", "--command", "reset", "--ctap-error", "0x30")
    before = hashlib.sha256(image.read_bytes()).hexdigest()
    out = tmp_path / "card.json"
    result = probe(card.reader, out, "--allow-writes", "--no-timing", expect=1)
    counts = re.search(r"\((\d+) read-only\s+entries, (\d+) more with --allow-writes\)", tool("probe", "--help").stdout)
    read_only, total = int(counts[1]), int(counts[1]) + int(counts[2])
    assert result.stderr == (
        f"arculus-card pcsc: the card in {card.reader}: the writing part stopped at entry {read_only + 1} of {total}, "
        "before any PIN entry: authenticatorReset answered CTAP2_ERR_NOT_ALLOWED (a card allows it only just after "
        "power-up: take the card off the reader, put it back and probe again at once); the card is unchanged apart "
        "from the reset; no fingerprint written\n")
    assert not out.exists()
    faults = card.ctl("fault", "list")
    assert [entry["command"] for entry in faults["log"]] == ["reset"], "the reset was the only write sent"
    assert card.stop() == 0
    digest, credentials, pin = image_state(image)
    assert digest == before
    assert pin["pin"]["isSet"] is True and pin["pin"]["retries"] == 5
    assert [(entry["rpId"], entry["userName"]) for entry in credentials["credentials"]] == [("user.example", "alice")]


# --- Known departures, made with the emulator's own knobs --------------------------------------


def entry_apdu(entry: str) -> str:
    return json.loads((FIXTURES / "arculus-fido21.fingerprint.json").read_text())["probes"][entry]["request"]["apdu"]


def test_known_deviations_are_reported_exactly_and_nothing_else(served, tmp_path):
    card = served()
    plain, faulted = tmp_path / "plain.json", tmp_path / "faulted.json"
    probe(card.reader, plain)
    card.ctl("fault", "add", "--command", "apdu:" + entry_apdu("iso.unknown-instruction"), "--status-word", "6A80")
    card.ctl("fault", "add", "--command", "apdu:" + entry_apdu("getAssertion.no-clientDataHash"), "--ctap-error", "INVALID_CBOR")
    card.ctl("fault", "add", "--command", "apdu:" + entry_apdu("select.no-le"), "--status-word", "6A82")
    card.ctl("fault", "add", "--command", "getAssertion", "--delay", "0.15")
    probe(card.reader, faulted)
    rules = tmp_path / "noise.rules"
    rules.write_text("# two probes of one card on a busy machine\ntiming * ratio 3 slack 100\n")
    diff = tool("probe", "diff", str(plain), str(faulted), "--rules", str(rules), "--as", "the card,the faulted card", expect=1)
    said = sentences(diff.stdout)
    assert said[:3] == [
        "getAssertion without clientDataHash: the card answers CTAP2_ERR_MISSING_PARAMETER, the faulted card CTAP2_ERR_INVALID_CBOR",
        "an instruction no FIDO card has (00 99, case 1): the card answers 6D00 (instruction not supported), "
        "the faulted card 6A80 (wrong data)",
        "SELECT of the FIDO applet without Le (case 3): the card answers 9000, the faulted card 6A82 (file or application not found)",
    ]
    assert paths(diff.stdout) == [
        "probes/getAssertion.no-clientDataHash/answer", "probes/iso.unknown-instruction/answer", "probes/select.no-le/answer",
        "timing/getAssertion.noCredential/p50Ms", "timing/getAssertion.noCredential/p90Ms",
    ]
    assert said[3].startswith("getAssertion.noCredential round trip, median: the card ")
    # Emulated, the faulted card still differs in exactly its departures: one APDU answered
    # otherwise is no rule of the card, so the learning sets no switch for it.
    emulated = tool("probe", "--emulate", str(faulted), "--rules", str(rules), expect=1)
    assert paths(emulated.stdout) == paths(diff.stdout)
    assert not [line for line in emulated.stdout.splitlines() if line.startswith("the emulator's profile sets ")]
    hints = emulated.stdout.splitlines()
    unknown = hints[hints.index(next(line for line in hints if "[probes/iso.unknown-instruction/answer]" in line)) + 1]
    assert unknown == ("    → `behaviour.unknownInstructionClass00` concerns this entry; it stays 6D00, as iso.message-class-00 shows, "
                       "and no value of it gives both answers")


# --- Bad input ----------------------------------------------------------------------------------


def test_a_truncated_or_foreign_fingerprint_is_refused_naming_the_file(tmp_path):
    good = FIXTURES / "arculus-fido21.fingerprint.json"
    cut = tmp_path / "cut.json"
    cut.write_text(good.read_text()[:1000])
    result = tool("probe", "diff", str(good), str(cut), expect=2)
    assert result.stderr.startswith(f"arculus-card probe: {cut} is not a fingerprint: it is not JSON (cut short?)")
    foreign = REPO / "Fixtures" / "profiles" / "arculus-fido21.json"
    result = tool("probe", "--emulate", str(foreign), expect=2)
    assert result.stderr == (f"arculus-card probe: {foreign} is not a fingerprint: it has no \"format\": "
                             "\"arculus-card fingerprint\" (make one with 'arculus-card pcsc probe')\n")
    result = tool("probe", "diff", str(good), str(tmp_path / "missing.json"), expect=2)
    assert f"cannot read {tmp_path / 'missing.json'}" in result.stderr
    rules = tmp_path / "bad.rules"
    rules.write_text("timing * ratio half\n")
    result = tool("probe", "diff", str(good), str(good), "--rules", str(rules), expect=2)
    assert result.stderr == f"arculus-card probe: {rules}:1: the ratio is a number of at least 1, not 'half'\n"
    assert tool("probe", "diff", str(good), expect=64).stderr.startswith("arculus-card probe: diff wants two fingerprint files")
    result = tool("probe", "profile", str(cut), "--out", str(tmp_path / "p.json"), expect=2)
    assert result.stderr.startswith(f"arculus-card probe: {cut} is not a fingerprint: it is not JSON (cut short?)")
    assert not (tmp_path / "p.json").exists()


def test_a_fingerprint_of_another_battery_is_refused_naming_both_versions(tmp_path):
    old = json.loads((FIXTURES / "arculus-fido21.fingerprint.json").read_text())
    version = old["battery"]["version"]
    old["battery"]["version"] = version - 1
    path = tmp_path / "old.fingerprint.json"
    path.write_text(json.dumps(old))
    expected = (f"arculus-card probe: {path} comes from battery version {version - 1}; this build runs battery version {version}: "
                "probe the card again with this build\n")
    assert tool("probe", "--emulate", str(path), expect=2).stderr == expected
    assert tool("probe", "profile", str(path), "--out", str(tmp_path / "p.json"), expect=2).stderr == expected
    result = tool("probe", "diff", str(path), str(FIXTURES / "arculus-fido21.fingerprint.json"), expect=2)
    assert result.stderr == (f"arculus-card probe: the fingerprints come from different batteries (version {version - 1} and "
                             f"{version}): probe both cards with the same build\n")


def test_a_profile_with_an_unknown_switch_is_refused_naming_the_field(tmp_path):
    profile = json.loads((REPO / "Fixtures" / "behaviour" / "many-switches.json").read_text())
    profile["behaviour"]["selectAfterReset"] = "6D00"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(profile))
    result = tool("probe", "--profile", str(path), "--out", str(tmp_path / "f.json"), expect=None)
    assert result.returncode != 0
    assert "behaviour.selectAfterReset: no such switch" in result.stderr
    assert not (tmp_path / "f.json").exists()


def test_rules_are_read_from_a_pipe():
    good = FIXTURES / "arculus-fido2.fingerprint.json"
    other = FIXTURES / "arculus-fido21.fingerprint.json"
    result = subprocess.run(["bash", "-c", f'"$0" probe diff "$1" "$2" --rules <(printf "ignore probes\\n")',
                             str(_binary()), str(good), str(other)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == "arculus-fido2 against arculus-fido21: no differences"
    assert result.stdout.splitlines()[1].startswith("accepted by the rules: ")


def test_a_reader_with_no_card_a_card_that_is_not_fido_and_one_removed_mid_probe(served, tmp_path):
    card = served()
    out = tmp_path / "card.json"
    card.ctl("remove")
    from smartcard import scard

    deadline = time.monotonic() + 5
    while not _reader_event_state(card.reader) & scard.SCARD_STATE_EMPTY and time.monotonic() < deadline:
        time.sleep(0.05)
    result = tool("pcsc", "probe", "--reader", card.reader, "--out", str(out), expect=1)
    assert result.stderr == f"arculus-card pcsc: no card in {card.reader}\n"
    card.ctl("insert")
    card.ctl("fault", "add", "--command", "select", "--status-word", "6A82")
    result = probe(card.reader, out, expect=1)
    assert result.stderr == (f"arculus-card pcsc: the card in {card.reader}: not a FIDO card: SELECT of the FIDO applet "
                             "(AID A0000006472F0001) answered 6A82 (file or application not found)\n")
    card.ctl("fault", "clear")
    card.ctl("fault", "add", "--command", "clientPIN", "--leave-field", "--away", "1")
    result = probe(card.reader, out, expect=1)
    assert result.stderr.startswith(f"arculus-card pcsc: the card in {card.reader}: the card left the reader during entry ")
    assert "(clientPIN without parameters): " in result.stderr and result.stderr.endswith("; no fingerprint written\n")
    assert not out.exists()


def test_help_lists_every_option():
    text = tool("probe", "--help").stdout
    for option in ["--rules", "--as", "--out", "--emulate", "--profile", "--allow-writes", "--no-timing", "--dir", "--check",
                   "--spec-only"]:
        assert option in text, option
    pcsc = tool("pcsc", "--help").stdout
    for option in ["--out", "--allow-writes", "--no-timing", "--strict"]:
        assert option in pcsc, option
