#!/usr/bin/env python3
"""Turns bench/scripts/seeds_vs_fuzzer.sh output (stdin) into the README's
Markdown tables: median time to first detection per planted bug and arm (a
capped run, or one whose failure also fails on the correct engine, counts
as longer than the cap, so a median past the cap prints as "> CAP s"; such
false alarms are listed), and median edges covered at each mark."""
import argparse
import statistics
import sys
from collections import defaultdict


def median_text(values, cap):
    values = sorted(values)
    mid = values[len(values) // 2] if len(values) % 2 else None
    if mid is None:
        lo, hi = values[len(values) // 2 - 1], values[len(values) // 2]
        if hi == float("inf"):
            return f"> {cap:.0f} s"
        return f"{(lo + hi) / 2:.2f} s"
    return f"> {cap:.0f} s" if mid == float("inf") else f"{mid:.2f} s"


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cap", type=float, default=None,
                        help="the detection cap in seconds (default: the longest run seen)")
    args = parser.parse_args()
    detect = defaultdict(lambda: defaultdict(list))
    caps = defaultdict(float)
    edges = defaultdict(lambda: defaultdict(list))
    execs = defaultdict(lambda: defaultdict(list))
    false_alarms = []
    ended = []
    for line in sys.stdin:
        f = line.split()
        if f[:1] == ["detect"] and len(f) == 7:
            key = (f[1], f[2])
            seconds = float(f[5])
            caps[key] = max(caps[key], seconds)
            if f[6].startswith("false-alarm"):
                false_alarms.append(line.strip())
            detect[key][f[4]].append(seconds if f[6] == "found" else float("inf"))
        elif f[:1] == ["edges"] and len(f) in (7, 9):
            if len(f) == 9:  # the process stopped on a failure before this mark
                ended.append(f"{f[3]} run {f[2]} stopped at {f[8]} s on a failure")
                continue
            edges[(f[1], int(f[4]))][f[3]].append(int(f[5]))
            execs[(f[1], int(f[4]))][f[3]].append(int(f[6]))
    if detect:
        print("| planted bug | scenario | seed sweep | fuzzer | found (sweep / fuzzer) |")
        print("| --- | --- | --- | --- | --- |")
        for (bug, scenario), arms in detect.items():
            cap = args.cap if args.cap is not None else caps[(bug, scenario)]
            found = " / ".join(
                f"{sum(v != float('inf') for v in arms[a])}/{len(arms[a])}" for a in ("seeds", "fuzzer"))
            print(f"| `{bug}` | {scenario} | {median_text(arms['seeds'], cap)} | "
                  f"{median_text(arms['fuzzer'], cap)} | {found} |")
    for line in false_alarms:
        print(f"false alarm (the failing run fails on the correct engine too): {line}")
    if edges:
        print()
        print("| scenario | after | runs (sweep / fuzzer) | seed sweep: edges [min–max] | executions "
              "| fuzzer: edges [min–max] | executions |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for (scenario, mark), arms in sorted(edges.items()):
            cells = []
            for arm in ("seeds", "fuzzer"):
                values = arms[arm]
                cells.append(f"{statistics.median(values):.0f} [{min(values)}–{max(values)}] | "
                             f"{statistics.median(execs[(scenario, mark)][arm]):.0f}")
            runs = f"{len(arms['seeds'])} / {len(arms['fuzzer'])}"
            print(f"| {scenario} | {mark // 60} min | {runs} | {cells[0]} | {cells[1]} |")
        for note in sorted(set(ended)):
            print(f"\n(left out at the marks after it: {note})")


if __name__ == "__main__":
    main()
