#!/usr/bin/env bash
# How alike `corpus gen --like` tables are to their source, and whether
# they predict its benchmark.  Sources: every shipped real table
# (corpus/data) and the public OpenAPI documents shipped beside them
# (imported with their base path), then FILE.routes or OpenAPI documents
# given as arguments (an OpenAPI document is imported first).
#
#   scripts/like_fidelity.sh [--before COMMIT] [FILE ...]
#     Shape, per model (v1, v2, v3 of build/routebench, and with --before
#     the default model of COMMIT, built from `git archive` in a temporary
#     directory; RB_BEFORE_BIN=PATH: its routebench, already built): at 1x,
#     10x and 100x the source's routes (at most 1,000,000), the children
#     of / and the most children of one prefix (counted from the routes
#     file), the distances of `corpus compare SOURCE GENERATED` (total
#     variation) for depth, fanout, kinds, extension_names and their mean,
#     and what a person sees: the shared prefix's share of routes, params
#     per route, the share of routes with adjacent params, and the
#     verdict (ok: within tolerance on every figure).  Seed 1.
#
#   scripts/like_fidelity.sh --instructions [FILE ...]
#     Predictive fidelity: Callgrind instructions per lookup (routebench
#     run --metric instructions: exact) of hashseg, radix, ctrie and glob
#     on the source (its requests made by `corpus requests --seed 1`) and
#     on the table generated like it (the default model) at 1x with
#     another seed (2), with the difference, then at 10x and 100x (seed
#     1) beside them.  RB_GEN_BIN=PATH: another routebench makes the
#     like tables (say, an older build, for a before/after).  Every table
#     is Markdown.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null || bash scripts/setup.sh --results >/dev/null
mode=shape
before=""
if [ "${1:-}" = --instructions ]; then
  mode=instructions
  shift
elif [ "${1:-}" = --before ]; then
  before=$2
  shift 2
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target routebench >/dev/null
rb=$PWD/build/routebench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

sources=()
for t in github discord twilio static parse gplus; do sources+=("corpus/data/$t.routes"); done
sources+=(corpus/data/openapi/discord.openapi.json corpus/data/openapi/twilio_api_v2010.json)
sources+=("$@")

# routes file of source $1 (an OpenAPI document imported) into $src, its name into $name
i=0
load_source() {
  i=$((i + 1))
  name=$(basename "$1")
  src=$1
  case $1 in
  *.routes) ;;
  *)
    src=$tmp/import$i.routes
    "$rb" corpus import --openapi "$1" --out "$src" >/dev/null 2>&1
    name="$name (imported)"
    ;;
  esac
  p=$(awk '!/^#/ && NF >= 2' "$src" | wc -l)
}

if [ "$mode" = instructions ]; then
  routers=(hashseg radix ctrie glob)
  # instructions per lookup of each router on routes $1 with requests $2, in router order
  instr() {
    "$rb" run --routers "$(
      IFS=,
      echo "${routers[*]}"
    )" --routes "$1" --requests "$2" --metric instructions --out "$tmp/run" >/dev/null 2>&1
    for r in "${routers[@]}"; do
      jq -r --arg r "$r" '.scenarios[0].results[] | select(.router == $r) | .instructions_per_lookup' \
        "$tmp/run/summary.json"
    done
  }
  echo "| source | routes | router | source | 1x (seed 2) | 1x - source | 10x | 100x |"
  echo "|---|---:|---|---:|---:|---:|---:|---:|"
  for s in "${sources[@]}"; do
    load_source "$s"
    "$rb" corpus requests "$src" --seed 1 --out "$tmp/src.requests" >/dev/null 2>&1
    mapfile -t base < <(instr "$src" "$tmp/src.requests")
    declare -A at=()
    for scale in 1 10 100; do
      n=$((p * scale))
      [ "$n" -le 1000000 ] || n=1000000
      seed=1
      [ "$scale" = 1 ] && seed=2
      "${RB_GEN_BIN:-$rb}" corpus gen --like "$src" --routes "$n" --seed "$seed" --out "$tmp/gen" \
        >/dev/null 2>&1
      mapfile -t got < <(instr "$tmp/gen.routes" "$tmp/gen.requests")
      for k in "${!routers[@]}"; do at[$scale,$k]=${got[$k]}; done
    done
    for k in "${!routers[@]}"; do
      awk -v name="$name" -v p="$p" -v r="${routers[$k]}" -v s="${base[$k]}" -v a="${at[1,$k]}" \
        -v b="${at[10,$k]}" -v c="${at[100,$k]}" 'BEGIN {
          printf "| %s | %d | %s | %.1f | %.1f | %+.1f%% | %.1f | %.1f |\n", name, p, r, s, a,
                 100 * (a - s) / s, b, c }'
    done
  done
  exit 0
