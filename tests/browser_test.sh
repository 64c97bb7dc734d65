#!/usr/bin/env bash
# The browser check (tests/browser_check.sh) in CTest: first on planted
# faults, each of which it must catch, then on real bundles of `run`,
# `pair --fail-below` and `choose`: their report.html and every chart must
# open in headless Chromium without an error and without a clipped,
# overlapping or overflowing label.  Screenshots go to BUILD/browser-shots/
# for a person to look at.  Skips (exit 77) without a headless Chromium.
#
#   tests/browser_test.sh SOURCE_DIR BUILD_DIR ROUTEBENCH
set -uo pipefail
src=$1
build=$2
routebench=$3
check="$src/tests/browser_check.sh"
data="$src/tests/data/browser"

bash "$check" "$data/fine.svg"
rc=$?
if [ "$rc" -eq 77 ]; then exit 77; fi
failures=0
fail() {
  echo "browser_test: FAIL: $*"
  failures=$((failures + 1))
}
[ "$rc" -eq 0 ] || fail "a chart with nothing wrong did not pass"

# Each planted fault must fail the check with its own words.
expect_fail() {
  local file=$1 words=$2 out
  out=$(bash "$check" "$data/$file")
  if [ $? -ne 1 ]; then
    fail "$file passed the check; planted: $words"
  elif ! grep -qE "$words" <<<"$out"; then
    fail "$file failed, but not for its planted fault ($words): $out"
  else
    echo "caught as planted: $file ($(grep -m1 -E "$words" <<<"$out" | cut -c1-100))"
  fi
}
bash "$check" "$data/fine.html" || fail "a page with nothing wrong did not pass"
expect_fail long_name.svg "clipped: SVG text \"routerrouter"
expect_fail long_name.html "overflow: .*routerrouter"
expect_fail overlap.svg "overlap: SVG text \"ctrie\""
expect_fail console_error.html "console error: planted"
expect_fail script_error.svg "script error: .*undefinedFunction"
expect_fail external_load.html "failed to load https://fonts.example.com|blocked by the page"

# Real bundles: small and quick (few, short trials: the numbers do not
# matter here, what a reader sees of them does).
out="$build/browser-bundles"
shots="$build/browser-shots"
rm -rf "$out" "$shots"
mkdir -p "$out"
quick=(--trials 7 --min-trial-ms 2)
# a router named NAME@LIB (a long label, as a baseline built from another
# commit has) and two sizes of one shape (the scaling chart and its legend)
"$routebench" run --routers "radix,hashseg@$build/librouters.so,ctrie,linear,floor,limit" \
  --baseline radix --scenarios static-100,static-1000,params-1000 \
  "${quick[@]}" --out "$out/run" >"$out/run.log" 2>&1 || fail "routebench run: $(tail -3 "$out/run.log")"
"$routebench" pair --a ctrie --b hashseg --scenarios params-100 --fail-below 0.97 "${quick[@]}" \
  --out "$out/pair" >"$out/pair.log" 2>&1
[ -f "$out/pair/summary.json" ] || fail "routebench pair: $(tail -3 "$out/pair.log")"
"$routebench" choose --routes "$src/corpus/data/github.routes" "${quick[@]}" \
  --out "$out/choose" >"$out/choose.log" 2>&1 || fail "routebench choose: $(tail -3 "$out/choose.log")"
# peer runners (two of one's own: the minimal runner, one with a long
# name) on a table they take and one they refuse (templates): the
# per-language verdict and the whole compatibility table, on a phone too
minimal=${RB_PEER_MINIMAL:-$build/routebench-peer-minimal}
long_peer=a-peer-runner-with-a-rather-long-name-for-a-phone
"$routebench" run --routers radix,hashseg --peer "mini=$minimal" --peer "$long_peer=$minimal" \
  --scenarios github,twilio "${quick[@]}" --out "$out/peers" >"$out/peers.log" 2>&1
if [ ! -f "$out/peers/summary.json" ]; then
  fail "routebench run with peers: $(tail -3 "$out/peers.log")"
elif ! grep -q 'id="compatibility"' "$out/peers/report.html" ||
  ! grep -q 'id="languages"' "$out/peers/report.html"; then
  fail "the peers bundle's report.html has no per-language verdict or compatibility table"
fi
for bundle in run pair choose peers; do
  files=()
  for f in "$out/$bundle"/*.html "$out/$bundle"/*.svg; do
    [ -f "$f" ] && files+=("$f")
  done
  if [ ${#files[@]} -eq 0 ]; then
    fail "the $bundle bundle has nothing to open"
    continue
  fi
  bash "$check" --shots "$shots/$bundle" "${files[@]}" || fail "the $bundle bundle"
done

if [ "$failures" -ne 0 ]; then
  echo "browser_test: $failures failure(s)"
  exit 1
fi
echo "browser_test: every planted fault caught, every page and chart clean"
echo "screenshots: $shots"
