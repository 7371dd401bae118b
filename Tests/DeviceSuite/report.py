#!/usr/bin/env python3
"""Summarise a device-suite JUnit XML file (run.sh --junit DIR or --keep) as Markdown.

    Tests/DeviceSuite/report.py .build/device-suite/arculus-fido21/junit.xml [more.xml ...]

Prints, per file: the counts, every failed and errored test with the first line of its
message, and the skipped tests grouped by skip reason (one line per reason, with how many
tests and which). Reads only the XML; it is how BASELINE.md's tables were gathered.
"""

import collections
import sys
import xml.etree.ElementTree as ET


def test_id(case):
    # classname "tests.device.test_x" + name "test_y[param]" -> tests/device/test_x.py::test_y[param]
    module = case.get("classname", "").replace(".", "/")
    return f"{module}.py::{case.get('name')}"


def escape(text):
    return text.replace("|", "\\|")


def first_line(text):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()
    return ""


def summarise(path):
    root = ET.parse(path).getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    failed, errored, skipped, passed = [], [], collections.defaultdict(list), 0
    for case in suite.iter("testcase"):
        tid = test_id(case)
        f, e, s = case.find("failure"), case.find("error"), case.find("skipped")
        if f is not None:
            failed.append((tid, first_line(f.get("message"))))
        if e is not None:
            errored.append((tid, first_line(e.get("message"))))
        if s is not None:
            skipped[first_line(s.get("message"))].append(tid)
        if f is None and e is None and s is None:
            passed += 1
    n_skipped = sum(len(v) for v in skipped.values())
    print(f"## {path}\n")
    print(f"passed {passed}, failed {len(failed)}, errors {len(errored)}, skipped {n_skipped}\n")
    for title, rows in (("Failed", failed), ("Errors", errored)):
        if rows:
            print(f"### {title}\n\n| test | message |\n| --- | --- |")
            for tid, msg in rows:
                print(f"| `{tid}` | {escape(msg)} |")
            print()
    if skipped:
        print("### Skipped, by reason\n\n| reason | tests | which |\n| --- | --- | --- |")
        for reason, tids in sorted(skipped.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            names = sorted({t.split("::", 1)[1].split("[", 1)[0] for t in tids})
            files = sorted({t.split("::", 1)[0].rsplit("/", 1)[-1] for t in tids})
            which = ", ".join(files) + ": " + ", ".join(names)
            print(f"| {escape(reason)} | {len(tids)} | {which} |")
        print()


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(sys.argv) >= 2 else 64
    for path in sys.argv[1:]:
        summarise(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
