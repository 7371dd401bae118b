#!/usr/bin/env bash
# Runs a command in a network and mount namespace of its own, beside a private pcscd whose vpcd
# readers listen on the usual ports (35963, 35964, ...) of that namespace's own loopback. Tests
# that serve cards on vpcd slots can then run while other cards, other test runs or a developer's
# `./serve.sh` use the machine's pcscd: nothing outside is seen or touched. Needs root.
#
#   Tests/isolated.sh python3 -m pytest Tests/Interop
#   Tests/isolated.sh ./test.sh
#   VPCD_READERS=4 Tests/isolated.sh CMD...     # 4 readers (setup.sh --readers 4), in there only
set -euo pipefail
if [[ "${ARCULUS_ISOLATED:-}" != inside ]]; then
    [[ $(id -u) -eq 0 ]] || { echo "isolated.sh: needs root (unshare)" >&2; exit 1; }
    exec env ARCULUS_ISOLATED=inside unshare --net --mount --propagation private "$0" "$@"
fi
ip link set lo up
exec env VPCD_PORT=35963 "$(dirname "$0")/Bench/private-pcscd.sh" "$@"
