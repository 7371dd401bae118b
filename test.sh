#!/usr/bin/env bash
# Sets up what is missing and runs every test: the Swift unit tests, then the interop tests in
# which python-fido2 and opensc-tool reach the emulated card through real pcscd + vpcd, the flows
# (the seeds' own Swift code among them), then python-fido2's own device suite against every
# built-in profile, and last the line coverage of every module over all of it.
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh --tests
# One build, instrumented for line coverage, in a folder of its own (a plain `swift build` keeps
# .build/debug): every process below — the Swift suite, each arculus-card a test starts, as any
# user and in any namespace — adds its counters to $profiles, and Tests/coverage.py reports them
# per module at the end.
build=(--scratch-path .build/coverage --enable-code-coverage)
swift build --build-tests "${build[@]}"
bin="$(swift build "${build[@]}" --show-bin-path)"
profiles=.build/coverage/profiles
rm -rf "$profiles" "$bin/codecov"
mkdir -p "$profiles"
chmod 1777 "$profiles"   # serve and ctl also run as nobody (the control-socket tests, the CLI's file sweep)
# One file per process id (%p; a process that reuses an id merges into its file, %m): a process
# killed while it writes spoils only its own file, which coverage.py leaves out and counts; one
# pool shared by all would lose every process merged into it.
export LLVM_PROFILE_FILE="$PWD/$profiles/cli-%p-%m.profraw"
# swift test points the processes it starts at its own codecov/ folder, which only root can write:
# a test that runs the binary as nobody gives it this name instead.
export ARCULUS_PROFILE_FILE="$LLVM_PROFILE_FILE"
# The binary every test serves, the Swift suite's PC/SC tests included.
export ARCULUS_CARD="$bin/arculus-card"
swift test --skip-build "${build[@]}"
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
python3 -m pytest -v --durations=10 Tests/Interop
python3 -m pytest -v --durations=10 Tests/Flows
# python-fido2's device suite (tests/device of the pinned fido2 sdist), unmodified, on every
# built-in profile, each on a private pcscd; fails on any failed or errored test.
Tests/DeviceSuite/run.sh
python3 Tests/coverage.py --build "$bin" --profiles "$profiles" --markdown "$profiles/coverage.md"
