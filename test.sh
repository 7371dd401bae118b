#!/usr/bin/env bash
# Sets up what is missing and runs every test: the Swift unit tests, then the interop tests in
# which python-fido2 and opensc-tool reach the emulated card through real pcscd + vpcd, then
# python-fido2's own device suite against every built-in profile.
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh --tests
swift build --build-tests
swift test --skip-build
export ARCULUS_CARD="$(swift build --show-bin-path)/arculus-card"
# Two pytest runs: each folder has its own conftest.py.
python3 -m pytest -v Tests/Interop
python3 -m pytest -v Tests/Flows
# python-fido2's device suite (tests/device of the pinned fido2 sdist), unmodified, on every
# built-in profile, each on a private pcscd; fails on any failed or errored test.
Tests/DeviceSuite/run.sh
