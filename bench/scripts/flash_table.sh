#!/usr/bin/env bash
# flash_table.sh: the open-channel talk's table in simulated time (README
# "Open-channel SSD"). For 1, 8 and 64 parallel units it runs the raw device
# (rawwrite, rawread: fio's role) and the engine on the flash backend
# (fillrandom, readrandom with 4 threads): with the write buffer held across
# Flush and without it, and with the backend's read cache and without it.
# Prints one markdown row per unit count, in MB/s of simulated time. The
# engine's figures are user data (key + value bytes), as db_bench prints
# them; the backend's own overhead is the write amplification: what the
# device programmed (tables, WAL, MANIFEST, chunk metadata, padding) over
# what the engine wrote.
#
# The runs are simulations: the same flags give the same figures on any
# machine, so each configuration runs once (no medians needed).
#
# Usage: bench/scripts/flash_table.sh
# Env:   NUM keys per thread (200000), READS per thread (100000),
#        THREADS (4), UNITS ("1 8 64"), SHALE (build/shale)
set -euo pipefail
cd "$(dirname "$0")/../.."
num=${NUM:-200000}
reads=${READS:-100000}
threads=${THREADS:-4}
units_list=${UNITS:-1 8 64}
shale=${SHALE:-build/shale}
# A small memtable and block cache, so that the WAL turns over and reads
# reach the device (the talk's point is what the backend does there).
common="--fs=sim-flash --num=$num --reads=$reads --threads=$threads --write_buffer_size=4194304 --cache_size=1048576"
read_cache=268435456

mbps() {  # benchmark name, output -> its MB/s
  awk -v name="$1" '$1 == name { for (i = 1; i <= NF; i++) if ($i == "MB/s" || $i == "MB/s;") print $(i-1) }' <<<"$2"
}
amplification() {  # output -> the first run's write amplification
  sed -n 's/.*write amplification \([0-9.]*\).*/\1/p' <<<"$1" | head -1
}

echo "| units | raw write | raw read | fillrandom, no write buffer | fillrandom, write buffer | readrandom, no read cache | readrandom, read cache | write amplification (no buffer / buffer) |"
echo "|---|---|---|---|---|---|---|---|"
for units in $units_list; do
  raw=$("$shale" bench $common --flash_units="$units" --benchmarks=rawwrite,rawread)
  unbuffered=$("$shale" bench $common --flash_units="$units" --benchmarks=fillrandom)
  buffered=$("$shale" bench $common --flash_units="$units" --flash_buffer_across_flush \
               --benchmarks=fillrandom,readrandom)
  cached=$("$shale" bench $common --flash_units="$units" --flash_buffer_across_flush \
             --flash_read_cache_bytes=$read_cache --benchmarks=fillrandom,readrandom)
  echo "| $units | $(mbps rawwrite "$raw") | $(mbps rawread "$raw") | $(mbps fillrandom "$unbuffered") | $(mbps fillrandom "$buffered") | $(mbps readrandom "$buffered") | $(mbps readrandom "$cached") | $(amplification "$unbuffered") / $(amplification "$buffered") |"
done
