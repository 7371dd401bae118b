"""The command line itself: help, usage errors, exit statuses (no card needed)."""

from __future__ import annotations

import subprocess



def run(binary, *args):
    return subprocess.run([str(binary), *args], capture_output=True, text=True)


def test_help_lists_every_operation(sdk_binary):
    done = run(sdk_binary, "sdk", "--help")
    assert done.returncode == 0
    for operation in ("set-pin", "change-pin", "register-card-only", "authenticate-card-only", "delete-credential",
                      "reset-device", "register-user", "authenticate-user", "register-via-backend",
                      "authenticate-via-backend", "list-credentials"):
        assert operation in done.stdout
    assert "600 Tag Lost" in done.stdout
    assert "sdk" in run(sdk_binary, "--help").stdout


def test_usage_errors_exit_64(sdk_binary):
    assert run(sdk_binary, "sdk").returncode == 64
    unknown = run(sdk_binary, "sdk", "fly", "--card-image", "/tmp/x")
    assert unknown.returncode == 64 and "unknown operation 'fly'" in unknown.stderr
    missing = run(sdk_binary, "sdk", "set-pin", "--card-image", "/tmp/never-created.img")
    assert missing.returncode == 64 and "set-pin needs --pin" in missing.stderr
    both = run(sdk_binary, "sdk", "info", "--card-image", "/tmp/x", "--reader", "r")
    assert both.returncode == 64 and "exclude each other" in both.stderr
    nowhere = run(sdk_binary, "sdk", "info")
    assert nowhere.returncode == 64 and "--card-image FILE or --reader NAME" in nowhere.stderr


def test_unknown_reader_is_an_sdk_error(sdk_binary, pcsc_reader):
    done = run(sdk_binary, "sdk", "info", "--reader", "No Such Reader 99")
    assert done.returncode == 1
    assert '"code":607' in done.stdout and "no reader 'No Such Reader 99'" in done.stdout


# `-h` as the value of an option (or after `--`) is that value, never a request for help: every
# subcommand parses it the same way. Each line fails fast without a card or pcscd.
VALUE_NOT_HELP = [
    (["sdk", "set-pin", "--card-image", "{tmp}/sdk.img", "--pin", "-h"], 65, "sdk set-pin: --pin has 2 characters"),
    (["sdk", "set-pin", "--card-image", "{tmp}/sdk.img", "--pin=-h"], 65, "sdk set-pin: --pin has 2 characters"),
    (["serve", "--tap-delay", "-h"], 64, "--tap-delay wants seconds"),
    (["ctl", "--control", "{tmp}/-h", "status"], 4, "cannot reach the control socket"),
    (["ctl", "pin", "--control", "{tmp}/none.sock", "--set", "-h", "--retries", "x"], 64, "--retries wants a whole number"),
    (["image", "pin", "--card", "-h"], 1, "no card image at -h"),
    (["image", "credentials", "add", "--card", "{tmp}/x.img", "--credential", "-h"], 64, "'-h' is not key=value"),
    (["pcsc", "send", "--reader", "-h"], 64, "send needs at least one APDU"),
    (["replay", "--profile", "-h"], 64, "expected a transcript FILE"),
    (["transcript", "show", "--output", "-h"], 64, "takes one transcript FILE"),
    (["attestation", "generate", "--fixtures", "-h"], 64, "generate needs --fixtures DIR"),
    (["profile", "show", "--", "-h"], 1, "unknown profile '-h'"),
]


def test_dash_h_as_a_value_is_a_value(sdk_binary, tmp_path):
    for arguments, status, message in VALUE_NOT_HELP:
        arguments = [a.replace("{tmp}", str(tmp_path)) for a in arguments]
        done = run(sdk_binary, *arguments)
        assert "USAGE" not in done.stdout, arguments
        assert done.returncode == status, (arguments, done.returncode, done.stderr)
        assert message in done.stdout + done.stderr, (arguments, done.stdout, done.stderr)


# Where an option may stand, -h and --help print the subcommand's help and exit 0 — even after
# another mistake on the line, and after an action word.
HELP = [
    ["sdk", "-h"], ["sdk", "set-pin", "--pin", "1234", "-h"], ["sdk", "set-pin", "--bogus", "--help"],
    ["sdk", "fly", "-h"], ["serve", "--help"], ["serve", "--slot", "1", "-h"], ["ctl", "fault", "add", "-h"],
    ["image", "pin", "--card", "x.img", "--help"], ["pcsc", "send", "-h"], ["pcsc", "-h"], ["replay", "-h"],
    ["transcript", "show", "-h"], ["profile", "-h"], ["attestation", "--help"],
]


def test_help_where_an_option_may_stand(sdk_binary):
    for arguments in HELP:
        done = run(sdk_binary, *arguments)
        assert done.returncode == 0, (arguments, done.stderr)
        assert done.stdout.startswith("USAGE: arculus-card " + arguments[0]), (arguments, done.stdout[:80])
