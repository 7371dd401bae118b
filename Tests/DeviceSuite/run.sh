#!/usr/bin/env bash
# Runs python-fido2's own device test suite (tests/device of the fido2 sdist, the suite Yubico
# runs against real authenticators) against the emulated card, through pcscd + vpcd, for every
# built-in card profile -- unmodified, with nothing deselected.
#
#   Tests/DeviceSuite/run.sh [--profile NAME]... [--port N] [--junit DIR] [--keep]
#                            [--timeout SECONDS] [-- PYTEST-ARGS...]
#
# What it does:
#   1. Reads the pinned fido2 version from setup.sh ("fido2==X"), checks that the installed
#      python-fido2 is that version, and fetches the sdist of it once with
#      `pip download --no-binary :all: --no-deps fido2==X` into .build/device-suite/ (cached).
#      From it only tests/__init__.py, tests/conftest.py (the suite's command-line options:
#      --reader, --controller, --pico-port, --ep-rp-id, ...) and tests/device are extracted,
#      into .build/device-suite/fido2-X/, and never changed. The tests import the installed
#      fido2 package (the sdist's own fido2/ is not extracted, so it cannot shadow it).
#   2. Re-runs itself inside a private pcscd (Tests/Bench/private-pcscd.sh: its own mount
#      namespace with a tmpfs on /run/pcscd, its vpcd driver on ports N and N+1), so the
#      system pcscd and other people's readers and cards are never touched.
#   3. For each profile: a fresh card image in a temporary directory, `arculus-card serve`
#      on the private vpcd with its own control socket (APDU trace with --verbose), and
#      Tests/DeviceSuite/controller.py, a loopback-only HTTP server that plays the suite's
#      "Pico controller": power/off and power/on take the card off the reader and put it
#      back (control socket ops remove / insert); touch is a no-op for an NFC card.
#   4. Runs the suite with pytest:
#        --reader "Virtual PCD 00 00" --controller http://127.0.0.1:CPORT --pico-port 0
#      (and --ep-rp-id with the first of the profile's enterpriseAttestationRPIDs, if any)
#      and prints passed / failed / errors / skipped / deselected per profile.
#
# Exit status: 0 when every profile ran with no failure and no error; 1 when any profile had
# a failed or errored test, or the suite did not run to the end; 64 for a bad command line.
#
# Needs root (unshare --mount), pcscd and vsmartcard-vpcd, python3 with the pinned fido2,
# pyscard and pytest and the sdist (./setup.sh --tests; without it, network access the first time).
# Set ARCULUS_CARD to an arculus-card binary to skip `swift build --product arculus-card`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
self="$root/Tests/DeviceSuite/run.sh"
cache="$root/.build/device-suite"

usage() {
    cat <<'EOF'
Usage: Tests/DeviceSuite/run.sh [--profile NAME]... [--port N] [--junit DIR] [--keep]
                                [--timeout SECONDS] [-- PYTEST-ARGS...]

Runs python-fido2's device test suite (tests/device of the pinned fido2 sdist) against the
emulated Arculus card on a private pcscd + vpcd, once per card profile.

Options:
  --profile NAME     A card profile to test (built-in name or profile JSON file); repeat
                     for several. Default: every built-in profile ('arculus-card profile list').
  --port N           The private vpcd's first port (the card's reader 'Virtual PCD 00 00');
                     N+1 is its second slot. Default 36200 (the system pcscd uses 35963/35964).
                     The controller's HTTP port is picked free by the kernel (127.0.0.1 only).
  --junit DIR        Write each profile's JUnit XML to DIR/<profile>.xml.
  --keep             Keep the logs under .build/device-suite/<profile>/: serve.out,
                     serve.err (APDU trace, --verbose), controller.log (every request, with
                     timestamps), pytest.txt (full pytest -v -rA output), junit.xml, card.img.
  --timeout SECONDS  Stop a profile's pytest run after this long (default 900); it then counts
                     as not run to the end.
  -- PYTEST-ARGS     Passed to pytest after the harness's own arguments. For diagnostics only
                     (e.g. --deselect NODEID, -x, --ep-rp-id ID); a gating run passes none.
  -h, --help         This help.

