#!/usr/bin/env bash
# The README's seeds-versus-fuzzer benchmark. Two measurements, each over
# RUNS independent runs (seed sweeps start at a different seed; fuzzer runs
# start from an empty corpus with libFuzzer's own random seed):
#
#   detect [CAP_S] [RUNS]   for each planted bug (planted_rows.sh), the wall
#       time to its first detection by a seed sweep (`shale run --jobs 1
#       --max_failures 1`, release build) and by the fuzzer (`shale fuzz
#       --jobs 1`, the coverage-only build from `fuzz/build --speed`), at
#       most CAP_S seconds each, at the default campaign shape. Prints one
#       line per run:
#         detect BUG SCENARIO RUN seeds|fuzzer SECONDS found|capped
#   edges [SECONDS] [RUNS] [SCENARIO]   edges covered after 60, 300 and 900
#       s (those within SECONDS) by the fuzzer and by a seed sweep run in
#       the same instrumented binary (SHALE_FUZZ_SWEEP_FROM). Prints:
#         edges SCENARIO RUN seeds|fuzzer T_S EDGES EXECUTIONS
#
# The two arms of a run go side by side, one per core (the machine has
# two), so they share whatever noise the machine has. Pipe the output to
# bench/scripts/seeds_vs_fuzzer_table.py for the README's tables.
# Usage: bench/scripts/seeds_vs_fuzzer.sh detect|edges ...
# Environment: SHALE (default build/shale), SPEED_BUILD (default
# build-fuzz-speed, from `fuzz/build --speed`), ROWS (a file that sets
# planted_rows; default bench/scripts/planted_rows.sh).
set -uo pipefail
cd "$(dirname "$0")/../.."
shale=${SHALE:-build/shale}
speed=${SPEED_BUILD:-build-fuzz-speed}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source "${ROWS:-bench/scripts/planted_rows.sh}"

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }

# verdict BUG SCENARIO REPLAY_ARGS...: "found" if the failing run passes on
# the correct engine (so the planted bug made it fail), else "false-alarm".
verdict() {
  local bug=$1 scenario=$2
  shift 2
  "$shale" replay "$@" >/dev/null 2>&1 && echo found || echo "false-alarm($bug)"
}

# seed_arm BUG SCENARIO RUN CAP: one seed sweep from seed RUN*10^6+1.
seed_arm() {
  local first=$(($3 * 1000000 + 1)) dir=$work/seeds-$1-$2-$3 start secs failure seed
  start=$(now)
  timeout "$4" "$shale" run --scenario "$2" --seeds "$first..$((first + 999999))" --jobs 1 \
    --max_failures 1 --planted_bugs "$1" --out "$dir" >/dev/null 2>&1
  secs=$(since "$start")
  failure=$(ls "$dir"/failures/*.json 2>/dev/null | head -1)
  seed=$(basename "${failure:-none}" .json)
  printf 'detect %s %s %s seeds %.2f %s\n' "$1" "$2" "$3" "$secs" \
    "$([[ -n $failure ]] && verdict "$1" "$2" --scenario "$2" --seed "${seed##*-}" || echo capped)"
}

# fuzz_arm BUG SCENARIO RUN CAP: one fuzzing session from an empty corpus.
fuzz_arm() {
  local target=${2//-/_} dir=$work/fuzz-$1-$2-$3 start secs crash
  start=$(now)
  "$shale" fuzz --scenario "$2" --seconds "$4" --planted_bugs "$1" \
    --fuzzer "$speed/fuzz/fuzz_sim_$target" --out "$dir" >/dev/null 2>&1
  secs=$(since "$start")
  crash=$(ls "$dir"/crash-* 2>/dev/null | head -1)
  printf 'detect %s %s %s fuzzer %.2f %s\n' "$1" "$2" "$3" "$secs" \
    "$([[ -n $crash ]] && verdict "$1" "$2" --scenario "$2" --tape "$crash" || echo capped)"
}

detect() {
  local cap=${1:-120} runs=${2:-5} row bug scenario run
  for row in "${planted_rows[@]}"; do
    read -r bug scenario <<<"$row"
    for ((run = 1; run <= runs; run++)); do
      seed_arm "$bug" "$scenario" "$run" "$cap" &
      fuzz_arm "$bug" "$scenario" "$run" "$cap"
      wait
    done
  done
}

# libfuzzer_edges LOG SECONDS LABEL RUN SCENARIO: the edge count ("cov:")
# and executions at each mark, from a log whose lines start with their time
# since start; "ended T" when the process stopped (on a failure) at T s,
# before the mark.
libfuzzer_edges() {
  local mark
  for mark in 60 300 900; do
    ((mark <= $2)) || continue
    awk -v mark="$mark" -v label="$3" -v run="$4" -v scen="$5" '
      { last = $1 }
      $1 <= mark && / cov: / { for (i = 2; i <= NF; i++) {
                     if ($i == "cov:") cov = $(i + 1)
                     if ($i ~ /^#[0-9]+:?$/) execs = substr($i, 2) + 0 } }
      /^[0-9.]+ SHALE FAILURE/ { failed = $1 }
      END { printf "edges %s %s %s %d %d %d", scen, run, label, mark, cov, execs
            if (failed != "" && failed + 0 < mark) printf " ended %d", failed
            printf "\n" }' "$1"
  done
}

# edge_arm SCENARIO RUN SECONDS seeds|fuzzer
edge_arm() {
  local target=${1//-/_} dir=$work/edges-$1-$2-$4 start
  mkdir -p "$dir/corpus"
  start=$(now)
  (
    cd "$dir" || exit
    local mode=(-fork=1 -rss_limit_mb=4096)  # as `shale fuzz` runs it
    if [[ $4 == seeds ]]; then
      # One process: fork mode re-runs inputs to merge coverage, and a sweep
      # ignores its inputs. Simulated crashes leak on purpose, so no limit.
      export SHALE_FUZZ_SWEEP_FROM=$(($2 * 1000000 + 1))
      mode=(-rss_limit_mb=0 -malloc_limit_mb=0)
    fi
    "$OLDPWD/$speed/fuzz/fuzz_sim_$target" -max_total_time="$3" -max_len=65536 -len_control=0 \
      -timeout=60 "${mode[@]}" -print_final_stats=1 corpus 2>&1
  ) | perl -MTime::HiRes=time -ne 'BEGIN { $t0 = time } printf "%.1f %s", time - $t0, $_' \
    >"$dir/log"
  libfuzzer_edges "$dir/log" "$3" "$4" "$2" "$1"
}

edges() {
  local seconds=${1:-900} runs=${2:-5} scenario=${3:-crash-recovery} run
  for ((run = 1; run <= runs; run++)); do
    edge_arm "$scenario" "$run" "$seconds" seeds &
    edge_arm "$scenario" "$run" "$seconds" fuzzer
    wait
  done
}

case ${1:-} in
  detect) shift; detect "$@" ;;
  edges) shift; edges "$@" ;;
  *) echo "usage: $0 detect [CAP_S] [RUNS] | edges [SECONDS] [RUNS] [SCENARIO]" >&2; exit 2 ;;
esac
