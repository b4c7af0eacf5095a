#!/usr/bin/env bash
# check_format: every tracked C++ file is as clang-format-14 formats it
# under the repository's .clang-format.
#
# Fails (exit 1) listing the first differences if any file is not; exit 2
# if clang-format-14 is missing. To fix: ci/check_format.sh --fix
# (formats every tracked file in place).
#
# Usage: ci/check_format.sh [--fix]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v clang-format-14 >/dev/null 2>&1; then
  echo "check_format: clang-format-14 is not installed (ci/setup installs it)" >&2
  exit 2
fi
if [[ "${1:-}" == "--fix" ]]; then
  git ls-files -z '*.cc' '*.h' | xargs -0 clang-format-14 -i --style=file
  echo "check_format: formatted every tracked C++ file"
  exit 0
fi
files=$(git ls-files '*.cc' '*.h' | wc -l)
if ! report=$(git ls-files -z '*.cc' '*.h' | xargs -0 clang-format-14 --dry-run --Werror --style=file 2>&1); then
  echo "$report" | head -40
  echo "check_format: FAILED: files differ from clang-format-14 (run ci/check_format.sh --fix)" >&2
  exit 1
fi
echo "check_format: OK ($files C++ files)"