Environment: ARCULUS_CARD (an arculus-card binary; default: swift build --product arculus-card).

Exit status: 0 when no profile had a failure or error; 1 otherwise; 64 for a bad command line.
EOF
}

# ---- command line -----------------------------------------------------------------------------
profiles=()
port=36200
junit_dir=""
keep=0
timeout_s=900
pytest_extra=()
inside=0
args=("$@")    # kept to re-run this script inside the private pcscd
while (($#)); do
    case "$1" in
        --profile) [[ $# -ge 2 ]] || { echo "run.sh: --profile needs a value" >&2; exit 64; }
                   profiles+=("$2"); shift 2 ;;
        --port)    [[ "${2:-}" =~ ^[0-9]+$ ]] && (($2 > 0 && $2 < 65535)) \
                       || { echo "run.sh: --port needs a port number" >&2; exit 64; }
                   port="$2"; shift 2 ;;
        --junit)   [[ $# -ge 2 ]] || { echo "run.sh: --junit needs a directory" >&2; exit 64; }
                   junit_dir="$2"; shift 2 ;;
        --keep)    keep=1; shift ;;
        --timeout) [[ "${2:-}" =~ ^[0-9]+$ ]] || { echo "run.sh: --timeout needs seconds" >&2; exit 64; }
                   timeout_s="$2"; shift 2 ;;
        --inside-private-pcscd) inside=1; shift ;;   # internal: set by the re-run below
        -h|--help) usage; exit 0 ;;
        --)        shift; pytest_extra=("$@"); break ;;
        *)         echo "run.sh: unknown argument '$1' (see --help)" >&2; exit 64 ;;
    esac
done
[[ -z "$junit_dir" ]] || junit_dir="$(mkdir -p "$junit_dir" && cd "$junit_dir" && pwd)"

log() { echo "device-suite: $*" >&2; }

