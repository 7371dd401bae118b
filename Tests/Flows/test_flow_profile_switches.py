"""Profile switches as a user meets them: a profile file with an unknown switch, a value a switch
does not take, or an impossible combination gets one error naming the field, from `profile show`
and from `serve --profile` alike, before anything is served (no card or reader needed)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
BASE = json.loads((REPO / "Fixtures" / "profiles" / "arculus-fido21.json").read_text())


def run(binary, *args):
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=30)


BAD = [
    ({"behaviour": {"unknownInstruction": "6E00"}},
     "cannot read profile {file}: behaviour.unknownInstruction: no such switch (the behaviour switches are "
     "malformedAPDU, unknownClass,"),
    ({"departures": {"acceptsEverything": True}},
     "cannot read profile {file}: departures.acceptsEverything: no such switch (the departures switches are "
     "longerAIDSelects, exceedsLe,"),
    ({"behaviour": {"getResponseInChain": "skip"}},
     "cannot read profile {file}: behaviour.getResponseInChain: skip is not a value it takes (it takes refuse or process)"),
    ({"behaviour": {"notSelected": "9000"}},
     "cannot read profile {file}: behaviour.notSelected: 9000 is not a value it takes (it takes an error status word"),
    ({"behaviour": {"u2fUnlisted": "versionOnly"}},
     "profile {file} (named 'arculus-fido21') is invalid: behaviour.u2fUnlisted and versions: versionOnly describes a card whose "
     "versions lack U2F_V2; this one lists it"),
    ({"behaviour": {"signatureCounter": "zero", "signatureCounterStep": 3}},
     "profile {file} (named 'arculus-fido21') is invalid: behaviour.signatureCounterStep and behaviour.signatureCounter: "
     "a counter that is always 0 has no step"),
]


@pytest.mark.parametrize("change,message", BAD)
@pytest.mark.parametrize("command,status,after", [
    (["profile", "show"], 1, []),
    # serve refuses a bad --profile as a bad command line, pointing at its help.
    (["serve", "--slot", "3", "--no-control", "--profile"], 64, ["Run 'arculus-card serve --help' for its options."]),
])
def test_a_bad_switch_is_one_error_naming_the_field(sdk_binary, tmp_path, command, status, after, change, message):
    file = tmp_path / "card.json"
    file.write_text(json.dumps({**BASE, **change}))
    done = run(sdk_binary, *command, str(file))
    assert done.returncode == status, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines[1:] == after and message.format(file=file) in lines[0], done.stderr
    assert done.stdout == ""


def test_show_marks_departures_and_lists_every_switch(sdk_binary, tmp_path):
    file = tmp_path / "card.json"
    file.write_text(json.dumps({**BASE, "departures": {"longerAIDSelects": True},
                                "behaviour": {"getInfoAbsent": ["transports"]}, "maxMsgSize": None}))
    shown = run(sdk_binary, "profile", "show", str(file))
    assert shown.returncode == 0
    profile = json.loads(shown.stdout)
    assert profile["departures"] == {"longerAIDSelects": True}
    assert profile["behaviour"] == {"getInfoAbsent": ["transports", "maxMsgSize"]}
    assert shown.stderr.startswith("profile arculus-fido21: departure departures.longerAIDSelects is on: ")
    assert "(breaks ISO/IEC 7816-4 §11.1.1" in shown.stderr
    listing = run(sdk_binary, "profile", "show", "--switches", str(file)).stdout.splitlines()
    row = next(line for line in listing if line.startswith("departures.longerAIDSelects "))
    assert "true  (default false)  [departure: breaks ISO/IEC 7816-4 §11.1.1" in row
    plain = next(line for line in listing if line.startswith("behaviour.unknownClass "))
    assert plain.split() == ["behaviour.unknownClass", "6E00"]
    # A built-in profile shows as before: no switch objects, nothing on stderr.
    builtin = run(sdk_binary, "profile", "show", "arculus-fido21")
    assert builtin.stdout == (REPO / "Fixtures" / "profiles" / "arculus-fido21.json").read_text() and builtin.stderr == ""
