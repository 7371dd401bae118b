#!/usr/bin/env bash
# Installs what building, serving and testing the emulator need on Debian 12, idempotently, and
# starts pcscd if it is not running. Used by serve.sh, test.sh and .ci/run.
#   ./setup.sh            build + serve needs (libssl-dev, libpcsclite-dev, pcscd, vsmartcard-vpcd)
#   ./setup.sh --tests    also the interop clients (opensc, pcsc-tools, python-fido2, pyscard, pytest),
#                         jq and openssl (the documentation's shell blocks use them; test_docs.py
#                         runs them), the card page's browser tests' headless chromium,
#                         chromium-driver and selenium, and the fido2 sdist whose tests/device
#                         suite test.sh runs (.build/device-suite)
#   ./setup.sh --readers N
#                         vpcd readers for N cards at once: writes pcscd's vpcd configuration
#                         (/etc/reader.conf.d/vpcd) for N readers and RESTARTS THE MACHINE'S pcscd
#                         to load it: every PC/SC application on the machine loses its reader
#                         connections. Readers come in pairs (vpcd has two slots per load), at
#                         most 16 (pcscd's limit, other readers included); reader 2k+s listens on
#                         port 35963+2k+s and is named "Virtual PCD 00 0s" for k = 0 (Debian's
#                         two readers, unchanged), "Virtual PCD k 00 0s" after. --readers 2 puts
#                         Debian's file back.
#   ./setup.sh --readers N --no-restart
#                         only writes the configuration, for a pcscd started afterwards (what
#                         Tests/isolated.sh does for its own pcscd; VPCD_READERS=N there).
# Environment (for a pcscd of one's own, as Tests/Bench/private-pcscd.sh runs): ARCULUS_READER_CONF
# (the file, default /etc/reader.conf.d/vpcd), ARCULUS_VPCD_BASE_PORT (default 35963),
# ARCULUS_VPCD_DRIVER_DIR (where the driver copies go, default /usr/local/lib/arculus-card/vpcd).
set -euo pipefail

tests=false
readers=""
restart=true
while (($#)); do
    case "$1" in
        --tests) tests=true ;;
        --readers)
            readers="${2:-}"
            shift
            [[ "$readers" =~ ^[0-9]+$ ]] && ((readers >= 1 && readers <= 16)) \
                || { echo "setup: --readers wants a number of readers from 1 to 16" >&2; exit 2; }
            ;;
        --no-restart) restart=false ;;
        *) echo "setup: unknown option $1 (--tests, --readers N, --no-restart)" >&2; exit 2 ;;
    esac
    shift
done
[[ -n "$readers" || "$restart" == true ]] || { echo "setup: --no-restart goes with --readers N" >&2; exit 2; }

