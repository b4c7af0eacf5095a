#!/usr/bin/env bash
# write_modes.sh: the seed post's write-mode benchmark, scaled to a small
# machine (README "Write modes"). Runs fillrandom with several
# writer threads and --batch_size=8, WAL on and off, in interleaved rounds
# (every mode once per round), and prints each mode's median ops/sec and the
# median of its per-round ratio to vanilla: ratios taken within a round hold
# up on a noisy machine where absolute figures do not.
#
# Usage: bench/scripts/write_modes.sh [ENGINE]   (shale or rocksdb; default shale)
# Env:   ROUNDS (5), NUM keys per thread (200000), THREADS (4), SHALE (build/shale)
set -euo pipefail
cd "$(dirname "$0")/../.."
engine=${1:-shale}
rounds=${ROUNDS:-5}
num=${NUM:-200000}
threads=${THREADS:-4}
shale=${SHALE:-build/shale}
modes=(vanilla unordered unordered_wp wp_locks)
declare -A flags=(
  [vanilla]=""
  [unordered]="--unordered_write"
  [unordered_wp]="--transaction_db --unordered_write --two_write_queues --txn_skip_concurrency_control"
  [wp_locks]="--transaction_db --unordered_write --two_write_queues"
)
results=$(mktemp)
trap 'rm -f "$results"; rm -rf /dev/shm/shale-write-modes' EXIT
for wal in 0 1; do
  for round in $(seq 1 "$rounds"); do
    for mode in "${modes[@]}"; do
      rm -rf /dev/shm/shale-write-modes
      # shellcheck disable=SC2086
      ops=$("$shale" bench --engine="$engine" --benchmarks=fillrandom --threads="$threads" \
              --num="$num" --batch_size=8 --disable_wal="$wal" --db=/dev/shm/shale-write-modes \
              ${flags[$mode]} | sed -nE 's/^fillrandom .* ([0-9]+) ops\/sec.*/\1/p')
      echo "$wal $round $mode $ops" >>"$results"
    done
  done
done
python3 - "$results" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(dict)  # (wal, mode) -> round -> ops
for line in open(sys.argv[1]):
    wal, rnd, mode, ops = line.split()
    runs[(wal, mode)][rnd] = int(ops)
for wal in ("0", "1"):
    print(f"disable_wal={wal}")
    base = runs[(wal, "vanilla")]
    for mode in ("vanilla", "unordered", "unordered_wp", "wp_locks"):
        r = runs[(wal, mode)]
        ratio = statistics.median(r[k] / base[k] for k in r)
        print(f"  {mode:13s} median {statistics.median(r.values()):>9.0f} ops/s"
              f"  vs vanilla {100 * (ratio - 1):+5.0f}%")
PY
