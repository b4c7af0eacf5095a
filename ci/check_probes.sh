#!/usr/bin/env bash
# check_probes: every coverage probe listed in engine/util/probes.h is
# placed in the engine exactly once, and the list is sorted by name.
#
# A probe is placed by SHALE_PROBE(runtime, "name") or, where a component
# counts it itself, probes::IndexOf("name"). A listed probe placed nowhere
# would be reported as never hit by every campaign; one placed twice would
# count two paths as one.
#
# Usage: ci/check_probes.sh [ROOT]   (ROOT defaults to the repository root)
# Exit: 0 good, 1 a probe placed other than once or the list unsorted,
# 2 the list not found.
set -euo pipefail

root=${1:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"}
list="$root/engine/util/probes.h"
if [[ ! -f "$list" ]]; then
  echo "check_probes: $list not found" >&2
  exit 2
fi

# The rows' names: the first string of each `{"name", ...` row.
names=$(grep -oE '^[[:space:]]*\{"[a-z0-9_.]+",' "$list" | grep -oE '"[^"]+"' | tr -d '"')
if [[ -z "$names" ]]; then
  echo "check_probes: no probe rows in $list" >&2
  exit 2
fi

bad=0
if [[ "$names" != "$(LC_ALL=C sort <<<"$names")" ]]; then
  echo "check_probes: the rows of $list are not sorted by name" >&2
  bad=1
fi
if [[ -n "$(uniq -d <<<"$names")" ]]; then
  echo "check_probes: listed twice: $(uniq -d <<<"$names" | tr '\n' ' ')" >&2
  bad=1
fi
count=0
while read -r name; do
  count=$((count + 1))
  places=$(grep -rhoE "(SHALE_PROBE\([^,]+, |IndexOf\()\"$name\"" "$root/engine" \
    --include='*.cc' --include='*.h' | wc -l)
  if [[ "$places" -ne 1 ]]; then
    echo "check_probes: probe '$name' is placed $places times (want 1)" >&2
    bad=1
  fi
done <<<"$names"
[[ $bad -eq 0 ]] && echo "check_probes: $count probes, each placed once"
exit $bad
