#!/usr/bin/env bash
# Fuzzes the card with libFuzzer (the Swift toolchain's -sanitize=fuzzer, with AddressSanitizer
# and LeakSanitizer). See Tests/Fuzz/README.md for the targets and what each one checks.
#
#   ./fuzz.sh                         # every target, 60 s each
#   ./fuzz.sh --seconds 300 card cbor # chosen targets, 5 minutes each
#   ./fuzz.sh --smoke                 # CI: every target, 30 s each
#   ./fuzz.sh --seconds 28800 --jobs 2 card ctap2   # a long run (8 h, 2 worker processes)
#   ./fuzz.sh --seeds                 # regenerate the seed corpora in Fixtures/fuzz/
#   ./fuzz.sh --reproduce card FILE   # run one input again (a finding) with full reports
#
# Targets: card (APDU sequences into a whole card), cbor (the CBOR decoder), ctap2 (CTAP2
# requests into Authenticator.process), transcript (the transcript text parser), vpcd (vpcd
# framing and the bridge's message handling), image (the card image decoder).
#
# Inputs found interesting are kept in .build/fuzz/corpus/TARGET (the committed seeds in
# Fixtures/fuzz/TARGET are read, never written). A crash, hang (10 s), leak or sanitizer report is
# saved under .build/fuzz/findings/TARGET/ and listed at the end; the exit status is then 1.
# Every finding becomes a regression test in Tests/RobustnessTests before it is fixed.
set -euo pipefail
cd "$(dirname "$0")"

ALL_TARGETS=(card cbor ctap2 transcript vpcd image)
seconds=60
jobs=1
mode=fuzz
targets=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --seconds) seconds="${2:?--seconds needs a number}"; shift 2 ;;
        --seconds=*) seconds="${1#*=}"; shift ;;
        --smoke) seconds=30; shift ;;
        --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
        --seeds) mode=seeds; shift ;;
        --reproduce) mode=reproduce; shift ;;
        -h|--help) sed -n "2,19p" "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -gt 0 ]] || { echo "fuzz.sh: --seconds wants a positive number" >&2; exit 2; }
[[ "$jobs" =~ ^[0-9]+$ && "$jobs" -gt 0 ]] || { echo "fuzz.sh: --jobs wants a positive number" >&2; exit 2; }

OUT="${ARCULUS_FUZZ_BUILD:-$PWD/.build/fuzz}"
export ARCULUS_FUZZ_BUILD="$OUT"
# libFuzzer reports crashes itself; the Swift runtime's backtracer would get in its way.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}"

if [[ "$mode" == seeds ]]; then
    binary="$(Tests/Fuzz/build.sh card | tail -1)"
    rm -rf Fixtures/fuzz.new
    ARCULUS_FUZZ_WRITE_SEEDS="$PWD/Fixtures/fuzz.new" "$binary"
    # Keep the inputs of past findings (regression-*), which the generator does not make.
    for old in Fixtures/fuzz/*/regression-*; do
        [[ -e "$old" ]] || continue
        mkdir -p "Fixtures/fuzz.new/$(basename "$(dirname "$old")")"
        cp "$old" "Fixtures/fuzz.new/$(basename "$(dirname "$old")")/"
    done
    rm -rf Fixtures/fuzz && mv Fixtures/fuzz.new Fixtures/fuzz
    for dir in Fixtures/fuzz/*/; do printf '%-12s %s seeds\n' "$(basename "$dir")" "$(ls "$dir" | wc -l)"; done
    exit 0
fi

if [[ "$mode" == reproduce ]]; then
    [[ ${#targets[@]} -eq 2 ]] || { echo "usage: ./fuzz.sh --reproduce TARGET FILE" >&2; exit 2; }
    binary="$(Tests/Fuzz/build.sh "${targets[0]}" | tail -1)"
    ARCULUS_FUZZ_DETERMINISM=1 exec "$binary" "${targets[1]}"
fi

[[ ${#targets[@]} -gt 0 ]] || targets=("${ALL_TARGETS[@]}")
for target in "${targets[@]}"; do
    [[ " ${ALL_TARGETS[*]} " == *" $target "* ]] || { echo "fuzz.sh: unknown target '$target' (targets: ${ALL_TARGETS[*]})" >&2; exit 2; }
done

echo "fuzz.sh: building ${targets[*]} (swiftc -sanitize=fuzzer,address) into $OUT" >&2
Tests/Fuzz/build.sh "${targets[@]}" >/dev/null

summary=()
total_findings=0
for target in "${targets[@]}"; do
    corpus="$OUT/corpus/$target"
    findings="$OUT/findings/$target"
    mkdir -p "$corpus" "$findings" "$OUT/logs"
    seeds=()
    [[ -d "Fixtures/fuzz/$target" ]] && seeds=("Fixtures/fuzz/$target")
    log="$OUT/logs/$target.log"
    before=$(ls "$findings" | wc -l)
    echo "fuzz.sh: $target for ${seconds}s (log: $log)" >&2
    args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=8192 -print_final_stats=1
          -artifact_prefix="$findings/" "$corpus" "${seeds[@]}")
    if [[ "$jobs" -gt 1 ]]; then args=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 "${args[@]}"); fi
    status=0
    "$OUT/bin/fuzz-$target" "${args[@]}" >"$log" 2>&1 || status=$?
    executions=$( (grep -Eo 'stat::number_of_executed_units: [0-9]+' "$log" || true) | awk '{s += $2} END {print s + 0}')
    if [[ "$executions" -eq 0 ]]; then
        # -fork mode prints no final stats: take the last progress line's count.
        executions=$( (grep -Eo '^#[0-9]+' "$log" || true) | tail -1 | tr -d '#')
        executions=${executions:-0}
    fi
    # libFuzzer's own average (a run stops early at its first finding).
    rate=$( (grep -Eo 'stat::average_exec_per_sec: +[0-9]+' "$log" || true) | awk '{s += $2} END {print s + 0}')
    [[ "$rate" -gt 0 ]] || rate=$(( executions / seconds ))
    corpus_size=$(ls "$corpus" | wc -l)
    after=$(ls "$findings" | wc -l)
    new=$(( after - before ))
    if [[ "$status" -ne 0 && "$new" -eq 0 ]]; then
        # A report without a saved input (e.g. a leak at exit) still counts.
        grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|fuzz property violated' "$log" && new=1
    fi
    total_findings=$(( total_findings + new ))
    summary+=("$(printf '%-11s %6ss %12s %9s/s %8s %9s' "$target" "$seconds" "$executions" "$rate" "$corpus_size" "$new")")
    if [[ "$new" -gt 0 ]]; then
        echo "fuzz.sh: $target: $new finding(s):" >&2
        grep -E 'ERROR:|SUMMARY:|fuzz property violated|Fatal error' "$log" | head -20 >&2 || true
        ls -t "$findings" | head -"$new" | sed "s|^|    $findings/|" >&2
    fi
done

echo
printf '%-11s %7s %12s %11s %8s %9s\n' target time executions rate corpus findings
printf '%s\n' "${summary[@]}"
if [[ "$total_findings" -gt 0 ]]; then
    echo "fuzz.sh: $total_findings finding(s); reproduce one with ./fuzz.sh --reproduce TARGET FILE" >&2
    exit 1
fi
echo "fuzz.sh: no findings"
