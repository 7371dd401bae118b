#!/usr/bin/env python3
"""Round-trip time of authenticatorGetInfo through pcscd + vpcd to a running `arculus-card serve`.

Usage: python3 Tests/Interop/rtt.py [--reader "Virtual PCD 00 00"] [--count 1000]

Prints the median (and 10th/90th percentiles) over COUNT calls of
  * the raw NFCCTAP_MSG getInfo APDU (pyscard transmit: PC/SC + vpcd + card), and
  * python-fido2's Ctap2.get_info() over CtapPcscDevice (adds python-fido2's own work).
Expect well under 1 ms for the first when the bridge sets TCP_NODELAY/TCP_QUICKACK (about
40 ms per APDU without them: see REFERENCE.md's latency trap).
"""

import argparse
import statistics
import sys
import time

from smartcard.System import readers

GET_INFO_APDU = [0x80, 0x10, 0x80, 0x00, 0x01, 0x04, 0x00]
SELECT_FIDO = [0x00, 0xA4, 0x04, 0x00, 0x08, 0xA0, 0x00, 0x00, 0x06, 0x47, 0x2F, 0x00, 0x01, 0x00]


def summary(name, samples):
    samples = sorted(samples)
    q = statistics.quantiles(samples, n=10)
    print(
        f"{name}: median {statistics.median(samples) * 1000:.3f} ms "
        f"(p10 {q[0] * 1000:.3f} ms, p90 {q[-1] * 1000:.3f} ms, n={len(samples)})"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reader", default="Virtual PCD 00 00")
    parser.add_argument("--count", type=int, default=1000)
    args = parser.parse_args()

    matching = [r for r in readers() if args.reader in str(r)]
    if not matching:
        sys.exit(f"no reader matching {args.reader!r}; is pcscd running and arculus-card serve connected?")
    connection = matching[0].createConnection()
    connection.connect()
    _, sw1, sw2 = connection.transmit(SELECT_FIDO)
    if (sw1, sw2) != (0x90, 0x00):
        sys.exit(f"SELECT failed: {sw1:02X}{sw2:02X}")

    raw = []
    for _ in range(args.count):
        start = time.perf_counter()
        data, sw1, sw2 = connection.transmit(GET_INFO_APDU)
        raw.append(time.perf_counter() - start)
        if (sw1, sw2) != (0x90, 0x00) or not data or data[0] != 0:
            sys.exit(f"getInfo failed: {sw1:02X}{sw2:02X}")
    # A command the card answers without work (GET RESPONSE with nothing pending: 6985)
    # shows the transport alone: pyscard + pcscd + vpcd + the bridge.
    bare = []
    for _ in range(args.count):
        start = time.perf_counter()
        connection.transmit([0x00, 0xC0, 0x00, 0x00, 0x00])
        bare.append(time.perf_counter() - start)
    connection.disconnect()
    summary("getInfo APDU round trip (pyscard)", raw)
    summary("transport only (GET RESPONSE -> 6985)", bare)

    from fido2.ctap2 import Ctap2
    from fido2.pcsc import CtapPcscDevice

    device = next(CtapPcscDevice.list_devices(args.reader), None)
    if device is None:
        sys.exit("python-fido2 does not see the card")
    ctap2 = Ctap2(device)
    calls = []
    for _ in range(args.count):
        start = time.perf_counter()
        ctap2.get_info()
        calls.append(time.perf_counter() - start)
    device.close()
    summary("Ctap2.get_info() (python-fido2)", calls)


if __name__ == "__main__":
    main()
