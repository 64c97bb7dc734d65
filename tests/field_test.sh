#!/usr/bin/env bash
# field_test.sh — the field page's tables (scripts/field.jq) and the peers'
# agreement table (scripts/field_peers.jq) never cut a refusal's reason: a
# reason longer than a cell keeps becomes a numbered note under the table,
# whole, and the cell names its note.  Rendered from a planted summary.json.
set -uo pipefail
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
command -v jq >/dev/null || { echo "jq is not installed (scripts/setup.sh --results): skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
long="httprouter refuses /applications/:p1: wildcard route ':p1' conflicts with existing children in path '/applications/:p1' | end"
cat >"$tmp/summary.json" <<JSON
{"routers": [{"name": "radix"}, {"name": "gin", "peer": true}, {"name": "httprouter", "peer": true}],
 "scenarios": [{"name": "discord", "requests": 10,
   "results": [{"router": "radix", "median_ns": 20, "memory_bytes": 100, "bytes_per_route": 5},
               {"router": "gin", "median_ns": 30, "memory_bytes": 100, "bytes_per_route": 5}],
   "refused": [{"router": "httprouter", "reason": "refuses 80 routes (first: route 2 $long)"}]},
  {"name": "semantics", "requests": 10,
   "results": [{"router": "radix", "median_ns": 20, "memory_bytes": 100, "bytes_per_route": 5}],
   "refused": [{"router": "gin", "reason": "globs are not supported by gin"},
               {"router": "httprouter", "reason": "globs are not supported by httprouter"}]}]}
JSON
fail=0
for f in field field_peers; do
  out=$(jq -r -f "$src/scripts/$f.jq" "$tmp/summary.json") || { echo "FAIL $f.jq: jq failed"; fail=1; continue; }
  [[ $out != *"…"* && $out != *"..."* ]] || { echo "FAIL $f.jq cuts a reason: $out"; fail=1; }
  [[ $out == *"| refuses 80, note 1 |"* ]] || { echo "FAIL $f.jq: the cell does not name its note: $out"; fail=1; }
  [[ $out == *"1. httprouter on discord: refuses 80: ${long//|/\\|}"* ]] ||
    { echo "FAIL $f.jq: the note is not the whole reason: $out"; fail=1; }
  [[ $out == *"| globs are not supported by gin |"* || $out == *"| refuses"*"globs are not supported by gin"* ||
     $out == *"globs are not supported by gin |"* ]] || { echo "FAIL $f.jq: a short reason is not in its cell: $out"; fail=1; }
  [[ $out != *"2. "* ]] || { echo "FAIL $f.jq: a short reason became a note: $out"; fail=1; }
  [ $fail = 1 ] || echo "ok   $f.jq"
done
exit $fail