# ---- outside the namespace: the suite and the emulator ----------------------------------------
if ((!inside)); then
    [[ $(id -u) -eq 0 ]] || { log "needs root (the private pcscd uses unshare --mount)"; exit 1; }

    # The pinned version lives in setup.sh only ("fido2==X"); read it from there.
    version="$(grep -oE '"fido2==[^"]+"' "$root/setup.sh" | head -n1 | sed -E 's/"fido2==(.*)"/\1/')"
    [[ -n "$version" ]] || { log "no \"fido2==X\" pin found in setup.sh"; exit 1; }
    installed="$(python3 -c 'import importlib.metadata as m; print(m.version("fido2"))' 2>/dev/null || true)"
    [[ "$installed" == "$version" ]] || {
        log "installed python-fido2 is '${installed:-none}', setup.sh pins $version (run ./setup.sh --tests)"
        exit 1
    }

    # The sdist, once (pip checks it against PyPI's hashes), and the suite's files from it.
    mkdir -p "$cache"
    sdist="$cache/fido2-$version.tar.gz"
    if [[ ! -f "$sdist" ]]; then
        log "downloading the fido2 $version sdist"
        python3 -m pip download -q --no-binary :all: --no-deps "fido2==$version" -d "$cache"
    fi
    [[ -f "$sdist" ]] || { log "pip download did not leave $sdist"; exit 1; }
    suite="$cache/fido2-$version"
    members=("fido2-$version/tests/__init__.py" "fido2-$version/tests/conftest.py" "fido2-$version/tests/device")
    # Extract once; re-extract whenever the files differ from the sdist's (tar --diff), so a
    # run never uses a suite someone edited.
    if [[ ! -f "$suite/.extracted" ]] ||
        ! tar --diff -zf "$sdist" -C "$suite" --strip-components=1 "${members[@]}" >/dev/null 2>&1; then
        rm -rf "$suite" && mkdir -p "$suite"
        tar -xzf "$sdist" -C "$suite" --strip-components=1 "${members[@]}"
        sha256sum "$sdist" >"$suite/.extracted"
    fi

    # The emulator.
    if [[ -z "${ARCULUS_CARD:-}" ]]; then
        log "building arculus-card"
        (cd "$root" && swift build --product arculus-card >&2)
        ARCULUS_CARD="$(cd "$root" && swift build --show-bin-path)/arculus-card"
    fi
    [[ -x "$ARCULUS_CARD" ]] || { log "no arculus-card binary at $ARCULUS_CARD"; exit 1; }

    # Re-run inside a private pcscd whose vpcd listens on $port and $port+1. (The variable
    # private-pcscd.sh uses to tell it already runs inside is cleared, so it always makes a
    # namespace of its own, even when this script runs inside someone else's.)
    exec env -u ARCULUS_PRIVATE_PCSCD VPCD_PORT="$port" DEVICE_SUITE_DIR="$suite" \
        ARCULUS_CARD="$ARCULUS_CARD" "$root/Tests/Bench/private-pcscd.sh" \
        "$self" --inside-private-pcscd "${args[@]}"
fi

# ---- inside the private pcscd -----------------------------------------------------------------
suite="$DEVICE_SUITE_DIR"
card_bin="$ARCULUS_CARD"
reader="Virtual PCD 00 00"   # private-pcscd.sh names its reader "Virtual PCD"; slot 0 is on $port

if ((${#profiles[@]} == 0)); then
    # Every built-in profile: the first column of `arculus-card profile list`.
    mapfile -t profiles < <("$card_bin" profile list | awk 'NF { print $1 }')
    ((${#profiles[@]})) || { log "'arculus-card profile list' listed no profiles"; exit 1; }
fi

serve_pid=""
controller_pid=""
work=""
stop_processes() {   # only the processes this script started, by their ids
    if [[ -n "$controller_pid" ]]; then
        kill "$controller_pid" 2>/dev/null || true; wait "$controller_pid" 2>/dev/null || true
        controller_pid=""
    fi
    if [[ -n "$serve_pid" ]]; then
        kill "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true
        serve_pid=""
    fi
}
cleanup() {
    stop_processes
    [[ -z "$work" ]] || rm -rf "$work"
}
trap cleanup EXIT

# wait_for FILE REGEX SECONDS PID: until a line of FILE matches, while PID lives.
wait_for() {
    local file="$1" regex="$2" seconds="$3" pid="$4" i
    for ((i = 0; i < seconds * 10; i++)); do
        grep -qE "$regex" "$file" 2>/dev/null && return 0
        kill -0 "$pid" 2>/dev/null || return 1
        sleep 0.1
    done
    return 1
}

# Counts from pytest's final summary line ("== 14 failed, 14 passed, 338 skipped in 6.1s ==").
count() { grep -oE "[0-9]+ $2" <<<"$1" | grep -oE '^[0-9]+' || echo 0; }

declare -A result
overall=0
for profile in "${profiles[@]}"; do
    name="$(basename "$profile" .json)"
    work="$(mktemp -d "${TMPDIR:-/tmp}/device-suite.XXXXXX")"
    log "profile $profile: card image in $work"
    started=$SECONDS

    # A fresh, blank card of this model, on the private vpcd, with its own control socket.
    if ! "$card_bin" image create --card "$work/card.img" --profile "$profile" >"$work/image.json"; then
        log "profile $profile: could not create a card image"
        result[$name]="not run: 'arculus-card image create' failed"; overall=1; rm -rf "$work"; work=""
        continue
    fi
    "$card_bin" serve --card "$work/card.img" --profile "$profile" --vpcd "127.0.0.1:$port" \
        --control "$work/card.sock" --verbose >"$work/serve.out" 2>"$work/serve.err" &
    serve_pid=$!
    if ! wait_for "$work/serve.out" '^card present' 30 "$serve_pid"; then
        log "profile $profile: the card did not come up on the reader"; cat "$work/serve.err" >&2
        result[$name]="not run: serve did not come up"; overall=1; stop_processes; rm -rf "$work"; work=""
        continue
    fi

    # The suite's "Pico controller", on 127.0.0.1, any free port (written to controller.port).
    python3 "$root/Tests/DeviceSuite/controller.py" --control "$work/card.sock" --pico-port 0 \
        --log "$work/controller.log" --port-file "$work/controller.port" >/dev/null 2>>"$work/controller.log" &
    controller_pid=$!
    if ! wait_for "$work/controller.port" '^[0-9]+$' 10 "$controller_pid"; then
        log "profile $profile: the controller did not start"; cat "$work/controller.log" >&2
        result[$name]="not run: controller did not start"; overall=1; stop_processes; rm -rf "$work"; work=""
        continue
    fi
    cport="$(cat "$work/controller.port")"

    # A profile with a vendor-facilitated enterprise attestation list names its first RP ID to
    # the suite (its own --ep-rp-id option), so test_config.py::test_ep_vendor runs.
    ep_args=()
    ep_rp_id="$("$card_bin" profile show "$profile" | python3 -c \
        'import json, sys; ids = json.load(sys.stdin).get("enterpriseAttestationRPIDs") or []; print(ids[0] if ids else "")')"
    [[ -z "$ep_rp_id" ]] || ep_args=(--ep-rp-id "$ep_rp_id")

    # The suite. -c /dev/null: no ini file from anywhere (this repository, a parent directory)
    # can add options. That alone would make pytest take its rootdir from the argument
    # (tests/device), so --rootdir and --confcutdir put it back at the extracted sdist root:
    # tests/conftest.py (which defines --reader, --controller, --pico-port, --ep-rp-id, ...)
    # and tests/device/conftest.py are loaded, and node ids are tests/device/test_x.py::test_y
    # as in python-fido2's own tree (that is what --deselect takes). No byte code is written,
    # so the extracted suite stays exactly as the sdist has it.
    junit="$work/junit.xml"
    set +e
    (cd "$suite" && PYTHONDONTWRITEBYTECODE=1 timeout --signal=INT --kill-after=30 "$timeout_s" \
        python3 -m pytest -v -rA -c /dev/null --rootdir "$suite" --confcutdir "$suite" \
        -p no:cacheprovider tests/device \
        --reader "$reader" --controller "http://127.0.0.1:$cport" --pico-port 0 "${ep_args[@]}" \
        --junitxml "$junit" "${pytest_extra[@]}") >"$work/pytest.txt" 2>&1
    status=$?
    set -e
    elapsed=$((SECONDS - started))
    stop_processes

    summary="$(grep -E '^=+ .*(passed|failed|error|skipped|deselected|no tests ran).* in [0-9.]+s' "$work/pytest.txt" | tail -n1 || true)"
    passed=$(count "$summary" passed); failed=$(count "$summary" failed)
    errors=$(count "$summary" 'errors?'); skipped=$(count "$summary" skipped)
    deselected=$(count "$summary" deselected)
    line="passed $passed, failed $failed, errors $errors, skipped $skipped, deselected $deselected (${elapsed}s)"
    if ((status == 0)); then
        :
    elif ((status == 1)); then
        overall=1                                  # tests failed or errored
    else
        # 2: interrupted (a pytest.exit from the suite, or the timeout), 3: internal error,
        # 4: usage error, 5: no tests collected -- the suite did not run to the end.
        if ((status == 124)); then
            line="$line -- timed out after ${timeout_s}s: the suite did not run to the end"
        else
            line="$line -- pytest exit status $status: the suite did not run to the end"
        fi
        overall=1
        tail -n 20 "$work/pytest.txt" >&2
    fi
    result[$name]="$line"
    log "profile $profile: $line"

    [[ -z "$junit_dir" || ! -f "$junit" ]] || cp "$junit" "$junit_dir/$name.xml"
    if ((keep)); then
        dest="$cache/$name"
        rm -rf "$dest" && mkdir -p "$dest"
        cp "$work"/{serve.out,serve.err,controller.log,pytest.txt,card.img} "$dest/" 2>/dev/null || true
        [[ ! -f "$junit" ]] || cp "$junit" "$dest/junit.xml"
        log "profile $profile: logs kept in $dest"
    fi
    rm -rf "$work"; work=""
done

echo
echo "python-fido2 $(basename "$suite" | sed 's/^fido2-//') tests/device against arculus-card (vpcd port $port):"
for profile in "${profiles[@]}"; do
    name="$(basename "$profile" .json)"
    printf '  %-16s %s\n' "$name" "${result[$name]}"
done
((${#pytest_extra[@]} == 0)) || echo "  (diagnostic run: extra pytest arguments: ${pytest_extra[*]})"
exit "$overall"
