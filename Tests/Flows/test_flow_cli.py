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
