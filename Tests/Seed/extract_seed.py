#!/usr/bin/env python3
"""Takes the seed's Swift code out of the seed text (../shared/seeds/000_*.txt, "iOS Sample
Applications") by the headings around each piece, makes the substitutions the platform forces,
and writes each piece into the module of this package that compiles it, so that what the seed
test builds and runs is always the seed's own text, never a hand-kept copy.

    python3 Tests/Seed/extract_seed.py [--seeds DIR]

The seeds are found in --seeds, else $ARCULUS_SEEDS_DIR, else the first `shared/seeds` beside the
repository or one or two folders up. Exit status 0 with the pieces written; 3 when no seed text
is found (the seed test then cannot run, and says so); 1 when the text is not what this script
expects (a heading or a substitution missing: the seed changed, and so must this script).

The substitutions, each applied exactly as often as listed (see SUBSTITUTIONS):
- the servers' addresses: the minimal example's "fido.example.com" and the backend app's
  "https://your-backend.com" become the local test servers, read from SEED_FIDO_SERVER and
  SEED_BACKEND at run time (no such hosts exist here);
- `import FoundationNetworking` after the BackendApiClient's `import Foundation`: on Linux
  URLSession and URLRequest live there, not in Foundation.
UIKit, WebKit and CommonCrypto are not substituted in the text: this package has modules of those
names (Sources/UIKit, Sources/WebKit, Sources/CommonCrypto), stand-ins for the few types the
samples use, whose UIViewController.present records an alert's message instead of showing it.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]

#: (module, file, heading that starts the piece, heading that ends it)
PIECES = [
    ("SeedMinimalClientDirect", "MinimalClientDirect.swift", "Minimal Client-Direct Example", "Minimal Backend-Proxied Example"),
    ("SeedClientDirectApp", "ViewController.swift", "Client-Direct Pattern", "Backend-Proxied Pattern (Recommended)"),
    ("SeedBackendProxiedApp", "BackendApiClient.swift", "Backend API Client", "Complete Backend-Proxied Sample App"),
    ("SeedBackendProxiedApp", "ViewController.swift", "Complete Backend-Proxied Sample App", "Note: The createOptionsResponseFromBackend()"),
]

#: {file of a module: [(old, new, times, why)]}
SUBSTITUTIONS = {
    ("SeedMinimalClientDirect", "MinimalClientDirect.swift"): [
        ('ArculusFidoServer(domain: "fido.example.com")', 'ArculusFidoServer(domain: ProcessInfo.processInfo.environment["SEED_FIDO_SERVER"]!)', 2,
         "no fido.example.com here: the local FIDO2 server, from SEED_FIDO_SERVER"),
    ],
    ("SeedBackendProxiedApp", "BackendApiClient.swift"): [
        ("import Foundation\n", "import Foundation\n#if canImport(FoundationNetworking)\nimport FoundationNetworking\n#endif\n", 1,
         "URLSession and URLRequest are in FoundationNetworking on Linux"),
    ],
    ("SeedBackendProxiedApp", "ViewController.swift"): [
        ('BackendApiClient(baseUrl: "https://your-backend.com")', 'BackendApiClient(baseUrl: ProcessInfo.processInfo.environment["SEED_BACKEND"]!)', 1,
         "no your-backend.com here: the local seed servlet, from SEED_BACKEND"),
    ],
}


def find_seeds(given: str | None) -> Path | None:
    candidates = [Path(given)] if given else []
    if os.environ.get("ARCULUS_SEEDS_DIR"):
        candidates.append(Path(os.environ["ARCULUS_SEEDS_DIR"]))
    candidates += [folder / "shared" / "seeds" for folder in [REPO.parent, *REPO.parent.parents][:3]]
    for directory in candidates:
        for text in sorted(directory.glob("*.txt")) if directory.is_dir() else []:
            if "iOS Sample Applications" in text.read_text(errors="replace"):
                return text
    return None


def piece(lines: list[str], start: str, end: str, source: Path) -> tuple[str, int, int]:
    """The code between the heading `start` and the heading `end`: from the first `import` line to
    the last line before `end` that closes a declaration ('}' at the start of the line)."""
    try:
        first = lines.index(start)
        stop = next(i for i in range(first + 1, len(lines)) if lines[i].startswith(end))
    except (ValueError, StopIteration):
        raise SystemExit(f"extract_seed: {source.name}: no heading '{start}' followed by '{end}'; the seed changed") from None
    begin = next((i for i in range(first + 1, stop) if lines[i].startswith("import ")), None)
    close = max((i for i in range(first + 1, stop) if lines[i].startswith("}")), default=None)
    if begin is None or close is None or close < begin:
        raise SystemExit(f"extract_seed: {source.name}: no Swift code under '{start}'")
    return "\n".join(lines[begin:close + 1]) + "\n", begin + 1, close + 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", help="the folder of the seed texts (default: see above)")
    options = parser.parse_args()
    source = find_seeds(options.seeds)
    if source is None:
        print("extract_seed: no seed text found (set ARCULUS_SEEDS_DIR to the folder of 000_*.txt); the seed test cannot run",
              file=sys.stderr)
        return 3
    lines = source.read_text().split("\n")
    for module, file, start, end in PIECES:
        code, first, last = piece(lines, start, end, source)
        applied = []
        for old, new, times, why in SUBSTITUTIONS.get((module, file), []):
            found = code.count(old)
            if found != times:
                raise SystemExit(f"extract_seed: {source.name} lines {first}-{last}: '{old.strip()}' appears {found} times, "
                                 f"not {times}; the seed changed")
            code = code.replace(old, new)
            applied.append(f"//   {old.strip()!r} -> {new.strip()!r} ({times}x): {why}")
        target = HERE / "Sources" / module / file
        target.parent.mkdir(parents=True, exist_ok=True)
        header = [f"// Generated by Tests/Seed/extract_seed.py from the seed {source.name}, lines {first}-{last}: the seed's own",
                  "// text, rewritten at every run. Do not edit; substitutions (the platform forces them):"]
        target.write_text("\n".join(header + (applied or ["//   none"])) + "\n\n" + code)
        print(f"extract_seed: {module}/{file} <- {source.name} lines {first}-{last}, {len(applied)} substitution(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
