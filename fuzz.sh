#!/usr/bin/env bash
# Fuzzes the card with libFuzzer (the Swift toolchain's -sanitize=fuzzer), then checks every
# corpus input with AddressSanitizer and LeakSanitizer too. See Tests/Fuzz/README.md for the
# targets and what each one checks.
#
#   ./fuzz.sh                         # every target, 60 s each
#   ./fuzz.sh --seconds 300 card cbor # chosen targets, 5 minutes each
#   ./fuzz.sh --runs 10000000 ctap2   # until 10 million executions (or --seconds, if given, first)
#   ./fuzz.sh --smoke                 # CI: every target, 30 s each
#   ./fuzz.sh --seconds 28800 --jobs 2 card ctap2   # a long run (8 h, 2 worker processes)
#   ./fuzz.sh --seeds                 # regenerate the seed corpora in Fixtures/fuzz/
#   ./fuzz.sh --reproduce card FILE   # run one input again (a finding) with every check on
#
# Targets: card (APDU programs into the whole card), cbor (the CBOR decoder), ctap2 (CTAP2
# requests, raw and generated, into the authenticator), transcript (the transcript text
# parser), vpcd (vpcd framing and the bridge's message handling), image (the card image decoder).
#
# Inputs found interesting are kept in .build/fuzz/corpus/TARGET (the committed seeds in
# Fixtures/fuzz/TARGET are read, never written). Fuzzing runs the coverage-only build
# (fuzz-TARGET, twice the executions); afterwards every corpus input and seed runs once more in
# the AddressSanitizer build (fuzz-TARGET-asan) with every check on: the corpus check. A crash,
# hang (10 s), leak or sanitizer report is saved under .build/fuzz/findings/TARGET/ and listed at
# the end; the exit status is then 1. Every finding becomes a regression test in
# Tests/RobustnessTests before it is fixed.
set -euo pipefail
cd "$(dirname "$0")"

mapfile -t ALL_TARGETS < <(Tests/Fuzz/build.sh --list)
seconds=60
runs=0
jobs=1
mode=fuzz
targets=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --seconds) seconds="${2:?--seconds needs a number}"; seconds_given=1; shift 2 ;;
        --seconds=*) seconds="${1#*=}"; seconds_given=1; shift ;;
        --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
        --smoke) seconds=30; seconds_given=1; shift ;;
        --jobs) jobs="${2:?--jobs needs a number}"; shift 2 ;;
        --seeds) mode=seeds; shift ;;
        --reproduce) mode=reproduce; shift ;;
        # The help is the comment block at the top of this file: every line after the shebang up to
        # the first one that is not a comment.
        -h|--help) sed -n '2,/^[^#]/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "fuzz.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -gt 0 ]] || { echo "fuzz.sh: --seconds wants a positive number" >&2; exit 2; }
[[ "$runs" =~ ^[0-9]+$ ]] || { echo "fuzz.sh: --runs wants a number" >&2; exit 2; }
[[ "$jobs" =~ ^[0-9]+$ && "$jobs" -gt 0 ]] || { echo "fuzz.sh: --jobs wants a positive number" >&2; exit 2; }
# --runs alone: no time limit but the executions (a week, in practice).
if [[ "$runs" -gt 0 && -z "${seconds_given:-}" ]]; then seconds=604800; fi

OUT="${ARCULUS_FUZZ_BUILD:-$PWD/.build/fuzz}"
export ARCULUS_FUZZ_BUILD="$OUT"
# libFuzzer reports crashes itself; the Swift runtime's backtracer would get in its way.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}"
# The longest input per target: programs of a few operations (the start states give depth),
# and text or images long enough for every structure, so that executions stay cheap.
declare -A MAX_LEN=([card]=256 [ctap2]=256 [vpcd]=192 [transcript]=1024 [cbor]=4096 [image]=4096)

