#!/usr/bin/env bash
# The performance benchmark: builds the card and the benchmark in release, then runs
# arculus-bench (see `./bench.sh --help`). Arguments go to arculus-bench:
#   ./bench.sh              the full run (~2-3 min): medians of 5 rounds, PASS/MISS per target
#   ./bench.sh --quick      a ~20 s smoke run (CI)
#   ./bench.sh --markdown   the same measurements, printed as the README's results table
# The markdown table is also written to .build/bench/results.md on every run. The pcscd rows use
# vpcd slot 1 ('Virtual PCD 00 01'); when pcscd or that slot is not available they are skipped
# and the in-process rows still run (exit status 0).
set -euo pipefail
cd "$(dirname "$0")"

# Packages and pcscd, as serve.sh and test.sh do; without them only the pcscd rows are lost.
./setup.sh >&2 || echo "bench: setup.sh failed; the pcscd rows may be skipped" >&2

swift build -c release --product arculus-card >&2
swift build -c release --product arculus-bench >&2
bin="$(swift build -c release --show-bin-path)"
exec "$bin/arculus-bench" --serve "$bin/arculus-card" --dir .build/bench "$@"
