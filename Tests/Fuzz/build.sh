#!/usr/bin/env bash
# Builds the libFuzzer targets: each harness in Tests/Fuzz/Harnesses with the package modules it
# needs, compiled by swiftc directly, in two variants:
#   fuzz-TARGET       -sanitize=fuzzer: coverage instrumentation only, for fuzzing (Swift's own
#                     checks trap on overflow, bounds, unwrapping, exclusivity as in any build);
#   fuzz-TARGET-asan  -sanitize=fuzzer,address: AddressSanitizer + LeakSanitizer too, for the
#                     corpus check after fuzzing and for reproducing (about half the speed:
#                     ASan's allocator, with every Swift allocation through it, is most of the cost).
# SwiftPM is not used so that the package's own .build products stay uninstrumented and
# Package.swift needs no fuzz targets.
#
#   Tests/Fuzz/build.sh [--fast|--asan] [TARGET…]   # default: both variants, every target;
#                                                  # prints each binary's path
#   Tests/Fuzz/build.sh --list                      # the target names
#
# The module graph comes from the package itself (`swift package dump-package`): a harness needs
# the package modules its files import and everything those depend on, system libraries (their
# module maps and pkg-config flags) included. Binaries go to $ARCULUS_FUZZ_BUILD (default
# .build/fuzz/bin/). A module is recompiled only when one of its sources, the modules it
# imports, the manifest or the compiler flags changed; a target is relinked when its harness
# files or this script changed.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="${ARCULUS_FUZZ_BUILD:-$ROOT/.build/fuzz}"
BIN_DIR="$OUT/bin"
HARNESS="$ROOT/Tests/Fuzz/Harnesses"

# target → harness files (the harness's own, then what it shares with other targets).
ALL_TARGETS=(card cbor ctap2 transcript vpcd image)
COMMON="$HARNESS/FuzzSupport.swift"
CARDS="$HARNESS/FuzzCards.swift $HARNESS/FuzzStarts.swift $HARNESS/FuzzCardDriver.swift $HARNESS/FuzzCardChecks.swift
       $HARNESS/FuzzCTAPGenerator.swift $HARNESS/FuzzCTAPSchema.swift $HARNESS/FuzzCTAPSchema+Values.swift $ROOT/Tests/RobustnessTests/Support/PlatformClient.swift"
declare -A TARGET_FILES=(
    [cbor]="$COMMON $HARNESS/FuzzCBOR.swift"
    [card]="$COMMON $CARDS $HARNESS/FuzzCard.swift $HARNESS/FuzzCardProgram.swift $HARNESS/FuzzSeeds.swift
            $HARNESS/FuzzSeedFlows.swift $HARNESS/FuzzImageFormat.swift"
    [ctap2]="$COMMON $CARDS $HARNESS/FuzzCTAP2.swift $ROOT/Tests/CTAP2Tests/Support/TreeReading.swift
             $ROOT/Tests/CTAP2Tests/Support/TreeReading+Nested.swift"
    [image]="$COMMON $HARNESS/FuzzImageFormat.swift $HARNESS/FuzzImage.swift"
    [transcript]="$COMMON $HARNESS/FuzzTranscript.swift"
    [vpcd]="$COMMON $CARDS $HARNESS/FuzzVPCD.swift"
)

log() { printf '%s\n' "$*" >&2; }

VARIANTS=(fast asan)
case "${1:-}" in
    --list) printf '%s\n' "${ALL_TARGETS[@]}"; exit 0 ;;
    --fast) VARIANTS=(fast); shift ;;
    --asan) VARIANTS=(asan); shift ;;
esac

mkdir -p "$BIN_DIR" "$OUT/module-cache"

# Whether $1 is missing or older than any of the remaining files.
stale() {
    local product="$1"; shift
    [[ -e "$product" ]] || return 0
    local file
    for file in "$@"; do [[ "$file" -nt "$product" ]] && return 0; done
    return 1
}

# The module graph: one line per library or system-library target of the package,
# "KIND NAME PATH PKGCONFIG DEPENDENCY…" (PKGCONFIG "-" when none). A scratch path of its own keeps
# dump-package from waiting for a `swift build` that holds .build.
GRAPH="$OUT/package-graph"
if stale "$GRAPH" "$ROOT/Package.swift" "$0"; then
    swift package --package-path "$ROOT" --scratch-path "$OUT/manifest" dump-package | python3 -c '
