#!/usr/bin/env bash
# Builds the libFuzzer targets: each harness in Tests/Fuzz/Harnesses with the package modules it
# needs, compiled by swiftc directly with -sanitize=fuzzer,address (coverage instrumentation +
# AddressSanitizer; LeakSanitizer comes with ASan on Linux). SwiftPM is not used so that the
# package's own .build products stay uninstrumented and Package.swift needs no fuzz targets.
#
#   Tests/Fuzz/build.sh [TARGET…]      # default: every target
#
# Targets: card cbor ctap2 transcript vpcd image. Binaries go to $ARCULUS_FUZZ_BUILD
# (default .build/fuzz/bin/fuzz-TARGET). A module is recompiled only when one of its sources or
# the modules it imports changed.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="${ARCULUS_FUZZ_BUILD:-$ROOT/.build/fuzz}"
MODULES_DIR="$OUT/modules"
BIN_DIR="$OUT/bin"
mkdir -p "$MODULES_DIR" "$BIN_DIR" "$OUT/module-cache"

ALL_TARGETS=(card cbor ctap2 transcript vpcd image)
# Every module that imports CardCrypto needs the COpenSSL module map to load it.
SWIFT_FLAGS=(-O -g -sanitize=fuzzer,address -parse-as-library -swift-version 6
             -module-cache-path "$OUT/module-cache" -I "$MODULES_DIR"
             -Xcc "-fmodule-map-file=$ROOT/Sources/COpenSSL/module.modulemap")
# libcrypto as pkg-config names it (the COpenSSL module map also autolinks it).
read -r -a OPENSSL_LIBS <<< "$(pkg-config --libs openssl 2>/dev/null || echo -lcrypto)"
OPENSSL_CFLAGS=()
for flag in $(pkg-config --cflags openssl 2>/dev/null); do OPENSSL_CFLAGS+=(-Xcc "$flag"); done

# module → modules it imports (in build order).
declare -A DEPS=(
    [FIDOWire]=""
    [CBOR]=""
    [CardCrypto]=""
    [POSIXSupport]=""
    [CTAP2]="FIDOWire CBOR CardCrypto"
    [ISO7816]="FIDOWire"
    [ArculusCard]="FIDOWire CBOR CardCrypto POSIXSupport CTAP2 ISO7816"
    [Transcript]="FIDOWire CBOR CardCrypto POSIXSupport CTAP2 ISO7816 ArculusCard"
    [VirtualReader]="FIDOWire CBOR CardCrypto POSIXSupport CTAP2 ISO7816 ArculusCard"
)
# target → modules to link, and harness files.
declare -A TARGET_MODULES=(
    [cbor]="CBOR"
    [card]="FIDOWire CBOR CardCrypto POSIXSupport CTAP2 ISO7816 ArculusCard Transcript"
    [ctap2]="FIDOWire CBOR CardCrypto POSIXSupport CTAP2 ISO7816 ArculusCard"
    [image]="FIDOWire CBOR CardCrypto POSIXSupport CTAP2 ISO7816 ArculusCard"
    [transcript]="FIDOWire CBOR CardCrypto POSIXSupport CTAP2 ISO7816 ArculusCard Transcript"
    [vpcd]="FIDOWire CBOR CardCrypto POSIXSupport CTAP2 ISO7816 ArculusCard VirtualReader"
)
HARNESS="$ROOT/Tests/Fuzz/Harnesses"
CARD_SUPPORT="$HARNESS/FuzzCards.swift $ROOT/Tests/RobustnessTests/Support/PlatformClient.swift"
declare -A TARGET_FILES=(
    [cbor]="$HARNESS/FuzzSupport.swift $HARNESS/FuzzCBOR.swift"
    [card]="$HARNESS/FuzzSupport.swift $CARD_SUPPORT $HARNESS/FuzzCard.swift $HARNESS/FuzzSeeds.swift $HARNESS/FuzzImageFormat.swift"
    [ctap2]="$HARNESS/FuzzSupport.swift $CARD_SUPPORT $HARNESS/FuzzCTAP2.swift"
    [image]="$HARNESS/FuzzSupport.swift $HARNESS/FuzzImageFormat.swift $HARNESS/FuzzImage.swift"
    [transcript]="$HARNESS/FuzzSupport.swift $HARNESS/FuzzTranscript.swift"
    [vpcd]="$HARNESS/FuzzSupport.swift $CARD_SUPPORT $HARNESS/FuzzVPCD.swift"
)

log() { printf '%s\n' "$*" >&2; }

# Whether $1 is missing or older than any of the remaining files.
stale() {
    local product="$1"; shift
    [[ -e "$product" ]] || return 0
    local file
    for file in "$@"; do [[ "$file" -nt "$product" ]] && return 0; done
    return 1
}

declare -A BUILT=()
build_module() {
    local module="$1"
    [[ -n "${BUILT[$module]:-}" ]] && return 0
    local dep inputs=()
    for dep in ${DEPS[$module]}; do
        build_module "$dep"
        inputs+=("$MODULES_DIR/$dep.swiftmodule")
    done
    local sources=()
    mapfile -t sources < <(find "$ROOT/Sources/$module" -name '*.swift' | sort)
    [[ ${#sources[@]} -gt 0 ]] || { log "fuzz build: no sources for $module"; return 1; }
    local extra=()
    if [[ "$module" == CardCrypto ]]; then
        extra=("${OPENSSL_CFLAGS[@]}")
    fi
    local object="$MODULES_DIR/$module.o"
    if stale "$object" "${sources[@]}" "${inputs[@]}" "$0"; then
        log "fuzz build: compiling $module (${#sources[@]} files)"
        swiftc "${SWIFT_FLAGS[@]}" "${extra[@]}" -module-name "$module" -wmo -c "${sources[@]}" \
            -emit-module -emit-module-path "$MODULES_DIR/$module.swiftmodule" -o "$object.partial" \
            2> >(grep -v "ld.gold: warning: Cannot export local symbol" >&2)
        mv "$object.partial" "$object"
    fi
    BUILT[$module]=1
}

build_target() {
    local target="$1"
    [[ -n "${TARGET_MODULES[$target]:-}" ]] || { log "unknown fuzz target '$target' (targets: ${ALL_TARGETS[*]})"; return 2; }
    local module objects=() inputs=()
    for module in ${TARGET_MODULES[$target]}; do
        build_module "$module"
        objects+=("$MODULES_DIR/$module.o")
        inputs+=("$MODULES_DIR/$module.o" "$MODULES_DIR/$module.swiftmodule")
    done
    local files=(${TARGET_FILES[$target]})
    local binary="$BIN_DIR/fuzz-$target"
    if stale "$binary" "${files[@]}" "${inputs[@]}" "$0"; then
        log "fuzz build: linking fuzz-$target"
        swiftc "${SWIFT_FLAGS[@]}" -module-name "Fuzz_$target" "${files[@]}" "${objects[@]}" "${OPENSSL_LIBS[@]}" \
            -o "$binary.partial" 2> >(grep -v "ld.gold: warning: Cannot export local symbol" >&2)
        mv "$binary.partial" "$binary"
    fi
    printf '%s\n' "$binary"
}

targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${ALL_TARGETS[@]}")
for target in "${targets[@]}"; do build_target "$target"; done
