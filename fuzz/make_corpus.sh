#!/usr/bin/env bash
# Regenerates fuzz/corpus/: the decoder targets' seed corpora, all written
# by Shale itself. Engine files come from fuzz_make_corpus (see
# make_corpus.cc); failure files and a report come from a short campaign
# with a planted bug (`shale run`, from the normal build in build/).
# Usage: fuzz/make_corpus.sh   (after fuzz/build and the README's build)
set -euo pipefail
cd "$(dirname "$0")/.."
shale=${SHALE:-build/shale}
[[ -x $shale ]] || { echo "fuzz/make_corpus.sh: build $shale first (bash ci/test)" >&2; exit 2; }
[[ -x build-fuzz/fuzz/fuzz_make_corpus ]] || bash fuzz/build
cmake --build build-fuzz -j2 --target fuzz_make_corpus >/dev/null
rm -rf fuzz/corpus
build-fuzz/fuzz/fuzz_make_corpus fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$shale" run --scenario crash-recovery --seeds 1..8 --jobs 1 --out "$tmp/run" \
  --planted_bugs recovery_commits_prepared >/dev/null 2>&1 || true
mkdir -p fuzz/corpus/failure_file fuzz/corpus/report_json
find "$tmp/run/failures" -name '*.json' | sort | head -2 | xargs -r cp -t fuzz/corpus/failure_file
cp "$tmp/run/report.json" fuzz/corpus/report_json/report.json
sed -n 2p "$tmp/run/report.json" > fuzz/corpus/report_json/entry-line
du -sh fuzz/corpus
