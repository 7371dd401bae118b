"""The card is visible to PC/SC tools as a FIDO card on the vpcd reader."""

import re
import shutil
import subprocess

import pytest
from fido2.ctap2 import Ctap2


def test_python_fido2_lists_the_card(card):
    device = card.device()
    try:
        info = Ctap2(device).get_info()
        assert "FIDO_2_1" in info.versions or "FIDO_2_0" in info.versions
        assert info.options.get("rk") is True
        assert "hmac-secret" in info.extensions
        assert info.max_msg_size >= 1024
    finally:
        device.close()


def test_atr_is_reported(card):
    device = card.device()
    try:
        atr = device.get_atr()
        assert len(atr) >= 2 and atr[0] in (0x3B, 0x3F)
    finally:
        device.close()


def _opensc_tool():
    tool = shutil.which("opensc-tool")
    if tool is None:
        pytest.fail("opensc-tool is not installed (Debian package opensc)")
    return tool


def test_opensc_tool_lists_and_selects(card):
    tool = _opensc_tool()
    listing = subprocess.run([tool, "-l"], capture_output=True, text=True, timeout=30)
    assert listing.returncode == 0, listing.stderr
    index = None
    for line in listing.stdout.splitlines():
        match = re.match(r"\s*(\d+)\s+(Yes|No)\s+.*?(Virtual PCD.*)$", line)
        if match and match.group(3).strip() == card.reader:
            assert match.group(2) == "Yes", listing.stdout
            index = match.group(1)
    assert index is not None, listing.stdout
    select = subprocess.run(
        [tool, "-r", index, "-s", "00A4040008A0000006472F0001"], capture_output=True, text=True, timeout=30
    )
    assert select.returncode == 0, select.stderr
    assert "SW1=0x90, SW2=0x00" in select.stdout, select.stdout
    assert "FIDO_2_0" in select.stdout, select.stdout


def test_bad_apdus_get_status_words_and_the_card_keeps_working(card):
    connection = card.connection()
    try:
        def sw(apdu):
            _, sw1, sw2 = connection.transmit(apdu)
            return (sw1 << 8) | sw2

        assert sw([0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00]) == 0x6985  # not selected yet
        assert sw([0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00]) == 0x6A82
        assert sw([0x00, 0xA4, 0x04, 0x00, 0x08, 0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01]) == 0x9000
        assert sw([0xFF, 0x10, 0x80, 0x00]) == 0x6E00
        assert sw([0x80, 0xEE, 0x00, 0x00]) == 0x6D00
        assert sw([0x80, 0x10, 0x33, 0x00, 0x01, 0x04]) == 0x6A86
        assert sw([0x00, 0xA4, 0x04]) == 0x6700
        assert sw([0x00, 0xC0, 0x00, 0x00, 0x00]) == 0x6985
        data, sw1, sw2 = connection.transmit([0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00])
        assert (sw1, sw2) == (0x90, 0x00) and data[0] == 0x00
    finally:
        connection.disconnect()
