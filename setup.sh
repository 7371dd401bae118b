#!/usr/bin/env bash
# Installs what building, serving and testing the emulator need on Debian 12, idempotently, and
# starts pcscd if it is not running. Used by serve.sh, test.sh and .ci/run.
#   ./setup.sh            build + serve needs (libssl-dev, libpcsclite-dev, pcscd, vsmartcard-vpcd)
#   ./setup.sh --tests    also the interop clients (opensc, pcsc-tools, python-fido2, pyscard, pytest)
set -euo pipefail

packages=(libssl-dev libpcsclite-dev pcscd vsmartcard-vpcd pkg-config)
python_packages=()
if [[ "${1:-}" == "--tests" ]]; then
    packages+=(opensc pcsc-tools)
    python_packages=("fido2==2.2.1" "pyscard==2.3.1" "pytest>=8")
fi

missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if ((${#missing[@]})); then
    echo "setup: installing ${missing[*]}" >&2
    sudo_cmd=()
    [[ $(id -u) -eq 0 ]] || sudo_cmd=(sudo)
    "${sudo_cmd[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if ((${#python_packages[@]})); then
    if ! python3 - <<'PY' 2>/dev/null
import importlib.metadata as m
assert m.version("fido2") == "2.2.1" and m.version("pyscard") == "2.3.1"
import pytest  # noqa: F401
PY
    then
        echo "setup: installing ${python_packages[*]}" >&2
        python3 -m pip install -q "${python_packages[@]}"
    fi
fi

if ! pidof pcscd >/dev/null; then
    echo "setup: starting pcscd" >&2
    if [[ $(id -u) -eq 0 ]]; then pcscd; else sudo pcscd; fi
fi
for _ in $(seq 50); do
    [[ -S /run/pcscd/pcscd.comm ]] && break
    sleep 0.1
done
[[ -S /run/pcscd/pcscd.comm ]] || { echo "setup: pcscd did not come up" >&2; exit 1; }
