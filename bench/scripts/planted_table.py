#!/usr/bin/env python3
"""Planted bugs found per campaign: runs every row of
tests/bugs/planted_bugs_test.cc's kRows but the hosted ones (real-backend
rows included: their counts vary from run to run) at its
campaign shape (faults on where the row says kFaultsOn, else drawn; a
row's {ops, crashes}) over
seeds 1..N, and prints one line per row: bug, scenario, seeds that failed,
and the failures by property.

Usage: bench/scripts/planted_table.py TEST_FILE SHALE_BINARY N [OUT_DIR]
A row whose bug the binary does not know prints ERROR (an older build)."""
import json
import re
import subprocess
import sys


def rows_of(test_file):
    text = open(test_file).read()
    body = text[text.index("const BugRow kRows[] = {"):]
    body = re.sub(r"//[^\n]*", "", body[:body.index("\n};")])
    rows, depth, start = [], 0, None
    for i, ch in enumerate(body):
        if ch == "{":
            depth += 1
            if depth == 2:
                start = i
        elif ch == "}":
            if depth == 2:
                rows.append(body[start:i + 1])
            depth -= 1
    return rows


def main():
    test_file, shale, seeds = sys.argv[1], sys.argv[2], int(sys.argv[3])
    out_root = sys.argv[4] if len(sys.argv) > 4 else "out/planted-table"
    for row in rows_of(test_file):
        bug, scenario = re.findall(r'"([^"]*)"', row)[:2]
        if "leveldb" in row:
            continue
        out = f"{out_root}/{bug}-{scenario}"
        cmd = [shale, "run", "--scenario", scenario, "--seeds", f"1..{seeds}",
               "--planted_bugs", bug, "--out", out]
        if "kFaultsOn" in row:
            cmd += ["--faults", "on"]
        shape = re.search(r"\{(\d+), (\d+)\}", row)  # {ops, crashes}
        if shape:
            cmd += ["--ops", shape.group(1), "--crashes", shape.group(2)]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode == 2:
            print(f"{bug} {scenario} ERROR", flush=True)
            continue
        by_property = {}
        for entry in json.load(open(out + "/report.json"))["entries"]:
            if entry.get("verdict") == "fail":
                prop = entry["failure"]["property"]
                by_property[prop] = by_property.get(prop, 0) + 1
        found = sum(by_property.values())
        props = ",".join(f"{k}={v}" for k, v in sorted(by_property.items(), key=lambda kv: -kv[1]))
        print(f"{bug} {scenario} {found} {props}", flush=True)


if __name__ == "__main__":
    main()
