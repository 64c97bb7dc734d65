#!/usr/bin/env bash
# What the C of `routebench compile` costs a compiler: for tables of 1,000,
# 10,000 and 20,000 routes (mixed, seed 42), a 10,000-route table like
# GitHub's, 10,000 siblings with children (20,000 routes) and 3 routes of
# depth 30,000, the generated C's size and `cc -O2 -c`'s wall and CPU time
# (user + system) and peak memory (GNU time), as a markdown section for
# RESULTS.md; the budget (docs/compile.md): 10,000 routes in <= 5 s and
# <= 200 MB, 20,000 in twice that (linear), judged on the CPU time, which
# other jobs on the machine disturb less than the wall time.
#   scripts/compile-cost.sh [WORKDIR]     (default build/compile-cost; needs build/routebench)
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build/compile-cost}
rb=./build/routebench
cc=${CC:-cc}
mkdir -p "$dir"
$rb corpus gen --shape mixed --routes 1000 --seed 42 --out "$dir/mixed-1000" >/dev/null
$rb corpus gen --shape mixed --routes 10000 --seed 42 --out "$dir/mixed-10000" >/dev/null
$rb corpus gen --shape mixed --routes 20000 --seed 42 --out "$dir/mixed-20000" >/dev/null
$rb corpus gen --like corpus/data/github.routes --routes 10000 --seed 42 \
  --out "$dir/github-like-10000" >/dev/null
awk 'BEGIN { for (i = 0; i < 10000; i++) printf "GET /s/seg%d\nGET /s/seg%d/:x\n", i, i }' \
  > "$dir/siblings-20000.routes"
awk 'BEGIN { for (k = 0; k < 3; k++) { printf "GET "; for (i = 0; i < 30000; i++) printf "/a";
             printf "/x%d\n", k } }' > "$dir/deep-3.routes"
echo "### The generated router's compile cost (\`routebench compile\`, then \`$cc -O2 -c\`)"
echo
echo "CPU: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); $($cc --version | head -1)."
echo "Budget (docs/compile.md): a 10,000-route table in <= 5 s and <= 200 MB; cost linear in the table."
echo
echo "| table | routes | C bytes | compile: wall time | CPU time | peak memory | within the budget? |"
echo "|---|---:|---:|---:|---:|---:|---|"
for t in mixed-1000 mixed-10000 github-like-10000 mixed-20000 siblings-20000 deep-3; do
  $rb compile --routes "$dir/$t.routes" -o "$dir/$t.c" >/dev/null 2>&1
  routes=$(grep -cv '^#' "$dir/$t.routes")
  bytes=$(wc -c < "$dir/$t.c")
  /usr/bin/time -f "%e %U %S %M" -o "$dir/$t.time" "$cc" -O2 -c "$dir/$t.c" -o "$dir/$t.o"
  read -r wall user sys kb < "$dir/$t.time"
  cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
  ok=$(awk -v s="$cpu" -v k="$kb" -v n="$routes" \
       'BEGIN { b = n > 10000 ? n / 10000 : 1; print (s <= 5 * b && k <= 200 * 1024 * b) ? "**yes**" : "no" }')
  echo "| $t | $routes | $bytes | $wall s | $cpu s | $((kb / 1024)) MB | $ok |"
done
echo
