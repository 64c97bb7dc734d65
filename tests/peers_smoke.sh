#!/usr/bin/env bash
# peers_smoke.sh ROUTEBENCH SANITIZED MINIMAL_RUNNER — peer runners under
# the counted metric and, when built (scripts/setup.sh --peers), the opt-in
# ones.  Unsanitized and with valgrind: the minimal C runner, counted twice
# under --metric instructions, gives the same count (an exact A/A).  Then
# matchit (Rust) and one Go runner each give linear's answer on every GitHub
# request, spans included, in one paired run; every built runner's timed
# loop folds its router's own answer (the count EXPECTED gives), as
# matchit's and echo's plain loops do; and matchit counted twice gives the
# same count.  Exit 77 (skipped) when nothing could run.
set -uo pipefail
exe=$1 sanitized=${2:-0} minimal=${3:-}
cd "$(dirname "$0")/.."
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
counted=0
if [ "$sanitized" != 1 ] && command -v valgrind >/dev/null && [ -x "$minimal" ]; then
  if ! "$exe" pair --peer a="$minimal" --peer b="$minimal" --a a --b b --metric instructions \
       --scenarios gplus --fail-below 1 --out "$out/min" >"$out/min.txt" 2>&1 ||
     ! grep -qE "^  gplus +1\.000 exact" "$out/min.txt"; then
    cat "$out/min.txt"; echo "peers_smoke: the minimal runner's counted A/A is not exact"; exit 1
  fi
  echo "peers_smoke: the minimal runner counted twice on gplus: the same instructions"
  counted=1
fi
peers=()
for p in matchit echo; do
  if "$exe" list | grep -qE "^  $p +peer process"; then peers+=("$p"); fi
done
if [ ${#peers[@]} -eq 0 ]; then
  echo "peers_smoke: no opt-in peer runner built (scripts/setup.sh --peers): not run"
  [ "$counted" = 1 ] && exit 0
  exit 77
fi
list=$(IFS=,; echo "${peers[*]}")
if ! "$exe" run --routers "linear,$list" --baseline linear --scenarios github \
     --trials 1 --warmup 0 --min-trial-ms 5 --verbose --out "$out/run" >"$out/run.txt" 2>&1; then
  cat "$out/run.txt"; echo "peers_smoke: run failed"; exit 1
fi
for p in "${peers[@]}"; do
  want="peer $p (its own process and timing loop): agrees with EXPECTED on 4096/4096, with linear on 4096/4096 (capture spans compared)"
  if ! grep -qF "$want" "$out/run.txt"; then
    cat "$out/run.txt"; echo "peers_smoke: $p did not agree with linear on every request"; exit 1
  fi
  echo "peers_smoke: $p agrees with linear on 4096/4096 GitHub requests, spans included"
done
# every built peer runner's timed loop is bare: it folds its router's own
# answer, not ours, and says so ("fold"), so its checksum is one replay's
# fold.  The expected folds come from the requests file's EXPECTED column
# and the routes file, not from a runner: Go and Rust count 1 + the route's
# params per hit, Node 1 per hit (hono: per route matched, one on GitHub).
all=$("$exe" list | awk '/^peer runners/ { on = 1; next } on && /^$/ { exit }
  on && / peer process/ { print $1 }' | paste -sd, -)
if [ -n "$all" ]; then
  read -r hits folded < <(awk 'NR == FNR { if ($0 !~ /^#/ && NF) { n = 0; k = split($2, s, "/")
      for (i = 1; i <= k; i++) if (s[i] ~ /^[:*{]/) n++; params[r++] = n }; next }
    !/^#/ && NF && $NF >= 0 { h++; f += 1 + params[$NF] } END { print h, f }' \
    corpus/data/github.routes corpus/data/github.requests)
  if ! "$exe" run --routers "$all" --scenarios github --trials 1 --warmup 0 --min-trial-ms 5 \
       --verbose --out "$out/fold" >"$out/fold.txt" 2>&1; then
    cat "$out/fold.txt"; echo "peers_smoke: the peer runners' run failed"; exit 1
  fi
  for p in ${all//,/ }; do
    case $p in find-my-way* | hono* | rou3 | memoirist) want=$hits ;; *) want=$folded ;; esac
    got=$(awk -v p="$p" '$1 == "checksum" && $3 == p { print $2; exit }' "$out/fold.txt")
    if [ -z "$got" ] || [ "$((16#$got))" != "$want" ]; then
      cat "$out/fold.txt"
      echo "peers_smoke: $p's timed loop folds ${got:-nothing}, not $want (its router's own answer)"
      exit 1
    fi
  done
  echo "peers_smoke: every built peer runner ($all) folds its router's own answer on GitHub"
  # the plain loops scripts/peers_fair.sh holds them to fold the same
  for p in "${peers[@]}"; do
    line=$(peers/bin/"$p" plain corpus/data/github.routes corpus/data/github.requests 2>&1 </dev/null)
    if [[ "$line" != "plain $p "*" checksum $folded" ]]; then
      echo "$line"; echo "peers_smoke: $p's plain loop does not fold $folded"; exit 1
    fi
  done
  echo "peers_smoke: the plain loops of ${peers[*]} fold the same on GitHub"
fi
# gin's lookup panics on the Discord document's table (its tree): the runner
# refuses the table in one line, and no stack trace reaches the terminal
if "$exe" list | grep -qE "^  gin +peer process"; then
  "$exe" choose --openapi corpus/data/openapi/discord.openapi.json --routers radix,gin \
    --trials 1 --warmup 0 --min-trial-ms 5 >"$out/gin.txt" 2>"$out/gin.err"
  if ! grep -qE "gin refused it: refuses 1 route \(first: route [0-9]+ gin panics looking up" \
       "$out/gin.txt" || grep -q "goroutine" "$out/gin.txt" "$out/gin.err"; then
    cat "$out/gin.txt" "$out/gin.err"; echo "peers_smoke: gin's panic is not one refusal line"; exit 1
  fi
  echo "peers_smoke: gin refuses the Discord document's table in one line (its lookup panics)"
fi
if [ "$sanitized" = 1 ] || ! command -v valgrind >/dev/null || [[ " ${peers[*]} " != *" matchit "* ]]; then
  echo "peers_smoke: the counted A/A needs an unsanitized build, valgrind and matchit: not run"
  exit 0
fi
if ! "$exe" pair --peer a=peers/bin/matchit --peer b=peers/bin/matchit --a a --b b \
     --metric instructions --scenarios gplus --fail-below 1 --out "$out/pair" >"$out/pair.txt" 2>&1; then
  cat "$out/pair.txt"; echo "peers_smoke: matchit's counted A/A is not exact"; exit 1
fi
grep -qE "^  gplus +1\.000 exact" "$out/pair.txt" || { cat "$out/pair.txt"; exit 1; }
echo "peers_smoke: matchit counted twice on gplus: the same instructions (ratio 1.000 exact)"
