#!/usr/bin/env bash
# check_thread_safety: clang's -Wthread-safety, as the CMake clang build
# enables it, rejects a lock-discipline violation against the engine's own
# Mutex and lock helpers, and accepts the same code done right. This shows
# the annotations bite; the clang build in ci/determinism (SHALE_WERROR)
# applies them to the whole tree.
#
# Usage: ci/check_thread_safety.sh [ROOT]   (ROOT defaults to the repository root)
# Exit: 0 the check bites and passes correct code, 1 it does not, 2 no clang.
set -euo pipefail

root=${1:-"$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"}
cxx=${CLANGXX:-clang++-14}
if ! command -v "$cxx" >/dev/null; then
  echo "check_thread_safety: $cxx not found" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# $1: the body of Bump(), which must touch count_ only with mu_ held.
write_case() {
  cat >"$tmp/case.cc" <<CASE
#include <deque>
#include <memory>
#include "shale/env.h"
#include "util/mutexlock.h"
struct Counter {
  std::unique_ptr<shale::Mutex> mu_;
  int count_ ABSL_GUARDED_BY(mu_) = 0;
  std::deque<int> queue_ ABSL_GUARDED_BY(mu_);  // a guarded object (as DBImpl's WriteThread)
  void BumpLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { count_++; }
  void Bump() { $1 }
};
CASE
}
compile() {
  "$cxx" -std=c++20 -fsyntax-only -Wthread-safety -Werror -I"$root/engine" \
    -I"$root/engine/include" "$tmp/case.cc" 2>"$tmp/err"
}

write_case 'shale::MutexLock l(mu_.get()); count_++; BumpLocked(); queue_.push_back(1);'
if ! compile; then
  echo "check_thread_safety: correct locking was rejected:" >&2
  cat "$tmp/err" >&2
  exit 1
fi
for wrong in 'count_++;' 'BumpLocked();' 'mu_->Lock(); count_++;' 'queue_.push_back(1);'; do
  write_case "$wrong"
  if compile; then
    echo "check_thread_safety: '$wrong' without the lock (or never unlocking) was accepted" >&2
    exit 1
  fi
done
echo "check_thread_safety: OK (clang rejects 4 planted violations, accepts the locked code)"
