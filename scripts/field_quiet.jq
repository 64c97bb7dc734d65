# field_quiet.jq: why a run's summary.json may not be published (scripts/quiet.sh):
# one line per figure over its limit, nothing when the machine was quiet.
#   jq -r --argjson limit 1.5 -f scripts/field_quiet.jq build/field/summary.json
# $limit is the load average allowed (1.5 per 2 cores, scaled by the cores);
# a run in which more than 5% of the trials were disturbed (the thread lost
# the CPU: bench/measure/harness.h) is refused too.
def trials: [.scenarios[] | (.results // [])[] | .trials // 0] | add // 0;
def disturbed: [.scenarios[] | (.results // [])[] | .disturbed_trials // 0] | add // 0;
(.machine.loadavg_start // null) as $s
| (.machine.loadavg_end // null) as $e
| (trials) as $n
| (disturbed) as $d
| (if $s != null and $s > $limit then "load average \($s) at the start of the run (limit \($limit))" else empty end),
  (if $e != null and $e > $limit then "load average \($e) at the end of the run (limit \($limit))" else empty end),
  (if $n > 0 and $d * 20 > $n then "\($d) of \($n) trials disturbed (\($d * 1000 / $n | round / 10)%, limit 5%)" else empty end)
