#!/usr/bin/env bash
# check_probes_test: proves ci/check_probes.sh bites. In a fake tree, a
# probe placed nowhere, one placed twice and an unsorted list must each
# exit 1; the tree with every probe placed once must exit 0.
set -euo pipefail

checker="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/check_probes.sh"
tmp=$(mktemp -d /tmp/shale_check_probes_test.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/engine/util" "$tmp/engine/db"

write_tree() {  # $1: the rows; $2: the placements
  printf 'inline constexpr ProbeInfo kProbes[] = {\n%s};\n' "$1" >"$tmp/engine/util/probes.h"
  printf '%s\n' "$2" >"$tmp/engine/db/a.cc"
}
expect() {  # $1: wanted exit code; $2: what the case is
  local rc=0
  bash "$checker" "$tmp" >/dev/null 2>&1 || rc=$?
  if [[ $rc -ne $1 ]]; then
    echo "check_probes_test: $2: exit $rc, want $1" >&2
    exit 1
  fi
}

rows=$'    {"a.one", "x"},\n    {"b.two", "y"},\n'
write_tree "$rows" $'SHALE_PROBE(runtime_, "a.one");\nx = probes::IndexOf("b.two");'
expect 0 "every probe placed once"
write_tree "$rows" 'SHALE_PROBE(runtime_, "a.one");'
expect 1 "a probe placed nowhere"
write_tree "$rows" $'SHALE_PROBE(runtime_, "a.one");\nSHALE_PROBE(r, "a.one");\nSHALE_PROBE(r, "b.two");'
expect 1 "a probe placed twice"
write_tree $'    {"b.two", "y"},\n    {"a.one", "x"},\n' \
  $'SHALE_PROBE(runtime_, "a.one");\nSHALE_PROBE(runtime_, "b.two");'
expect 1 "an unsorted list"
echo "check_probes_test: the probe check bites"
