#!/usr/bin/env bash
# The README's shrink table: for every planted bug (the rows of
# tests/bugs/planted_bugs_test.cc), find its first failing seed with a
# default-shape sweep from seed 1 (`shale run --max_failures 1`), shrink
# that failure file with `shale shrink` (60 s limit), and print one
# Markdown row:
#   | bug | scenario | property | ops before -> after | crashes | shrink time | replays |
# "replays" checks the shrunk file through the binary: `shale replay` must
# exit 1 (the failure reproduces) with a matching trace hash.
# Usage: bench/scripts/shrink_table.sh [SHALE] [MAX_SECONDS]
set -uo pipefail
cd "$(dirname "$0")/../.."
shale=${1:-build/shale}
max_seconds=${2:-60}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

source bench/scripts/planted_rows.sh

echo "| planted bug | scenario | property | ops before → after | crashes before → after | shrink time | shrunk file replays |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for row in "${planted_rows[@]}"; do
  read -r bug scenario <<<"$row"
  dir=$work/$bug-$scenario
  "$shale" run --scenario "$scenario" --seeds 1..100000 --jobs 1 --max_failures 1 \
    --planted_bugs "$bug" --out "$dir" >/dev/null 2>&1
  first=$(ls "$dir"/failures/*.json 2>/dev/null | head -1)
  if [[ -z $first ]]; then
    echo "| \`$bug\` | $scenario | — | not found in 100000 seeds | | | |"
    continue
  fi
  start=$(date +%s.%N)
  line=$("$shale" shrink "$first" --max_seconds "$max_seconds" 2>/dev/null | head -1)
  secs=$(echo "$(date +%s.%N) - $start" | bc)
  shrunk=${first%.json}.shrunk.json
  "$shale" replay "$shrunk" >"$dir/replay.txt" 2>&1
  rc=$?
  replays=no
  [[ $rc -eq 1 ]] && grep -q "trace_hash matches" "$dir/replay.txt" && replays=yes
  property=$(echo "$line" | sed -n "s/.*failure '\([^']*\)'.*/\1/p")
  ops=$(echo "$line" | sed -n 's/.*ops \([0-9]* -> [0-9]*\).*/\1/p' | sed 's/->/→/')
  crashes=$(echo "$line" | sed -n 's/.*crashes \([0-9]* -> [0-9]*\).*/\1/p' | sed 's/->/→/')
  printf '| `%s` | %s | %s | %s | %s | %.0f s | %s |\n' "$bug" "$scenario" "$property" "$ops" \
    "$crashes" "$secs" "$replays"
done
