#!/usr/bin/env bash
# How alike `corpus gen --like` tables are to their source, per growth model:
# for every shipped real table (corpus/data) and the public OpenAPI documents
# shipped beside them (imported with their base path), at 1x, 10x and 100x
# the source's routes (at most 1,000,000), the children of / and the most
# children of one prefix (counted from the routes file), and the distances of
# `corpus compare SOURCE GENERATED` (total variation: 0 the same, 1 disjoint)
# for depth, fanout (children per prefix), kinds, extension_names and their
# mean over every histogram.  Prints a Markdown table.
#   scripts/like_fidelity.sh [--before COMMIT] [FILE.routes|DOC.json|DOC.yaml ...]
# Models: v1 (--generator v1), v2 (the default) of build/routebench, and with
# --before the default model of COMMIT too (built from `git archive` in a
# temporary directory).  Extra files are measured after the shipped ones
# (an OpenAPI document is imported first).  Seed 1 throughout.
# RB_BEFORE_BIN=PATH: the routebench binary of COMMIT, already built.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v jq >/dev/null || bash scripts/setup.sh --results >/dev/null
before=""
if [ "${1:-}" = --before ]; then
  before=$2
  shift 2
fi
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build --target routebench >/dev/null
rb=$PWD/build/routebench
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
models=(v1 v2)
declare -A bin=([v1]="$rb" [v2]="$rb")
declare -A flag=([v1]="--generator v1" [v2]="")
if [ -n "$before" ]; then
  b=${RB_BEFORE_BIN:-}
  if [ -z "$b" ]; then
    mkdir "$tmp/src"
    git archive "$before" | tar -x -C "$tmp/src"
    cmake -S "$tmp/src" -B "$tmp/src/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build "$tmp/src/build" --target routebench >/dev/null
    b=$tmp/src/build/routebench
  fi
  models=(v1 "$before" v2)
  bin[$before]=$b
  flag[$before]=""
fi

sources=()
for t in github discord twilio static parse gplus; do sources+=("corpus/data/$t.routes"); done
sources+=(corpus/data/openapi/discord.openapi.json corpus/data/openapi/twilio_api_v2010.json)
sources+=("$@")

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

echo "| source | routes | model | children of / | most children | depth | fanout | kinds | extension_names | mean |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|"
i=0
for s in "${sources[@]}"; do
  i=$((i + 1))
  name=$(basename "$s")
  src=$s
  case $s in
  *.routes) ;;
  *)
    src=$tmp/import$i.routes
    "$rb" corpus import --openapi "$s" --out "$src" >/dev/null 2>&1
    name="$name (imported)"
    ;;
  esac
  p=$(awk '!/^#/ && NF >= 2' "$src" | wc -l)
  read -r root most < <(fanouts "$src")
  echo "| $name | $p | source | $root | $most | | | | | |"
  for scale in 1 10 100; do
    n=$((p * scale))
    [ "$n" -le 1000000 ] || n=1000000
    for m in "${models[@]}"; do
      out=$tmp/gen
      # shellcheck disable=SC2086
      "${bin[$m]}" corpus gen --like "$src" --routes "$n" --seed 1 --requests 1 \
        ${flag[$m]} --out "$out" >/dev/null 2>&1
      read -r root most < <(fanouts "$out.routes")
      "$rb" corpus compare "$src" "$out.routes" --json |
        jq -r --arg row "| $name | $n | $m | $root | $most |" \
          '.distance | "\($row) \(.depth | .*1000 | round / 1000) | \(.fanout | .*1000 | round / 1000) | \(.kinds | .*1000 | round / 1000) | \(.extension_names | .*1000 | round / 1000) | \(.mean | .*1000 | round / 1000) |"'
    done
  done
done
