#!/usr/bin/env bash
# Opens a stepscope HTML report in headless Chromium and checks what a reader would
# get: no script errors or console messages, every figure laid out with its marks and
# its text rendered, nothing loaded from the network; then saves a screenshot.
#
#   tests/browser/run.sh REPORT.html [check_dom.py options: --steps N --children N ...]
#
# Prints "ok NAME" / "FAIL NAME" / "SKIP NAME: why" lines (tests/run.sh totals them).
# Without Chromium it installs it with scripts/deps.sh when root, else skips.
set -u
cd "$(dirname "$0")/../.."
report=${1:?usage: tests/browser/run.sh REPORT.html [options]}
shift
out_dir="${STEPSCOPE_BUILD:-$PWD/build}/browser"
fails=0

skip() { echo "SKIP browser: $1"; exit 0; }

if [ -n "${STEPSCOPE_SANITIZED:-}" ]; then skip "runs in the plain build only (the page is the same)"; fi
if [ "${STEPSCOPE_OPENCL:-1}" = 0 ]; then skip "runs in the OpenCL build (the page is the same)"; fi
command -v python3 >/dev/null 2>&1 || skip "python3 is not installed"
find_browser() { command -v chromium || command -v chromium-browser || true; }
browser=$(find_browser)
if [ -z "$browser" ] && [ "$(id -u)" = 0 ]; then
  scripts/deps.sh browser >/dev/null 2>&1 || true
  browser=$(find_browser)
fi
[ -n "$browser" ] || skip "chromium is not installed (scripts/deps.sh browser installs it)"

mkdir -p "$out_dir"
page="$out_dir/page-under-test.html"
# The probe runs only in this copy: it records script errors and measures what the
# browser laid out (figure sizes, rendered text length, each text's real box) into
# attributes that --dump-dom then shows. The report itself has no script.
probe='<script>window.__errs=[];addEventListener("error",function(e){__errs.push(String(e.message))});addEventListener("load",function(){var d=document.documentElement;document.querySelectorAll("svg.fig").forEach(function(s){var r=s.getBoundingClientRect();s.setAttribute("data-probe-w",Math.round(r.width));s.setAttribute("data-probe-h",Math.round(r.height));var t=0,n=0;s.querySelectorAll("text").forEach(function(x){n++;if(x.textContent.length&&x.getComputedTextLength()>0)t++;var b=x.getBBox();x.setAttribute("data-probe-bbox",[b.x,b.y,b.width,b.height].map(function(v){return v.toFixed(2)}).join(","))});s.setAttribute("data-probe-text",n+"/"+t)});d.setAttribute("data-probe-errors",String(__errs.length));d.setAttribute("data-probe-height",String(document.documentElement.scrollHeight));d.setAttribute("data-probe-done","1")});</script>'
python3 - "$report" "$page" "$probe" <<'PY' || { echo "FAIL browser: cannot prepare $report"; exit 0; }
import sys
src, dst, probe = sys.argv[1], sys.argv[2], sys.argv[3]
html = open(src, encoding="utf-8").read()
i = html.find("<head>")
if i < 0:
    sys.exit(1)
open(dst, "w", encoding="utf-8").write(html[: i + 6] + probe + html[i + 6 :])
PY

flags=(--headless --disable-gpu --no-sandbox --hide-scrollbars --enable-logging=stderr --v=0 --no-first-run
       --window-size=1000,900
       --disable-extensions --disable-background-networking --user-data-dir="$out_dir/profile")
url="file://$page"
dom="$out_dir/dom.html"
log="$out_dir/chromium.log"
shot="$out_dir/report.png"
t0=$(date +%s)
timeout 600 "$browser" "${flags[@]}" --dump-dom "$url" >"$dom" 2>"$log"
rc=$?
if [ "$rc" != 0 ] || [ ! -s "$dom" ]; then
  echo "FAIL browser: chromium --dump-dom exited $rc; last lines of $log:"
  tail -5 "$log" | sed 's/^/  /'
  exit 0
fi
# One tall screenshot of the whole page (as tall as the browser laid it out), for a
# person to look at.
height=$(python3 - "$dom" <<'PY'
import re, sys
dom = open(sys.argv[1], encoding="utf-8", errors="replace").read()
m = re.search(r'data-probe-height="(\d+)"', dom)
print(max(600, min(16000, int(m.group(1)) + 16 if m else 6000)))
PY
)
rm -f "$shot"
timeout 600 "$browser" "${flags[@]}" --window-size=1000,"$height" --screenshot="$shot" "$url" >/dev/null 2>>"$log"
t1=$(date +%s)

# Console messages (errors, warnings, logs) from the page land in the log as CONSOLE lines.
if grep -q "CONSOLE" "$log"; then
  echo "FAIL browser: the page wrote to the console:"
  grep "CONSOLE" "$log" | head -5 | sed 's/^/  /'
  fails=$((fails + 1))
else
  echo "ok   browser: no console messages"
fi
python3 tests/browser/check_dom.py "$dom" "$@" || fails=$((fails + 1))
if [ -s "$shot" ] && python3 - "$shot" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read(32)
ok = b[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", b[16:24])[0] == 1000
sys.exit(0 if ok else 1)
PY
then
  echo "ok   browser: screenshot saved to ${shot#$PWD/} ($((t1 - t0)) s in chromium)"
else
  echo "FAIL browser: no screenshot at $shot"
  fails=$((fails + 1))
fi
[ "$fails" = 0 ]
