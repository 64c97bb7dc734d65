#!/usr/bin/env bash
# Open HTML pages and SVG charts in headless Chromium and fail on what a
# reader would see go wrong: any console or script error, a failed load,
# text cut at a chart's edge or drawn over other text, text that runs out
# of its box or off the viewport (measured by the browser:
# tests/browser/check.js), and save screenshots for a person to look at.
#
#   tests/browser_check.sh [--shots DIR] FILE...
#
# An HTML page is opened three times: on a laptop (1280 px wide: check, and
# a screenshot of its first screen, NAME.laptop.png, and of the whole page,
# NAME.full.png) and on a phone (390 px, every <details> opened: check and
# NAME.phone.png).  An SVG chart is opened at its own size (NAME.png).
# Exit status: 0 every file passed, 1 a file failed, 2 usage, 77 no
# headless Chromium here (scripts/setup.sh --browser installs it).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
shots=""
if [ "${1:-}" = "--shots" ]; then
  shots=${2:?--shots needs a directory}
  shift 2
fi
if [ $# -eq 0 ]; then
  echo "usage: browser_check.sh [--shots DIR] FILE..." >&2
  exit 2
fi

browser=${RB_BROWSER:-}
if [ -z "$browser" ]; then
  for b in chromium-headless-shell chromium chromium-browser google-chrome-stable; do
    if command -v "$b" >/dev/null 2>&1; then
      browser=$(command -v "$b")
      break
    fi
  done
fi
if [ -z "$browser" ]; then
  echo "browser_check: skipped: no headless Chromium on this machine" \
    "(scripts/setup.sh --browser installs Debian's chromium-headless-shell)"
  exit 77
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
[ -n "$shots" ] && mkdir -p "$shots"

# A copy of FILE with check.js run first; $2: "true" opens every <details>.
inject() {
  local file=$1 open=$2 out=$3
  RB_JS="var RB_OPEN = $open;"$'\n'"$(cat "$here/browser/check.js")" perl -0777 -pe '
    my $js = $ENV{RB_JS};
    if ($ARGV =~ /\.svg$/i) {
      s{(<svg\b[^>]*>)}{$1\n<script><![CDATA[\n$js\n]]></script>\n}i;
    } elsif (!s{(<head\b[^>]*>)}{$1\n<script>\n$js\n</script>\n}i) {
      $_ = "<script>\n$js\n</script>\n$_";
    }' "$file" >"$out"
}

# Open $1 at $2 x $3; the verdict into $4, a screenshot into $5 ("" none).
open_page() {
  local page=$1 w=$2 h=$3 verdict=$4 shot=$5
  local args=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run
              --disable-background-networking --disable-component-update --disable-sync
              --hide-scrollbars --user-data-dir="$work/profile" --window-size="$w,$h"
              --virtual-time-budget=3000 --dump-dom)
  [ -n "$shot" ] && args+=(--screenshot="$shot")
  timeout 120 "$browser" "${args[@]}" "file://$page" >"$work/dom" 2>"$work/log" || true
  perl -0777 -ne '
    if (/data-rb-check="([^"]*)"/) {
      my $v = $1;
      $v =~ s/&quot;/"/g; $v =~ s/&lt;/</g; $v =~ s/&gt;/>/g; $v =~ s/&nbsp;/ /g;
      $v =~ s/&#(\d+);/chr($1)/ge; $v =~ s/&#x([0-9a-f]+);/chr(hex($1))/gie;
      $v =~ s/&amp;/&/g;
      print $v, "\n";
    }' "$work/dom" >"$verdict"
  if ! grep -q '^SIZE ' "$verdict"; then
    echo "no verdict from the browser (the page never finished loading); its log:" >"$verdict"
    tail -5 "$work/log" >>"$verdict"
  fi
}

# Report the problems of one opening; returns 1 when there were some.
judge() {
  local file=$1 where=$2 verdict=$3
  if grep -q '^SIZE ' "$verdict" && [ "$(grep -vc '^SIZE ' "$verdict")" -eq 0 ]; then
    return 0
  fi
  echo "FAIL $file ($where):"
  grep -v '^SIZE ' "$verdict" | sed 's/^/  /'
  return 1
}

status=0
for file in "$@"; do
  if [ ! -f "$file" ]; then
    echo "FAIL $file: no such file"
    status=1
    continue
  fi
  abs=$(cd "$(dirname "$file")" && pwd)/$(basename "$file")
  name=$(basename "$file")
  name=${name%.*}
  shot() { [ -n "$shots" ] && echo "$shots/$1" || echo ""; }
  failed=0
  case "$file" in
    *.svg | *.SVG)
      inject "$abs" false "$work/page.svg"
      size=$(perl -0777 -ne 'print "$1 $2" if /<svg\b[^>]*?\bwidth="([\d.]+)"[^>]*?\bheight="([\d.]+)"/' "$abs")
      w=${size% *}
      h=${size#* }
      [ -z "$size" ] && w=1280 && h=900
      open_page "$work/page.svg" "${w%.*}" "${h%.*}" "$work/v" "$(shot "$name.png")"
      judge "$file" "at ${w%.*} x ${h%.*}" "$work/v" || failed=1
      ;;
    *)
      inject "$abs" false "$work/page.html"
      open_page "$work/page.html" 1280 900 "$work/v" "$(shot "$name.laptop.png")"
      judge "$file" "laptop, 1280 px" "$work/v" || failed=1
      height=$(awk '/^SIZE /{print $3}' "$work/v")
      if [ -n "$shots" ] && [ -n "$height" ]; then
        [ "$height" -gt 16000 ] && height=16000
        open_page "$work/page.html" 1280 "$height" "$work/v2" "$(shot "$name.full.png")"
      fi
      inject "$abs" true "$work/page.html"
      open_page "$work/page.html" 390 844 "$work/v" "$(shot "$name.phone.png")"
      judge "$file" "phone, 390 px, every <details> open" "$work/v" || failed=1
      ;;
  esac
  if [ "$failed" -eq 0 ]; then
    echo "ok   $file"
  else
    status=1
  fi
done
[ -n "$shots" ] && echo "screenshots in $shots"
exit "$status"
