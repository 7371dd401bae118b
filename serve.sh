#!/usr/bin/env bash
# Sets up what is missing, builds, and serves an emulated Arculus card on the PC/SC reader
# "Virtual PCD 00 00" (pcscd + vpcd). Arguments go to `arculus-card serve` (see --help);
# default card image: ./card.img (created on first use).
set -euo pipefail
cd "$(dirname "$0")"
./setup.sh
swift build -c release --product arculus-card >&2
if [[ " $* " != *" --card "* && " $* " != *" --cards "* && " $* " != *" --stand-in "* ]]; then set -- --card card.img "$@"; fi
exec .build/release/arculus-card serve "$@"
