"""What `arculus-card serve` says while it runs, as a user reads it. Findings: SIGUSR1's line said the
same thing twice ("card off the reader: card taken off the reader, tapping again in 1 s"); the
--verbose trace printed a fast APDU as "(0.00 ms)"."""

from __future__ import annotations

import re
import time


def test_a_tap_is_said_once(card):
    card.retap()
    deadline = time.monotonic() + 5
    while "tapping it again" not in card.stderr() and time.monotonic() < deadline:
        time.sleep(0.05)
    lines = [line for line in card.stderr().splitlines() if "off the reader" in line]
    assert lines == ["card off the reader, tapping it again in 1 s"], card.stderr()


def test_trace_times_are_never_zero(card):
    device = card.device()
    device.close()
    times = re.findall(r"\((\d+(?:\.\d+)?) (ms|µs)\)$", card.stderr(), re.MULTILINE)
    assert times, card.stderr()
    for value, unit in times:
        assert float(value) > 0, f"a time of {value} {unit}"
        if unit == "ms":
            assert float(value) >= 1, f"{value} ms is said in µs"