if [[ "$mode" == seeds ]]; then
    binary="$(Tests/Fuzz/build.sh --fast card | tail -1)"
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
    binary="$(Tests/Fuzz/build.sh --asan "${targets[0]}" | tail -1)"
    ARCULUS_FUZZ_DETERMINISM=1 exec "$binary" "${targets[1]}"
fi

[[ ${#targets[@]} -gt 0 ]] || targets=("${ALL_TARGETS[@]}")
for target in "${targets[@]}"; do
    [[ " ${ALL_TARGETS[*]} " == *" $target "* ]] || { echo "fuzz.sh: unknown target '$target' (targets: ${ALL_TARGETS[*]})" >&2; exit 2; }
done

echo "fuzz.sh: building ${targets[*]} (swiftc -sanitize=fuzzer, and with address) into $OUT" >&2
Tests/Fuzz/build.sh "${targets[@]}" >/dev/null

# The last libFuzzer status line's field $2 (cov, ft, corp) in log $1.
last_field() { (grep -Eo "$2: [0-9]+" "$1" || true) | tail -1 | awk '{print $2 + 0}'; }

# One target: fuzz, then the corpus check; its summary line goes to logs/TARGET.summary.
fuzz_target() {
    local target="$1" corpus findings seeds log before limit args status started cpu elapsed executions rate
    local cpu_rate cov ft corpus_size after new
    corpus="$OUT/corpus/$target"
    findings="$OUT/findings/$target"
    mkdir -p "$corpus" "$findings" "$OUT/logs"
    seeds=()
    [[ -d "Fixtures/fuzz/$target" ]] && seeds=("Fixtures/fuzz/$target")
    log="$OUT/logs/$target.log"
    before=$(ls "$findings" | wc -l)
    limit="${seconds}s"
    [[ "$runs" -gt 0 ]] && limit+=" or $runs executions"
    echo "fuzz.sh: $target for $limit (log: $log)" >&2
    # The scratch corpus comes first: libFuzzer writes new inputs into the first directory only.
    args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len="${MAX_LEN[$target]:-4096}"
          -print_final_stats=1 -artifact_prefix="$findings/" "$corpus" "${seeds[@]}")
    [[ "$runs" -gt 0 ]] && args=(-runs="$runs" "${args[@]}")
    if [[ "$jobs" -gt 1 ]]; then args=(-fork="$jobs" -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 "${args[@]}"); fi
    status=0
    started=$(date +%s)
    # The CPU seconds the fuzzer used (user + system), from bash's `time`: executions per CPU
    # second is what a target costs, whatever else the machine is doing.
    { TIMEFORMAT='%3U %3S'; time "$OUT/bin/fuzz-$target" "${args[@]}" >"$log" 2>&1; } 2>"$log.time" || status=$?
    cpu=$(awk '{print $1 + $2}' "$log.time")
    elapsed=$(( $(date +%s) - started ))
    executions=$( (grep -Eo 'stat::number_of_executed_units: [0-9]+' "$log" || true) | awk '{s += $2} END {print s + 0}')
    if [[ "$executions" -eq 0 ]]; then
        # -fork mode prints no final stats: take the last progress line's count.
        executions=$( (grep -Eo '^#[0-9]+' "$log" || true) | tail -1 | tr -d '#')
        executions=${executions:-0}
    fi
    # libFuzzer's own average (a run stops early at its first finding).
    rate=$( (grep -Eo 'stat::average_exec_per_sec: +[0-9]+' "$log" || true) | awk '{s += $2} END {print s + 0}')
    [[ "$rate" -gt 0 ]] || rate=$(( executions / (elapsed > 0 ? elapsed : 1) ))
    cpu_rate=$(awk -v n="$executions" -v c="$cpu" 'BEGIN {print (c > 0 ? int(n / c) : 0)}')
    cov=$(last_field "$log" cov)
    ft=$(last_field "$log" ft)
    corpus_size=$(ls "$corpus" | wc -l)
    echo "fuzz.sh: $target: $executions executions in ${elapsed}s = $rate exec/s ($cpu_rate per CPU second), cov $cov ft $ft, corpus $corpus_size" >&2

    # The corpus check: every input once more under AddressSanitizer and LeakSanitizer, with the
    # determinism property for each (-runs=0: run the corpus, mutate nothing).
    if [[ "$status" -eq 0 ]]; then
        echo "fuzz.sh: $target: corpus check, AddressSanitizer ($corpus_size inputs + seeds)" >&2
        ARCULUS_FUZZ_DETERMINISM=1 "$OUT/bin/fuzz-$target-asan" -runs=0 -timeout=10 -rss_limit_mb=4096 \
            -max_len="${MAX_LEN[$target]:-4096}" -artifact_prefix="$findings/" "$corpus" "${seeds[@]}" >>"$log" 2>&1 || status=$?
    fi
    after=$(ls "$findings" | wc -l)
    new=$(( after - before ))
    if [[ "$status" -ne 0 && "$new" -eq 0 ]]; then
        # A report without a saved input (e.g. a leak at exit) still counts.
        grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|fuzz property violated' "$log" && new=1
    fi
    printf '%-11s %7ss %12s %9s/s %9s/s %7s %8s %8s %9s\n' "$target" "$elapsed" "$executions" "$rate" "$cpu_rate" \
        "$cov" "$ft" "$corpus_size" "$new" >"$OUT/logs/$target.summary"
    if [[ "$new" -gt 0 ]]; then
        echo "fuzz.sh: $target: $new finding(s):" >&2
        grep -E 'ERROR:|SUMMARY:|fuzz property violated|Fatal error' "$log" | head -20 >&2 || true
        ls -t "$findings" | head -"$new" | sed "s|^|    $findings/|" >&2
    fi
    if [[ "$cpu_rate" -lt 5000 ]]; then
        if [[ "$parallel" -gt 1 && ${#targets[@]} -gt 1 ]]; then
            # Side by side, the targets share the machine and each may run slower per CPU
            # second: only a lone run compares with the floor.
            echo "fuzz.sh: $target: $cpu_rate executions per CPU second beside other targets (run it alone to compare with 5000)" >&2
        else
            echo "fuzz.sh: $target: WARNING: $cpu_rate executions per CPU second, below 5000: a slower harness?" >&2
        fi
    fi
}

# Targets run side by side, one per core (each libFuzzer process is single-threaded), unless
# --jobs gives one target several worker processes: then one target at a time.
parallel=1
if [[ "$jobs" -eq 1 ]]; then parallel=$(nproc 2>/dev/null || echo 1); fi
running=0
for target in "${targets[@]}"; do
    rm -f "$OUT/logs/$target.summary"
    fuzz_target "$target" &
    running=$((running + 1))
    if [[ "$running" -ge "$parallel" ]]; then wait -n || true; running=$((running - 1)); fi
done
wait || true

summary=()
total_findings=0
for target in "${targets[@]}"; do
    line="$(cat "$OUT/logs/$target.summary" 2>/dev/null || printf '%-11s (did not finish: see %s)' "$target" "$OUT/logs/$target.log")"
    summary+=("$line")
    new=$(awk '{print $NF + 0}' "$OUT/logs/$target.summary" 2>/dev/null || echo 1)
    total_findings=$(( total_findings + new ))
done

echo
printf '%-11s %8s %12s %11s %11s %7s %8s %8s %9s\n' target time executions exec/s per-cpu-s cov ft corpus findings
printf '%s\n' "${summary[@]}"
if [[ "$total_findings" -gt 0 ]]; then
    echo "fuzz.sh: $total_findings finding(s); reproduce one with ./fuzz.sh --reproduce TARGET FILE" >&2
    exit 1
fi
echo "fuzz.sh: no findings"