fi

models=(v1 v2 v3)
declare -A bin=([v1]="$rb" [v2]="$rb" [v3]="$rb")
declare -A flag=([v1]="--generator v1" [v2]="--generator v2" [v3]="--generator v3")
if [ -n "$before" ]; then
  b=${RB_BEFORE_BIN:-}
  if [ -z "$b" ]; then
    mkdir "$tmp/src"
    git archive "$before" | tar -x -C "$tmp/src"
    cmake -S "$tmp/src" -B "$tmp/src/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$tmp/src/build" --target routebench >/dev/null
    b=$tmp/src/build/routebench
  fi
  models=(v1 "$before" v2 v3)
  bin[$before]=$b
  flag[$before]=""
fi

# children of / and the most children of one prefix, from the routes file
fanouts() {
  awk '!/^#/ && NF >= 2 {
         n = split($2, s, "/"); p = ""
         for (i = 2; i <= n; i++) {
           if (!((p SUBSEP s[i]) in seen)) { seen[p SUBSEP s[i]] = 1; kids[p]++ }
           p = p "/" s[i]
         }
       }
       END { m = 0; for (k in kids) if (kids[k] > m) m = kids[k]; print kids[""] + 0, m }' "$1"
}

# what a person sees, from `corpus compare --json`: B's prefix share,
# params per route, adjacent-param share, and the verdict
seen='.seen | "\(.shared_prefix.b * 1000 | round / 1000) | \(.params_per_route.b * 1000 | round / 1000) | \(.adjacent_params.b * 1000 | round / 1000) | \(if .within_tolerance then "ok" else "not: " + ([to_entries[] | select((.value | type) == "object" and .value.within_tolerance == false) | .key] | join(", ")) end)"'
dist='.distance | "\(.depth * 1000 | round / 1000) | \(.fanout * 1000 | round / 1000) | \(.kinds * 1000 | round / 1000) | \(.extension_names * 1000 | round / 1000) | \(.mean * 1000 | round / 1000)"'

echo "| source | routes | model | children of / | most children | depth | fanout | kinds | extension_names | mean | prefix share | params/route | adjacent | seen |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"
for s in "${sources[@]}"; do
  load_source "$s"
  read -r root most < <(fanouts "$src")
  "$rb" corpus compare "$src" "$src" --json >"$tmp/cmp.json"
  pre=$(jq -r '.seen.a_prefix' "$tmp/cmp.json")
  echo "| $name (prefix ${pre:-none}) | $p | source | $root | $most | | | | | | $(jq -r "$seen" "$tmp/cmp.json") |"
  for scale in 1 10 100; do
    n=$((p * scale))
    [ "$n" -le 1000000 ] || n=1000000
    for m in "${models[@]}"; do
      out=$tmp/gen
      # shellcheck disable=SC2086
      "${bin[$m]}" corpus gen --like "$src" --routes "$n" --seed 1 --requests 1 \
        ${flag[$m]} --out "$out" >/dev/null 2>&1
      read -r root most < <(fanouts "$out.routes")
      "$rb" corpus compare "$src" "$out.routes" --json >"$tmp/cmp.json"
      echo "| $name | $n | $m | $root | $most | $(jq -r "$dist" "$tmp/cmp.json") | $(jq -r "$seen" "$tmp/cmp.json") |"
    done
  done
done
