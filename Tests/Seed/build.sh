#!/usr/bin/env bash
# Builds the seed's own Swift code against the emulator's SDK: extract_seed.py takes it out of the
# seed text (../shared/seeds), then `swift build` compiles this package (Package.swift). Prints the
# seed-app binary's path on stdout. Exit 0 built; 3 when the seed text is not on this machine
# (nothing to build: the seed test skips and says so); anything else is a failure.
set -euo pipefail
cd "$(dirname "$0")"
status=0
python3 extract_seed.py >&2 || status=$?
((status == 0)) || exit "$status"
swift build --package-path . >&2
echo "$(swift build --package-path . --show-bin-path)/seed-app"
