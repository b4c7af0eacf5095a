#!/usr/bin/env bash
# check_registry: every test folder is registered in one place.
#
# Fails (exit 1, naming each folder) if a folder directly under tests/ holds
# *.cc files but is not listed in `set(SHALE_TEST_FOLDERS ...)` in
# tests/CMakeLists.txt (read from that file, so the list has one home).
#
# Also fails if a TEST_CASE name holds ';' (see below).
#
# Usage: ci/check_registry.sh [ROOT]   (ROOT defaults to the repository root)
# Exit: 0 all registered, 1 unregistered folders, 2 list not found.
set -euo pipefail

root=${1:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"}
cmake_file="$root/tests/CMakeLists.txt"
if [[ ! -f "$cmake_file" ]]; then
  echo "check_registry: $cmake_file not found" >&2
  exit 2
fi

# The words of `set(SHALE_TEST_FOLDERS a b c)`, possibly over several lines,
# with `# comments` removed.
registered=$(sed 's/#.*//' "$cmake_file" | tr '\n' ' ' |
  grep -oE 'set\([[:space:]]*SHALE_TEST_FOLDERS[[:space:]][^)]*\)' |
  sed -E 's/^set\([[:space:]]*SHALE_TEST_FOLDERS//; s/\)$//' || true)
if [[ -z "${registered//[[:space:]]/}" ]]; then
  echo "check_registry: no set(SHALE_TEST_FOLDERS ...) in $cmake_file" >&2
  exit 2
fi

missing=()
checked=0
for dir in "$root"/tests/*/; do
  folder=$(basename "$dir")
  compgen -G "$dir*.cc" >/dev/null || continue
  checked=$((checked + 1))
  if ! grep -qxF -- "$folder" <<<"$(tr -s '[:space:]' '\n' <<<"$registered")"; then
    missing+=("$folder")
  fi
done

if [[ ${#missing[@]} -ne 0 ]]; then
  for folder in "${missing[@]}"; do
    echo "tests/$folder/: has *.cc files but is not in SHALE_TEST_FOLDERS ($cmake_file)"
  done
  echo "check_registry: FAILED: ${#missing[@]} unregistered test folder(s)" >&2
  exit 1
fi
# catch_discover_tests splits a test name at ';' into ctest entries that
# match nothing, so such a test silently never runs under ctest.
split_names=$(grep -rnE 'TEST_CASE\("[^"]*;' "$root"/tests --include='*.cc' || true)
if [[ -n "$split_names" ]]; then
  echo "$split_names"
  echo "check_registry: FAILED: test names with ';' (ctest would never run them)" >&2
  exit 1
fi
echo "check_registry: OK ($checked test folders, all registered, no ';' in test names)"