import json, sys
for target in json.load(sys.stdin)["targets"]:
    if target["type"] not in ("regular", "system"):
        continue
    dependencies = [next(iter(d.values()))[0] for d in target["dependencies"]]
    path = target.get("path") or "Sources/" + target["name"]
    print(target["type"], target["name"], path, target.get("pkgConfig") or "-", *dependencies)
' > "$GRAPH.partial"
    # Replaced only when it changed: modules are rebuilt when the graph is newer than they are.
    if cmp -s "$GRAPH.partial" "$GRAPH"; then rm "$GRAPH.partial"; else mv "$GRAPH.partial" "$GRAPH"; fi
fi
declare -A KIND=() MODULE_PATH=() PKG_CONFIG=() DEPS=()
while read -r kind name path pkg deps; do
    KIND[$name]=$kind
    MODULE_PATH[$name]="$ROOT/$path"
    PKG_CONFIG[$name]=$pkg
    DEPS[$name]="$deps"
done < "$GRAPH"

# The variant being built: its modules' directory, sanitizers and binary suffix (`use_variant`).
MODULES_DIR=""
SWIFT_FLAGS=()
SUFFIX=""
use_variant() {
    case "$1" in
        fast) MODULES_DIR="$OUT/modules"; SUFFIX=""; local sanitizers=fuzzer ;;
        asan) MODULES_DIR="$OUT/modules-asan"; SUFFIX="-asan"; local sanitizers=fuzzer,address ;;
    esac
    mkdir -p "$MODULES_DIR"
    # -enable-testing: a harness may `@testable import` a module to hold an internal fast path
    # equal to the general one (ctap2: getAssertion's tree-free request reading).
    SWIFT_FLAGS=(-O -g -sanitize="$sanitizers" -parse-as-library -swift-version 6 -enable-testing
                 -module-cache-path "$OUT/module-cache" -I "$MODULES_DIR")
    # Modules are rebuilt when the flags change (not when another line of this script does).
    FLAGS_STAMP="$MODULES_DIR/flags"
    [[ "$(cat "$FLAGS_STAMP" 2>/dev/null)" == "${SWIFT_FLAGS[*]}" ]] || printf '%s' "${SWIFT_FLAGS[*]}" > "$FLAGS_STAMP"
    BUILT=()
}

# The modules `module` depends on, directly or not (each once, dependencies first).
declare -A CLOSURE=()
closure() {
    local module="$1"
    [[ -n "${CLOSURE[$module]+set}" ]] && return 0
    local dep result=()
    for dep in ${DEPS[$module]}; do
        closure "$dep"
        result+=(${CLOSURE[$dep]} "$dep")
    done
    # Deduplicate, keeping the first occurrence (a dependency before what needs it).
    local seen=" " ordered=()
    for dep in "${result[@]}"; do
        [[ "$seen" == *" $dep "* ]] && continue
        seen+="$dep "
        ordered+=("$dep")
    done
    CLOSURE[$module]="${ordered[*]}"
}

# Compiler flags for code that sees the system libraries among `modules…`: each module map
# (a Swift module that imports the C module needs it to load) and the library's pkg-config cflags.
system_flags() {
    local module flag
    for module in "$@"; do
        [[ "${KIND[$module]}" == system ]] || continue
        printf '%s\n' -Xcc "-fmodule-map-file=${MODULE_PATH[$module]}/module.modulemap"
        [[ "${PKG_CONFIG[$module]}" == - ]] && continue
        for flag in $(pkg-config --cflags "${PKG_CONFIG[$module]}" 2>/dev/null); do printf '%s\n' -Xcc "$flag"; done
    done
}

