#!/usr/bin/env python3
# tools/bench/compare_table.py - the ratio table of tools/bench/compare.sh from its runs' JSON files.
"""Reads DIR/wick_<r>.json and DIR/torch_<r>.json (Google Benchmark's JSON
output, r = 1..REPS) and prints one Markdown table: each work (the name
without its wick_/torch_ prefix and without /real_time), the median time of
each side over the repetitions, the median of the per-repetition ratios
(wick / libtorch; below 1 wick is faster), their spread (min-max), and the
ratio of the two sides' best times: on a machine that other work shares,
load only ever adds time, so the best of each side is the steadier
estimate. A wick benchmark without a libtorch twin gets a row of its own."""

import json
import statistics
import sys
from pathlib import Path

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load(path):
    """name (without the side's prefix) -> time in ns, for one run."""
    times = {}
    if not path.exists():
        return times
    for b in json.loads(path.read_text()).get("benchmarks", []):
        if b.get("run_type", "iteration") != "iteration" or b.get("error_occurred"):
            continue
        name = b["name"].removesuffix("/real_time")
        work = name.partition("_")[2]
        times[work] = b["real_time"] * UNIT_NS[b.get("time_unit", "ns")]
    return times


def fmt(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


def main():
    folder = Path(sys.argv[1])
    reps = int(sys.argv[2])
    wick = [load(folder / f"wick_{r}.json") for r in range(1, reps + 1)]
    torch = [load(folder / f"torch_{r}.json") for r in range(1, reps + 1)]
    works = []
    for run in wick:
        works += [k for k in run if k not in works]
    print("| work | wick | libtorch | ratio | spread | best / best |")
    print("|---|---:|---:|---:|---|---:|")
    for work in works:
        w = [run[work] for run in wick if work in run]
        t = [run[work] for run in torch if work in run]
        ratios = [run_w[work] / run_t[work] for run_w, run_t in zip(wick, torch) if work in run_w and work in run_t]
        if not t:
            print(f"| {work} | {fmt(statistics.median(w))} | — | — | — | — |")
            continue
        print(f"| {work} | {fmt(statistics.median(w))} | {fmt(statistics.median(t))} | "
              f"{statistics.median(ratios):.2f} | {min(ratios):.2f}–{max(ratios):.2f} | {min(w) / min(t):.2f} |")


if __name__ == "__main__":
    main()
