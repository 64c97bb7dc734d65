#!/usr/bin/env bash
# quiet_test.sh — scripts/results.sh and scripts/field.sh publish only what a
# quiet machine measured (scripts/quiet.sh): a planted high load reading
# makes both refuse before they run anything, naming the load; a planted
# summary.json whose load or disturbed trials are over the limit is
# refused after the run, naming each figure, and --force stamps the page.
set -uo pipefail
src=${1:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check NAME STATUS WANT-STATUS OUTPUT TEXT-IT-MUST-HOLD
  if [ "$2" -ne "$3" ]; then
    echo "FAIL $1: status $2, expected $3: $4"; fail=1
  elif [[ $4 != *"$5"* ]]; then
    echo "FAIL $1: output lacks '$5': $4"; fail=1
  else
    echo "ok   $1"
  fi
}
cores=$(getconf _NPROCESSORS_ONLN)
busy=$(awk -v c="$cores" 'BEGIN { printf "%g", c * 2.25 }')   # three times the limit of 0.75 a core
quiet=$(awk -v c="$cores" 'BEGIN { printf "%g", c * 0.5 }')
echo "$busy 1.00 1.00 2/300 4242" >"$tmp/busy"
echo "$quiet 1.00 1.00 2/300 4242" >"$tmp/quiet"

# a busy machine before the run: both scripts stop at once (nothing is run or written)
for s in results field; do
  before=$(cd "$src" && git status --porcelain docs 2>/dev/null)
  out=$(ROUTEBENCH_LOADAVG="$tmp/busy" bash "$src/scripts/$s.sh" 2>&1)
  check "$s.sh refuses load $busy" $? 1 "$out" "load average $busy is over"
  after=$(cd "$src" && git status --porcelain docs 2>/dev/null)
  [ "$before" = "$after" ] || { echo "FAIL $s.sh changed docs/ while refusing"; fail=1; }
done

# the checks themselves, on planted readings and summaries
. "$src/scripts/quiet.sh"
limit=$(quiet_limit)
out=$(ROUTEBENCH_LOADAVG="$tmp/quiet" quiet_before t 0 2>&1)
check "a quiet load passes" $? 0 "$out" ""
out=$(ROUTEBENCH_LOADAVG="$tmp/busy" quiet_before t 1 2>&1)
check "--force measures anyway" $? 0 "$out" "measuring anyway"

summary() { # summary LOAD-START LOAD-END DISTURBED TRIALS
  printf '{"machine":{"loadavg_start":%s,"loadavg_end":%s},"scenarios":[{"results":[{"trials":%s,"disturbed_trials":%s},{"trials":%s,"disturbed_trials":0}]}]}\n' \
    "$1" "$2" "$4" "$3" "$4" >"$tmp/summary.json"
}
summary "$quiet" "$quiet" 1 15  # 1 of 30 trials disturbed: 3.3%
out=$( (quiet_after t 0 "$tmp/summary.json") 2>&1)
check "a quiet run is published, unstamped" $? 0 "$out" ""
[ -z "$out" ] || { echo "FAIL a quiet run printed: $out"; fail=1; }
summary "$quiet" "$busy" 0 15
out=$( (quiet_after t 0 "$tmp/summary.json") 2>&1)
check "a busy end is refused" $? 1 "$out" "load average $busy at the end of the run (limit $limit)"
summary "$busy" "$quiet" 0 15
out=$( (quiet_after t 0 "$tmp/summary.json") 2>&1)
check "a busy start is refused" $? 1 "$out" "load average $busy at the start of the run"
summary "$quiet" "$quiet" 2 15  # 2 of 30: 6.7%
out=$( (quiet_after t 0 "$tmp/summary.json") 2>&1)
check "6.7% disturbed trials are refused" $? 1 "$out" "2 of 30 trials disturbed (6.7%, limit 5%)"
out=$( (quiet_after t 1 "$tmp/summary.json") 2>/dev/null)
check "--force stamps the page" $? 0 "$out" "**Measured on a busy machine**"
[[ $out == *"2 of 30 trials disturbed"* ]] || { echo "FAIL the stamp does not name the figure: $out"; fail=1; }
exit $fail
