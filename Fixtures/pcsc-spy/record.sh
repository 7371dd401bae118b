#!/usr/bin/env bash
# Records a pcsc-spy log of fido2_get_info_pin_retries.py talking to the card in READER.
#
#   Fixtures/pcsc-spy/record.sh "Virtual PCD 00 01" OUT_BASENAME
#
# writes OUT_BASENAME.raw (what libpcscspy writes to its FIFO), OUT_BASENAME.txt
# (`pcsc-spy -n` of it) and OUT_BASENAME.color-d-t.txt (`pcsc-spy -d -t` of it: colours, hidden
# handles, thread prefixes). A card must be on READER, e.g. `arculus-card serve --slot 1`.
#
# pyscard dlopen()s libpcsclite.so.1, so the LD_PRELOAD route of `man pcsc-spy` does not reach
# it; instead LD_LIBRARY_PATH points at a folder where libpcsclite.so.1 is the spy and
# libpcsclite_nospy.so.1 the real library. Debian 12's spy crashes on pyscard's NULL pioRecvPci,
# so libpcsclite.so.1 there is spy-recv-pci-fix.c (see its comment), which loads the spy.
set -euo pipefail
reader="$1"
out="$2"
here="$(cd "$(dirname "$0")" && pwd)"
multiarch="$(gcc -print-multiarch)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir "$work/lib" "$work/home"
gcc -Wall -shared -fPIC -o "$work/lib/libpcsclite.so.1" "$here/spy-recv-pci-fix.c" \
    $(pkg-config --cflags libpcsclite) -Wl,--no-as-needed -l:libpcscspy.so.0 -ldl
ln -s "/usr/lib/$multiarch/libpcsclite.so.1" "$work/lib/libpcsclite_nospy.so.1"
mkfifo "$work/home/pcsc-spy"                 # libpcscspy writes to $HOME/pcsc-spy
cat "$work/home/pcsc-spy" > "$out.raw" &
reader_pid=$!
HOME="$work/home" LD_LIBRARY_PATH="$work/lib" python3 "$here/fido2_get_info_pin_retries.py" "$reader"
wait "$reader_pid"
pcsc-spy -n "$out.raw" > "$out.txt"
pcsc-spy -d -t "$out.raw" > "$out.color-d-t.txt"
