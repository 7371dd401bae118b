"""The PC/SC application whose calls the fixtures record: python-fido2 finds the card in one
reader, asks authenticatorGetInfo and the PIN retry counter, and lets the card go.

    python3 fido2_get_info_pin_retries.py "Virtual PCD 00 01"
"""

import sys

from fido2.ctap2 import ClientPin, Ctap2
from fido2.pcsc import CtapPcscDevice

reader = sys.argv[1] if len(sys.argv) > 1 else "Virtual PCD 00 01"
device = next(CtapPcscDevice.list_devices(reader), None)
if device is None:
    sys.exit(f"no FIDO card in {reader!r}")
ctap2 = Ctap2(device)
info = ctap2.get_info()
print("aaguid", info.aaguid, "versions", info.versions)
print("pin retries", ClientPin(ctap2).get_pin_retries())
device.close()