sudo_cmd=()
[[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)

packages=(libssl-dev libpcsclite-dev pcscd vsmartcard-vpcd pkg-config)
python_packages=()
if [[ "$tests" == true ]]; then
    # chromium + chromium-driver: the browser the card page's tests (Tests/Interop/test_ui.py) drive.
    packages+=(opensc pcsc-tools jq openssl chromium chromium-driver)
    # webauthn (py_webauthn): the WebAuthn library the flow tests' FIDO2 server verifies with;
    # selenium: what drives chromium through chromium-driver.
    python_packages=("fido2==2.2.1" "pyscard==2.3.1" "pytest>=8" "webauthn==3.0.1" "selenium==4.51.0")
fi

missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}" >&2
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ((${#python_packages[@]})); then
    if ! python3 - <<'PY' 2>/dev/null
import importlib.metadata as m
assert m.version("fido2") == "2.2.1" and m.version("pyscard") == "2.3.1" and m.version("webauthn") == "3.0.1"
assert m.version("selenium") == "4.51.0"
import pytest  # noqa: F401
PY
    then
        echo "setup: installing ${python_packages[*]}" >&2
        python3 -m pip install -q "${python_packages[@]}"
    fi
    # python-fido2's device suite comes only in its sdist: fetched here, with everything else that
    # needs the network, so the tests themselves run offline (Tests/DeviceSuite/run.sh).
    fido2_version="$(python3 -c 'import importlib.metadata as m; print(m.version("fido2"))')"
    suite_cache="$(dirname "$0")/.build/device-suite"
    if [[ ! -f "$suite_cache/fido2-$fido2_version.tar.gz" ]]; then
        echo "setup: downloading the fido2 $fido2_version sdist (python-fido2's device suite)" >&2
        mkdir -p "$suite_cache"
        python3 -m pip download -q --no-binary :all: --no-deps "fido2==$fido2_version" -d "$suite_cache"
    fi
fi

# The vpcd configuration for $readers readers. The driver keeps its slots in one global array, so
# a second entry on the same library would overwrite the first one's slots: every entry after the
# first loads a copy of the library of its own, and has a friendly name of its own (pcscd names
# readers of different libraries "NAME 00 0s" whatever their number).
write_readers() {
    local conf="${ARCULUS_READER_CONF:-/etc/reader.conf.d/vpcd}"
    local base="${ARCULUS_VPCD_BASE_PORT:-35963}"
    local copies="${ARCULUS_VPCD_DRIVER_DIR:-/usr/local/lib/arculus-card/vpcd}"
    local driver=/usr/lib/pcsc/drivers/serial/libifdvpcd.so
    [[ -e "$driver" ]] || driver="$(dpkg -L vsmartcard-vpcd 2>/dev/null | grep -m1 '/libifdvpcd\.so$' || true)"
    [[ -n "$driver" && -e "$driver" ]] || { echo "setup: no vpcd driver (libifdvpcd.so) found; is vsmartcard-vpcd installed?" >&2; exit 1; }
    local entries=$(((readers + 1) / 2)) text="" entry port name library
    for ((entry = 0; entry < entries; entry++)); do
        port=$((base + 2 * entry))
        name="Virtual PCD"
        library="$driver"
        if ((entry > 0)); then
            name="Virtual PCD $entry"
            library="$copies/libifdvpcd-$entry.so"
            text+=$'\n'"# readers $((2 * entry + 1)) and $((2 * entry + 2)) (setup.sh --readers $readers): ports $port and $((port + 1))"$'\n'
        fi
        text+="$(printf 'FRIENDLYNAME "%s"\nDEVICENAME   /dev/null:0x%X\nLIBPATH      %s\nCHANNELID    0x%X' "$name" "$port" "$library" "$port")"$'\n'
    done
    if ((entries > 1)); then
        "${sudo_cmd[@]}" mkdir -p "$copies"
        for ((entry = 1; entry < entries; entry++)); do
            "${sudo_cmd[@]}" install -m 0644 "$driver" "$copies/libifdvpcd-$entry.so"
        done
    fi
    for stale in "$copies"/libifdvpcd-*.so; do
        [[ -e "$stale" ]] || continue
        entry="${stale##*-}"
        entry="${entry%.so}"
        [[ "$entry" =~ ^[0-9]+$ ]] && ((entry >= entries)) && "${sudo_cmd[@]}" rm -f "$stale"
    done
    printf '%s' "$text" | "${sudo_cmd[@]}" tee "$conf.tmp" >/dev/null
    "${sudo_cmd[@]}" mv "$conf.tmp" "$conf"
    echo "setup: $conf declares $((2 * entries)) vpcd readers on ports $base-$((base + 2 * entries - 1))" >&2
}

# The pcscd the configuration is for: the one whose pid /run/pcscd/pcscd.pid holds (on a user's
# machine, the system's), never any other process called pcscd.
restart_pcscd() {
    local pid=""
    [[ -r /run/pcscd/pcscd.pid ]] && pid="$(cat /run/pcscd/pcscd.pid)"
    if [[ -n "$pid" ]] && [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == pcscd ]]; then
        echo "setup: restarting pcscd (pid $pid), the machine's PC/SC daemon, to load the readers: every PC/SC application loses its reader connections" >&2
        if [[ -d /run/systemd/system ]] && systemctl is-active --quiet pcscd.service 2>/dev/null; then
            "${sudo_cmd[@]}" systemctl restart pcscd.service
            return
        fi
        "${sudo_cmd[@]}" kill "$pid"
        for _ in $(seq 100); do
            [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" == pcscd ]] || break
            sleep 0.1
        done
        [[ "$(cat "/proc/$pid/comm" 2>/dev/null)" != pcscd ]] || { echo "setup: pcscd (pid $pid) did not stop" >&2; exit 1; }
    fi
    "${sudo_cmd[@]}" pcscd
}

if [[ -n "$readers" ]]; then
    write_readers
    [[ "$restart" == true ]] || exit 0
    restart_pcscd
elif ! pidof pcscd >/dev/null; then
    echo "setup: starting pcscd" >&2
    "${sudo_cmd[@]}" pcscd
fi
for _ in $(seq 50); do
    [[ -S /run/pcscd/pcscd.comm ]] && break
    sleep 0.1
done
[[ -S /run/pcscd/pcscd.comm ]] || { echo "setup: pcscd did not come up" >&2; exit 1; }
