#!/usr/bin/env python3
# tools/check_api_docs.py - every public declaration of the SDK headers has a comment, or is counted.
"""Runs Doxygen over sdk/include/wick (sdk/docs/Doxyfile.in, no output but warnings) and counts, per
header, the declarations it reports as undocumented (WARN_IF_UNDOCUMENTED).

The counts must equal tools/api_docs_baseline.txt ("COUNT HEADER" lines):
  - a header with more undocumented declarations than its line says fails, listing them: document
    the new declaration (a `///` comment saying what it does and what happens on failure);
  - a header with fewer fails too, so that the baseline only goes down: run with --update and
    commit the new baseline with the comments that lowered it.
A header absent from the baseline has a count of 0: new headers are documented in full.

Usage: check_api_docs.py [--doxygen PATH] [--update] [--verbose]
Exit status: 0 when the counts match, 1 when not, 77 (skipped) when doxygen is missing or is not the
version the baseline was counted with (its first lines say which).
"""
from __future__ import annotations

import argparse
import collections
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]
HEADERS = ROOT / "sdk" / "include"
BASELINE = ROOT / "tools" / "api_docs_baseline.txt"
WARNING = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): warning: (?P<text>.*? is not documented\.?)\s*$")


def doxyfile(out: pathlib.Path) -> str:
    text = (ROOT / "sdk" / "docs" / "Doxyfile.in").read_text()
    values = {"PROJECT_VERSION": "check", "WICK_DOCS_OUTPUT": str(out), "WICK_DOCS_INPUT": str(HEADERS / "wick"),
              "WICK_DOCS_STRIP": str(HEADERS)}
    text = re.sub(r"@(\w+)@", lambda m: values[m.group(1)], text)
    # The check needs the warnings only.
    return text + "\nGENERATE_HTML = NO\nGENERATE_XML = NO\nWARN_IF_UNDOCUMENTED = YES\nWARN_LOGFILE =\n"


def undocumented(doxygen: str) -> dict[str, list[str]]:
    with tempfile.TemporaryDirectory() as out:
        result = subprocess.run([doxygen, "-"], input=doxyfile(pathlib.Path(out)), cwd=out, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if result.returncode != 0:
        sys.exit(f"check_api_docs: doxygen failed ({result.returncode}):\n{result.stderr[-3000:]}")
    found: dict[str, list[str]] = collections.defaultdict(list)
    for line in result.stderr.splitlines():
        m = WARNING.match(line)
        if not m:
            continue
        path = pathlib.Path(m.group("file"))
        try:
            rel = str(path.resolve().relative_to(HEADERS))
        except ValueError:
            continue
        found[rel].append(f"{rel}:{m.group('line')}: {m.group('text')}")
    return found


def doxygen_version(doxygen: str) -> str:
    return subprocess.run([doxygen, "--version"], stdout=subprocess.PIPE, text=True, check=False).stdout.split()[0]


def baseline_version() -> str | None:
    if BASELINE.exists():
        for line in BASELINE.read_text().splitlines():
            m = re.match(r"^# doxygen (\S+)", line)
            if m:
                return m.group(1)
    return None


def read_baseline() -> dict[str, int]:
    counts: dict[str, int] = {}
    if BASELINE.exists():
        for line in BASELINE.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                count, header = line.split(None, 1)
                counts[header.strip()] = int(count)
    return counts


def write_baseline(found: dict[str, list[str]], version: str) -> None:
    lines = ["# tools/api_docs_baseline.txt - undocumented declarations per SDK header (tools/check_api_docs.py).",
             "# Only ever lowered: document declarations, then run tools/check_api_docs.py --update.",
             f"# doxygen {version} (Debian 12's; other versions count differently, so the check skips there)"]
    lines += [f"{len(found[h])} {h}" for h in sorted(found)]
    BASELINE.write_text("\n".join(lines) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--doxygen", default=shutil.which("doxygen"))
    parser.add_argument("--update", action="store_true", help="rewrite the baseline from this run")
    parser.add_argument("--verbose", action="store_true", help="list every undocumented declaration")
    args = parser.parse_args()
    if not args.doxygen:
        print("SKIPPED: doxygen is not installed (tools/install-deps.sh installs it)")
        return 77
    version = doxygen_version(args.doxygen)
    if not args.update and baseline_version() not in (None, version):
        print(f"SKIPPED: the baseline counts doxygen {baseline_version()}'s warnings; this is doxygen {version}")
        return 77
    found = undocumented(args.doxygen)
    total = sum(len(v) for v in found.values())
    if args.update:
        write_baseline(found, version)
        print(f"check_api_docs: baseline written: {total} undocumented declarations in {len(found)} headers")
        return 0
    baseline = read_baseline()
    problems = 0
    for header in sorted(set(found) | set(baseline)):
        have, allowed = len(found.get(header, [])), baseline.get(header, 0)
        if have > allowed:
            problems += 1
            print(f"check_api_docs: {header}: {have} undocumented declarations, {allowed} allowed; document these:")
            for w in found[header]:
                print(f"  {w}")
        elif have < allowed:
            problems += 1
            print(f"check_api_docs: {header}: {have} undocumented declarations, fewer than the baseline's {allowed}: "
                  "run tools/check_api_docs.py --update and commit tools/api_docs_baseline.txt")
        elif args.verbose:
            for w in found.get(header, []):
                print(f"  {w}")
    print(f"check_api_docs: {total} undocumented declarations in {len(found)} headers "
          f"(baseline {sum(baseline.values())}), {problems} headers differ")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
