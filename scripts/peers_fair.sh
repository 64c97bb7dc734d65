#!/usr/bin/env bash
# peers_fair.sh — is each peer runner's figure its router's own?  For every
# peer runner, the plain loop of its router (the runner started with
# "plain": its lookup called directly in a for loop over the requests,
# folded into a checksum, the style of the router's own benchmarks; five
# runs of about 200 ms after a warm-up) against the runner's figure in a
# paired routebench run, with the nop runner of its language (the runner's
# loop with a constant lookup: the loop's own cost).  The plain loops run
# before and after the paired run, so a machine that changed speed shows.
# Prints one Markdown table, ns per lookup, with the CPU and the load
# average, for docs/peers.md ("Are the runners fair?"); a runner that
# `routebench list` shows but this table lacks is named on stderr.
#   scripts/peers_fair.sh [SCENARIO [TRIALS]]    (default: github 15)
# Needs the runners built (bash peers/build.sh) and build/routebench.  Run
# it on a quiet machine: the figures are wall-clock timings.  It takes
# about 4 minutes with the defaults (every runner built).
set -euo pipefail
cd "$(dirname "$0")/.."
scenario=${1:-github}
trials=${2:-15}
rb=./build/routebench
routes=corpus/data/$scenario.routes
requests=corpus/data/$scenario.requests
out=build/peers-fair
[ -x "$rb" ] || { echo "peers_fair: build/routebench is not built (scripts/build.sh build)" >&2; exit 1; }
[ -f "$routes" ] || { echo "peers_fair: no shipped table $scenario (corpus/data/)" >&2; exit 1; }
command -v jq >/dev/null || { echo "peers_fair: needs jq (scripts/setup.sh --results)" >&2; exit 1; }

