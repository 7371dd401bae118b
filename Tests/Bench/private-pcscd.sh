#!/usr/bin/env bash
# Runs a command beside a private pcscd, for machines where another process holds the vpcd
# slots of the system pcscd (a shared development machine). Needs root (a mount namespace).
#
#   Tests/Bench/private-pcscd.sh ./bench.sh --vpcd-port 35984
#
# The command runs in its own mount namespace in which /run/pcscd is a fresh tmpfs, so PC/SC
# clients inside (the benchmark, pyscard, opensc-tool) reach a pcscd started here, whose vpcd
# driver listens on ports $VPCD_PORT and $VPCD_PORT+1 (default 35983/35984: readers
# 'Virtual PCD 00 00' and 'Virtual PCD 00 01') instead of 35963/35964. The system pcscd and
# its cards are untouched; the private pcscd is stopped when the command ends.
set -euo pipefail

if [[ "${ARCULUS_PRIVATE_PCSCD:-}" != inside ]]; then
    [[ $(id -u) -eq 0 ]] || { echo "private-pcscd: needs root (unshare -m)" >&2; exit 1; }
    exec env ARCULUS_PRIVATE_PCSCD=inside unshare --mount --propagation private "$0" "$@"
fi

port="${VPCD_PORT:-35983}"
driver="$(awk '$1 == "LIBPATH" { print $2 }' /etc/reader.conf.d/vpcd 2>/dev/null || true)"
driver="${driver:-/usr/lib/pcsc/drivers/serial/libifdvpcd.so}"
conf="$(mktemp -d)"
printf 'FRIENDLYNAME "Virtual PCD"\nDEVICENAME   /dev/null:0x%X\nLIBPATH      %s\nCHANNELID    0x%X\n' \
    "$port" "$driver" "$port" >"$conf/vpcd"

mkdir -p /run/pcscd
mount -t tmpfs tmpfs /run/pcscd
pcscd --foreground --config "$conf" >"$conf/pcscd.log" 2>&1 &
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
echo "private-pcscd: pcscd $pcscd_pid, vpcd on ports $port and $((port + 1))" >&2
"$@"
