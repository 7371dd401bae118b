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


def test_usage_errors_in_the_users_terms(sdk_binary, tmp_path):
    """A command line that cannot work exits 64 with what is wrong, not as an SDK error: an image
    of another card than --profile names, a device or a file that is not an image, --strict-rp
    without --rp-id, a timeout past an hour. A timeout the SDK cannot keep (0) is a refused value."""
    image = tmp_path / "fido21.img"
    assert run(sdk_binary, "sdk", "info", "--card-image", str(image)).returncode == 0
    cases = [
        (["info", "--card-image", str(image), "--profile", "arculus-fido2"],
         f"--card-image: card image {image} holds a 'arculus-fido21' card, not 'arculus-fido2'; pass --profile arculus-fido21 "
         "or use another image"),
        (["info", "--card-image", "/dev/zero"],
         "--card-image /dev/zero is a character device, not a card image file; give a file (it is created when missing)"),
        (["info", "--card-image", str(tmp_path)],
         f"--card-image {tmp_path} is a directory, not a card image file; give a file (it is created when missing)"),
        (["info", "--card-image", str(image) + "-new", "--profile", "/dev/zero"], "--profile /dev/zero is a character device, not a profile JSON file"),
        (["register-user", "--card-image", str(image), "--server", "http://localhost:9", "--pin", "123456", "--username", "a",
          "--strict-rp"], "register-user --strict-rp needs --rp-id: the card signs for that RP ID only"),
        (["register-user", "--card-image", str(image), "--server", "http://localhost:9", "--pin", "123456", "--username", "a",
          "--timeout", "1e300"], "--timeout wants seconds between 0 and 3600, not '1e300'"),
    ]
    for arguments, message in cases:
        done = run(sdk_binary, "sdk", *arguments)
        assert done.returncode == 64, (arguments, done.returncode, done.stdout, done.stderr)
        assert done.stderr.startswith(f"arculus-card sdk: {message}\n"), (arguments, done.stderr)
        assert done.stdout == "", "no SDK error JSON for a usage error"
    assert not (tmp_path / "fido21.img-new").exists(), "nothing created for a profile that cannot be read"
    zero = run(sdk_binary, "sdk", "register-user", "--card-image", str(image), "--server", "http://localhost:9", "--pin", "123456",
               "--username", "a", "--timeout", "0")
    assert zero.returncode == 65 and '"kind":"invalidTimeout"' in zero.stdout, zero.stdout
    assert zero.stderr == ("arculus-card sdk register-user: --timeout \"0.0\" is not a number of seconds from 0.001 to 3600\n")


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