declare -A BUILT=()
build_module() {
    local module="$1"
    [[ -n "${BUILT[$module]:-}" ]] && return 0
    closure "$module"
    local dep inputs=()
    for dep in ${DEPS[$module]}; do
        [[ "${KIND[$dep]}" == regular ]] || continue
        build_module "$dep"
        inputs+=("$MODULES_DIR/$dep.swiftmodule")
    done
    local sources=()
    mapfile -t sources < <(find "${MODULE_PATH[$module]}" -name '*.swift' | sort)
    [[ ${#sources[@]} -gt 0 ]] || { log "fuzz build: no sources for $module"; return 1; }
    local extra=()
    mapfile -t extra < <(system_flags ${CLOSURE[$module]})
    local object="$MODULES_DIR/$module.o"
    if stale "$object" "${sources[@]}" "${inputs[@]}" "$GRAPH" "$FLAGS_STAMP"; then
        log "fuzz build: compiling $module${SUFFIX:+ ($SUFFIX)} (${#sources[@]} files)"
        swiftc "${SWIFT_FLAGS[@]}" "${extra[@]}" -module-name "$module" -wmo -c "${sources[@]}" \
            -emit-module -emit-module-path "$MODULES_DIR/$module.swiftmodule" -o "$object.partial" \
            2> >(grep -v "ld.gold: warning: Cannot export local symbol" >&2)
        mv "$object.partial" "$object"
    fi
    BUILT[$module]=1
}

# The package modules the files import (`import X`, `@testable import X`, `internal import X`,
# `import struct X.Y`, …); imports of anything else (Foundation, Glibc) are not the package's.
imported_modules() {
    sed -nE 's/^[[:space:]]*(@[A-Za-z_]+[[:space:]]+)*((public|package|internal|fileprivate|private)[[:space:]]+)?import[[:space:]]+((struct|class|enum|protocol|typealias|func|var|let)[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*).*/\6/p' "$@" |
        sort -u | while read -r module; do [[ "${KIND[$module]:-}" == regular ]] && echo "$module"; done
}

build_target() {
    local target="$1"
    [[ -n "${TARGET_FILES[$target]:-}" ]] || { log "unknown fuzz target '$target' (targets: ${ALL_TARGETS[*]})"; return 2; }
    local files=(${TARGET_FILES[$target]})
    local module needed=()
    for module in $(imported_modules "${files[@]}"); do
        closure "$module"
        needed+=(${CLOSURE[$module]} "$module")
    done
    local seen=" " modules=()
    for module in "${needed[@]}"; do
        [[ "$seen" == *" $module "* ]] && continue
        seen+="$module "
        modules+=("$module")
    done
    local objects=() inputs=() libraries=()
    for module in "${modules[@]}"; do
        if [[ "${KIND[$module]}" == system ]]; then
            [[ "${PKG_CONFIG[$module]}" == - ]] && continue
            read -r -a libs <<< "$(pkg-config --libs "${PKG_CONFIG[$module]}" 2>/dev/null || true)"
            libraries+=("${libs[@]}")
            continue
        fi
        build_module "$module"
        objects+=("$MODULES_DIR/$module.o")
        inputs+=("$MODULES_DIR/$module.o" "$MODULES_DIR/$module.swiftmodule")
    done
    local extra=()
    mapfile -t extra < <(system_flags "${modules[@]}")
    local binary="$BIN_DIR/fuzz-$target$SUFFIX"
    if stale "$binary" "${files[@]}" "${inputs[@]}" "$GRAPH" "$0"; then
        log "fuzz build: linking fuzz-$target$SUFFIX (${modules[*]})"
        swiftc "${SWIFT_FLAGS[@]}" "${extra[@]}" -module-name "Fuzz_$target" "${files[@]}" "${objects[@]}" "${libraries[@]}" \
            -o "$binary.partial" 2> >(grep -v "ld.gold: warning: Cannot export local symbol" >&2)
        mv "$binary.partial" "$binary"
    fi
    printf '%s\n' "$binary"
}

targets=("$@")
[[ ${#targets[@]} -gt 0 ]] || targets=("${ALL_TARGETS[@]}")
build_variant() {
    use_variant "$1"
    local target
    for target in "${targets[@]}"; do build_target "$target"; done
}
if [[ ${#VARIANTS[@]} -gt 1 && "$(nproc)" -gt 1 ]]; then
    # The two variants share nothing but the module cache (made for concurrent compilers), and a
    # whole-module compile uses one core: one process a variant halves the time on two cores.
    # Their paths are printed in the variants' order, as a build one after the other prints them.
    pids=()
    for variant in "${VARIANTS[@]}"; do
        build_variant "$variant" > "$OUT/build-$variant.paths" &
        pids+=($!)
    done
    status=0
    for pid in "${pids[@]}"; do wait "$pid" || status=$?; done
    for variant in "${VARIANTS[@]}"; do cat "$OUT/build-$variant.paths"; done
    exit "$status"
fi
for variant in "${VARIANTS[@]}"; do build_variant "$variant"; done
