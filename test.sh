#!/usr/bin/env bash
# Sets up what is missing and runs every test: the Swift unit tests, then the interop tests in
# which python-fido2 and opensc-tool reach the emulated card through real pcscd + vpcd, the flows
# (the seeds' own Swift code among them), then python-fido2's own device suite against every
# built-in profile.
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh --tests
swift build --build-tests
swift test --skip-build
export ARCULUS_CARD="$(swift build --show-bin-path)/arculus-card"
# The seed's own Swift code (Tests/Seed), built against the SDK for Tests/Flows/test_seed_code.py.
# Without the seed text on this machine (../shared/seeds) those tests skip, and this says so.
seed_status=0
seed_app="$(Tests/Seed/build.sh)" || seed_status=$?
if ((seed_status == 0)); then
    export ARCULUS_SEED_APP="$seed_app"
elif ((seed_status == 3)); then
    export ARCULUS_SEED_MISSING="no seed text found beside the repository (../shared/seeds; set ARCULUS_SEEDS_DIR)"
    echo "test.sh: THE SEED TEST WILL SKIP: $ARCULUS_SEED_MISSING" >&2
else
    exit "$seed_status"
fi
# Two pytest runs: each folder has its own conftest.py.
python3 -m pytest -v Tests/Interop
python3 -m pytest -v Tests/Flows
# python-fido2's device suite (tests/device of the pinned fido2 sdist), unmodified, on every
# built-in profile, each on a private pcscd; fails on any failed or errored test.
Tests/DeviceSuite/run.sh
