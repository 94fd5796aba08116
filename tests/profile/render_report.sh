#!/usr/bin/env bash
# FERRY_PROFILE's HTML report opened in headless Chromium (Debian's `chromium`): it must render
# with no console message at all (the report logs nothing, so any line is an error: a script that
# threw, a resource it tried to fetch), its charts must be in the rendered page, and the screenshot
# must not be blank.
#
#   render_report.sh MPIRUN PROGRAM [--self-test] [--screenshot PNG]
#
# --self-test plants a script error in a copy of the report and fails unless the check catches it.
# --screenshot keeps the screenshot (docs/profile-report.png is made so). Exit 77 (skipped) when
# chromium is not installed.
set -euo pipefail

mpirun=$(realpath "$1") program=$(realpath "$2")
shift 2
self_test=0 keep=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --self-test) self_test=1 ;;
    --screenshot) keep=$2; shift ;;
    *) echo "render_report.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
if ! command -v chromium >/dev/null 2>&1; then
  echo "render_report.sh: chromium is not installed (apt-get install chromium): skipped"
  exit 77
fi

dir=$(mktemp -d /tmp/ferry-render.XXXXXX)
trap 'rm -rf "$dir"' EXIT
cd "$dir"
FERRY_PROFILE="$dir/report.html" timeout 120 "$mpirun" -n 4 "$program" "$dir/data.bin" >run.log 2>&1 ||
  { echo "render_report: FAILED: the job failed"; cat run.log; exit 1; }

# Renders $1; prints what is wrong with it, nothing when all is well.
check() {
  local page=$1
  # Chromium runs as root in CI containers: without its sandbox then. A profile of its own, so
  # concurrent runs do not share one.
  local flags=(--headless --no-sandbox --disable-gpu --user-data-dir="$dir/chromium" --enable-logging=stderr --v=0
               --window-size=1200,2400 --virtual-time-budget=2000)
  timeout 90 chromium "${flags[@]}" --screenshot="$dir/shot.png" "file://$page" >"$dir/shot.log" 2>&1 || {
    echo "chromium failed to take the screenshot"
    return
  }
  timeout 90 chromium "${flags[@]}" --dump-dom "file://$page" >"$dir/dom.html" 2>"$dir/dom.log" || {
    echo "chromium failed to render the page"
    return
  }
  grep -h ':CONSOLE' "$dir/shot.log" "$dir/dom.log" | sed 's/^/console: /' | sort -u || true
  local charts
  charts=$(grep -o '<svg class="chart' "$dir/dom.html" | wc -l)
  [[ $charts -ge 4 ]] || echo "only $charts SVG charts in the rendered page (expected the time bars, two heat maps, histograms)"
  grep -q 'class="sortable"' "$dir/dom.html" || echo "no sortable table in the rendered page"
  local size
  size=$(stat -c %s "$dir/shot.png" 2>/dev/null || echo 0)
  [[ $size -ge 20000 ]] || echo "the screenshot is $size bytes: a blank page?"
}

if [[ $self_test -eq 1 ]]; then
  sed 's|</body>|<script>undefinedFunction();</script></body>|' report.html >broken.html
  problems=$(check "$dir/broken.html")
  if [[ -z $problems ]]; then
    echo "render_report self-test: FAILED: a report with a script error passed the check"
    exit 1
  fi
  echo "render_report self-test: caught: $problems"
  echo "render_report self-test: OK"
  exit 0
fi

problems=$(check "$dir/report.html")
if [[ -n $problems ]]; then
  echo "render_report: FAILED:"
  echo "$problems"
  exit 1
fi
[[ -z $keep ]] || cp "$dir/shot.png" "$keep"
echo "render_report: OK"
