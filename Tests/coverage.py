#!/usr/bin/env python3
"""Line coverage per module, over everything test.sh ran: the Swift suite and every process of the
command-line tool that the interop tests, the flows and python-fido2's device suite started.

test.sh builds with `--enable-code-coverage` and points LLVM_PROFILE_FILE at one folder, so each
`arculus-card` process (serve, ctl, sdk, probe, … — also those run as another user or in a private
namespace) adds its counters there; `swift test` writes its own. This merges them with the
toolchain's llvm-profdata, asks llvm-cov for the per-file line counts of Sources/, and prints one
line per module, library modules judged against --minimum (a library below it is marked BELOW;
with --strict that fails).

    Tests/coverage.py --build DIR --profiles DIR [--minimum 90] [--strict] [--markdown FILE]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXECUTABLES = {"arculus-card", "arculus-bench"}


def toolchain_tool(name: str) -> str:
    """The toolchain's own LLVM tool: profiles are in the format of the compiler that wrote them,
    which the system's llvm (if any) may not read."""
    swift = shutil.which("swift")
    if swift:
        candidate = Path(swift).resolve().parent / name
        if candidate.exists():
            return str(candidate)
    found = shutil.which(name)
    if not found:
        sys.exit(f"coverage: {name} not found beside the swift toolchain")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", required=True, type=Path, help="the coverage build's bin folder (swift build --show-bin-path)")
    parser.add_argument("--profiles", required=True, type=Path, help="where LLVM_PROFILE_FILE put the processes' .profraw files")
    parser.add_argument("--minimum", type=float, default=90.0, help="the line coverage every library module should reach")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a library module is below --minimum")
    parser.add_argument("--markdown", type=Path, help="also write the table as Markdown to this file")
    args = parser.parse_args()

    raw = sorted(args.profiles.glob("*.profraw")) + sorted((args.build / "codecov").glob("*.profraw"))
    if not raw:
        print(f"coverage: no .profraw files in {args.profiles} or {args.build / 'codecov'}: nothing to report", file=sys.stderr)
        return 1
    merged = args.profiles / "merged.profdata"
    # A process killed while writing its profile leaves a spoilt file: it is left out (and counted),
    # the rest still merge. The list goes in a file: there may be thousands.
    listing = args.profiles / "inputs.txt"
    listing.write_text("\n".join(map(str, raw)) + "\n")
    merge = subprocess.run([toolchain_tool("llvm-profdata"), "merge", "-sparse", "-failure-mode=all", "-o", str(merged),
                            f"--input-files={listing}"], capture_output=True, text=True)
    if merge.returncode != 0:
        print(merge.stderr, file=sys.stderr)
        return 1
    spoilt = sum(1 for line in merge.stderr.splitlines() if line.startswith("warning:") and ".profraw" in line)

    objects = [args.build / "arculus-card"]
    tests = sorted(args.build.glob("*PackageTests.xctest"))
    objects += tests
    objects = [o for o in objects if o.exists()]
    command = [toolchain_tool("llvm-cov"), "export", "-summary-only", f"-instr-profile={merged}", str(objects[0])]
    for other in objects[1:]:
        command += ["-object", str(other)]
    report = json.loads(subprocess.run(command, check=True, capture_output=True, text=True).stdout)

    modules: dict[str, list[int]] = {}
    for file in report["data"][0]["files"]:
        path = Path(file["filename"])
        try:
            relative = path.resolve().relative_to(ROOT / "Sources")
        except ValueError:
            continue
        lines = file["summary"]["lines"]
        totals = modules.setdefault(relative.parts[0], [0, 0])
        totals[0] += lines["covered"]
        totals[1] += lines["count"]

    rows = []
    below = []
    for module in sorted(modules):
        covered, count = modules[module]
        percent = 100.0 * covered / count if count else 100.0
        judged = module not in EXECUTABLES
        mark = "" if not judged else ("ok" if percent >= args.minimum else "BELOW")
        if mark == "BELOW":
            below.append(module)
        rows.append((module, covered, count, percent, mark if judged else "(executable)"))

    left_out = f", {spoilt} spoilt by a kill and left out" if spoilt else ""
    print(f"line coverage over the Swift suite, the interop tests, the flows and the device suite "
          f"({len(raw)} process profiles{left_out}):")
    width = max(len(r[0]) for r in rows)
    for module, covered, count, percent, mark in rows:
        print(f"  {module:<{width}}  {percent:6.1f} %  {covered:>6}/{count:<6}  {mark}")
    if args.markdown:
        lines = ["| module | lines covered | % | |", "| --- | --- | --- | --- |"]
        lines += [f"| {m} | {c:,} / {n:,} | {p:.1f} % | {k} |" for m, c, n, p, k in rows]
        args.markdown.write_text("\n".join(lines) + "\n")
    if below:
        print(f"coverage: {len(below)} library module(s) below {args.minimum:g} %: {', '.join(below)}")
        return 1 if args.strict else 0
    print(f"coverage: every library module at {args.minimum:g} % or more")
    return 0


if __name__ == "__main__":
    sys.exit(main())