# peer runner | plain-loop command | nop runner | the lookup both time
rows=(
  "httprouter|peers/bin/httprouter plain|nop-go|Router.Lookup"
  "chi|peers/bin/chi plain|nop-go|Mux.Match, a reused context"
  "chi-servehttp|peers/bin/chi servehttp plain|nop-go|Mux.ServeHTTP, a reused request"
  "gin|peers/bin/gin plain|nop-go|Engine.ServeHTTP, a reused request"
  "echo|peers/bin/echo plain|nop-go|Router.Find, a reset Context, + its handler"
  "gorilla-mux|peers/bin/gorilla-mux plain|nop-go|Router.Match"
  "matchit|peers/bin/matchit plain|nop-rust|Router::at (runner: + axum's method table)"
  "matchit-per-method|peers/bin/matchit per-method plain|nop-rust|Router::at, the method's tree"
  "find-my-way|node peers/find-my-way/runner.js plain|nop-node|find"
  "find-my-way-find|node peers/find-my-way/runner.js plain|nop-node|find"
  "hono|node peers/js/hono.mjs plain|nop-node|SmartRouter.match"
  "hono-regexp|node peers/js/hono.mjs regexp plain|nop-node|RegExpRouter.match"
  "hono-trie|node peers/js/hono.mjs trie plain|nop-node|TrieRouter.match"
  "rou3|node peers/js/rou3.mjs plain|nop-node|findRoute"
  "memoirist|node peers/js/memoirist.mjs plain|nop-node|find"
)
# every peer runner routebench knows (not the nop references) has a row;
# the nop references that are built join the paired run
runners() { "$rb" list | awk -v kind="$1" '/^peer runners/ { on = 1; next } on && /^$/ { exit }
  on && index($0, kind) { print $1 }'; }
for p in $(runners " peer process"); do
  printf '%s\n' "${rows[@]}" | grep -q "^$p|" || echo "peers_fair: no row for the peer runner $p" >&2
done
mapfile -t nops < <(runners " reference, not a router")
load() { awk '{ print $1 }' /proc/loadavg; }
load0=$(load)

# run_plain PEER COMMAND...: the median of its five runs into $pmed, its
# checksum of one replay into plain_sum[PEER]; a command run once a pass
# (find-my-way and find-my-way-find share theirs)
declare -A plain_a plain_b plain_sum plain_line
run_plain() {
  local peer=$1 line key="$pass|${*:2}"
  shift
  if [ -n "${plain_line[$key]:-}" ]; then
    line=${plain_line[$key]}
  else
    line=$("$@" "$routes" "$requests") || return 1
    plain_line[$key]=$line
  fi
  plain_sum[$peer]=${line##* }
  pmed=$(echo "$line" | awk '{ for (i = 3; i < NF - 1; i++) print $i }' | sort -g | sed -n 3p)
}
pass=before
peers=()
for row in "${rows[@]}"; do
  IFS='|' read -r peer cmd nop what <<<"$row"
  bin=${cmd#node }
  bin=${bin%% *}
  if [ ! -e "$bin" ]; then
    echo "peers_fair: $peer is not built ($bin): bash peers/build.sh" >&2
    continue
  fi
  # shellcheck disable=SC2086
  run_plain "$peer" $cmd || { echo "peers_fair: $cmd failed" >&2; continue; }
  plain_a[$peer]=$pmed
  peers+=("$peer")
done
[ ${#peers[@]} -gt 0 ] || { echo "peers_fair: no runner is built (bash peers/build.sh)" >&2; exit 1; }

pass=after
list=$(printf '%s\n' "${peers[@]}" "${nops[@]}" | paste -sd, -)
"$rb" run --scenarios "$scenario" --routers "$list" --trials "$trials" --min-trial-ms 200 \
  --out "$out" >"$out.log" 2>&1 || { tail -20 "$out.log" >&2; exit 1; }

for row in "${rows[@]}"; do
  IFS='|' read -r peer cmd nop what <<<"$row"
  [ -n "${plain_a[$peer]:-}" ] || continue
  # shellcheck disable=SC2086
  run_plain "$peer" $cmd && plain_b[$peer]=$pmed
done
load1=$(load)

s=$out/summary.json
field() { jq -r --arg r "$1" --arg f "$2" '.scenarios[0].results[] | select(.router == $r) | .[$f] // "-"' "$s"; }
jq -r '"CPU: \(.machine.cpu_model), \(.machine.cores) cores; " +
       "load average \(.machine.loadavg_start) to \(.machine.loadavg_end) during the paired run, " +
       "'"$load0 before the first plain loop, $load1 after the last"'; " +
       "scenario \(.scenarios[0].name), \(.protocol.trials) paired trials of >= \(.protocol.min_trial_ms) ms; " +
       "routebench \(.tool.commit // .tool.build // "")."' "$s"
echo
echo "| peer | timed lookup | plain loop (before; after) | runner | runner / plain | nop runner | same fold |"
echo "|---|---|---:|---:|---:|---:|---|"
for row in "${rows[@]}"; do
  IFS='|' read -r peer cmd nop what <<<"$row"
  [ -n "${plain_b[$peer]:-}" ] || continue
  runner=$(field "$peer" median_ns)
  nopns=$(field "$nop" median_ns)
  sum=$(field "$peer" checksum)
  if [ -z "$runner" ] || [ "$runner" = - ] || [ "$runner" = null ]; then # refused the table
    awk -v p="$peer" -v w="$what" -v s="$scenario" -v n="$nop" -v nn="$nopns" 'BEGIN {
      printf "| %s | %s | - | refused %s | - | %s %s | - |\n", p, w, s, n,
             (nn == "" || nn == "-") ? "-" : sprintf("%.1f", nn)
    }'
    continue
  fi
  # the runner's checksum is hex in summary.json; the plain loop's decimal
  same=$( [ -n "$sum" ] && [ "$sum" != - ] && [ "$((16#${sum#0x}))" = "${plain_sum[$peer]}" ] &&
          echo yes || echo no)
  awk -v p="$peer" -v w="$what" -v a="${plain_a[$peer]}" -v b="${plain_b[$peer]}" -v r="$runner" \
      -v n="$nop" -v nn="$nopns" -v same="$same" 'BEGIN {
    m = (a + b) / 2
    printf "| %s | %s | %.1f (%.1f; %.1f) | %.1f | %.2fx | %s %.1f | %s |\n", p, w, m, a, b, r, r / m, n, nn, same
  }'
done
echo
echo "ns per lookup (medians); \"same fold\": the runner's timed loop folds the same checksum"
echo "as the plain loop (Go, Rust: 1 + the params' count a hit; hono: the routes match returned;"
echo "the other Node runners: 1 a hit), so both ran the same lookups."
echo "Bundle: $out/ (report.md has the paired intervals)."
