#!/usr/bin/env bash
# Runs a command beside a private pcscd, for machines where another process holds the vpcd
# slots of the system pcscd (a shared development machine). Needs root (a mount namespace).
#
#   Tests/Bench/private-pcscd.sh ./bench.sh --vpcd-port 35984
#   VPCD_READERS=4 Tests/Bench/private-pcscd.sh CMD...
#
# The command runs in its own mount namespace in which /run/pcscd and /etc/reader.conf.d are fresh
# tmpfs, so PC/SC clients inside (the benchmark, pyscard, opensc-tool) reach a pcscd started here,
# and `arculus-card serve` names its readers from the configuration written here: VPCD_READERS
# vpcd readers (default 2, rounded up to pairs; `setup.sh --readers`) on ports $VPCD_PORT,
# $VPCD_PORT+1, … (default 35983: readers 'Virtual PCD 00 00', 'Virtual PCD 00 01', 'Virtual PCD 1
# 00 00', …) instead of 35963, …. The system pcscd and its cards are untouched; the private pcscd
# is stopped when the command ends.
set -euo pipefail

if [[ "${ARCULUS_PRIVATE_PCSCD:-}" != inside ]]; then
    [[ $(id -u) -eq 0 ]] || { echo "private-pcscd: needs root (unshare -m)" >&2; exit 1; }
    exec env ARCULUS_PRIVATE_PCSCD=inside unshare --mount --propagation private "$0" "$@"
fi

port="${VPCD_PORT:-35983}"
conf="$(mktemp -d)"
mkdir -p /run/pcscd
mount -t tmpfs tmpfs /run/pcscd
mount -t tmpfs tmpfs /etc/reader.conf.d
ARCULUS_VPCD_BASE_PORT="$port" ARCULUS_VPCD_DRIVER_DIR="$conf/drivers" \
    "$(dirname "$0")/../../setup.sh" --readers "${VPCD_READERS:-2}" --no-restart 2>"$conf/setup.log" \
    || { cat "$conf/setup.log" >&2; exit 1; }
pcscd --foreground >"$conf/pcscd.log" 2>&1 &
pcscd_pid=$!
cleanup() {
    kill "$pcscd_pid" 2>/dev/null || true
    wait "$pcscd_pid" 2>/dev/null || true
    rm -rf "$conf"
}
trap cleanup EXIT
for _ in $(seq 50); do
    [[ -S /run/pcscd/pcscd.comm ]] && break
    sleep 0.1
done
[[ -S /run/pcscd/pcscd.comm ]] || { echo "private-pcscd: pcscd did not come up:" >&2; cat "$conf/pcscd.log" >&2; exit 1; }
echo "private-pcscd: pcscd $pcscd_pid, $(grep -c '^FRIENDLYNAME' /etc/reader.conf.d/vpcd | awk '{print $1 * 2}') vpcd readers from port $port" >&2
"$@"
