#!/usr/bin/env bash
# check_report_html: report.html in a real browser. A campaign with a
# planted engine bug fails; `shale report html` renders its report with the
# failing seeds' timelines; headless Chromium (Debian's `chromium`) loads
# the page, runs its script, and the rendered DOM must hold the failure's
# property, its failing check and a drawn timeline (lanes, I/O, a crash).
# A screenshot of the first failure is kept as the test's artifact
# (build/artifacts/report-html-failure.png).
#
# Usage: ci/check_report_html.sh SHALE_BINARY ARTIFACT_DIR
# Exit: 0 good (or Chromium missing: skipped, with a line saying so),
# 1 the page is wrong, 2 bad usage.
set -euo pipefail
shale=${1:?usage: check_report_html.sh SHALE_BINARY ARTIFACT_DIR}
artifacts=${2:?usage: check_report_html.sh SHALE_BINARY ARTIFACT_DIR}
browser=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$browser" ]]; then
  echo "check_report_html: SKIPPED: no chromium here (ci/setup installs Debian's chromium)"
  exit 0
fi
tmp=$(mktemp -d /tmp/shale_report_html.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$artifacts"

"$shale" run --scenario crash-recovery --seeds 1..40 --jobs 2 --max_failures 1 --recheck 0 \
  --planted_bugs ack_sync_write_before_wal_sync --out "$tmp/run" >"$tmp/run.log" 2>&1 || true
grep -q "FAILED crash-recovery seed" "$tmp/run.log" || { echo "check_report_html: the planted bug found nothing" >&2; cat "$tmp/run.log" >&2; exit 1; }
"$shale" report html "$tmp/run/report.json" --out "$tmp/report.html" >/dev/null

flags=(--headless --no-sandbox --disable-gpu --hide-scrollbars --run-all-compositor-stages-before-draw
       --virtual-time-budget=5000)
# Headless Chromium now and then never exits after it has drawn the page
# (seen in a CI run here: 120 s, no output): each call gets 40 s
# and up to 3 tries, and a page that still fails to come out is reported.
browse() {  # $1: stdout file; the rest: Chromium's arguments
  local out=$1 try
  shift
  for try in 1 2 3; do
    if timeout 40 "$browser" "${flags[@]}" "$@" >"$out" 2>>"$tmp/browser.log"; then return 0; fi
    echo "check_report_html: Chromium try $try of 3 failed or timed out" >>"$tmp/browser.log"
  done
  echo "check_report_html: Chromium did not finish in 3 tries of 40 s ($*)" >&2
  tail -5 "$tmp/browser.log" >&2
  exit 1
}
browse "$tmp/dom.html" --dump-dom "file://$tmp/report.html"
browse /dev/null --window-size=1400,1000 --screenshot="$artifacts/report-html-failure.png" \
  "file://$tmp/report.html?focus=failure-1"

fail=0
need() {  # $1: what; $2: a fixed string the rendered DOM must hold
  if ! grep -qF -- "$2" "$tmp/dom.html"; then
    echo "check_report_html: the rendered page lacks $1 ($2)" >&2
    fail=1
  fi
}
need "the failure section" 'id="failure-1"'
need "the failing property" '<b>durability</b>'
need "the drawn timeline" 'class="timeline-svg"'
need "a task lane" '>client0</text>'
need "an I/O call" 'class="ev-io"'
need "a sync" 'class="ev-sync"'
need "a crash" 'class="ev-crash"'
need "the failing check" 'failed check: durability'
need "the link from the failure table" 'href="#failure-1"'
if [[ ! -s "$artifacts/report-html-failure.png" ]]; then
  echo "check_report_html: no screenshot" >&2
  fail=1
fi
[[ $fail -eq 0 ]] && echo "check_report_html: Chromium drew the failure's timeline; screenshot: $artifacts/report-html-failure.png"
exit $fail
