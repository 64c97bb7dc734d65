# scripts/targets.jq — the targets of the performance rounds (round 3: the
# distance to the limit; round 2: against radix@3ec0efc, static vs floor,
# scaling, build, memory) as a markdown section, from the summary.json of
# scripts/results.sh's run.
#   jq -r --arg base 'radix@PATH' [--arg metric instructions] -f scripts/targets.jq SUMMARY
# With --arg metric instructions (a run with --metric instructions), the
# lookup targets only, as ratios of instructions per lookup (deterministic).
# Every figure is read from that one run: paired ratios (median over the
# pairs, 95% bootstrap interval) where the target is a ratio, medians where
# it is a time, the run's build times (on the run's clock) and bytes/route.

def sc($n): .scenarios[] | select(.name == $n);
def pair($s; $a; $b): $s.pairs[] | select(.a == $a and .b == $b);
def res($s; $r): $s.results[] | select(.router == $r);
def f2: (. * 100 | round) / 100 | tostring;
def f3: (. * 1000 | round) / 1000 | tostring;
def ns: if . >= 100 then (round | tostring) elif . >= 10 then ((. * 10 | round) / 10 | tostring) else f2 end;
def ms: (. / 1e6) as $m | if $m >= 100 then ($m | round | tostring) + " ms" elif $m >= 1 then ($m | f2) + " ms" else (. / 1e3 | round | tostring) + " us" end;
# the run's per-lookup key (ns, or instructions) and its figure with a unit
def key: ($ARGS.named.metric // "ns");
def med: .["median_" + key];
def fig: if key == "ns" then (ns + " ns") else ((. | round | tostring) + " instr") end;
def yes($c): if $c then "**yes**" else "no" end;
# a ratio's interval: counted ratios are exact (one count, no pairs)
def iv($lo; $hi; f): if key == "ns" then " [\($lo | f), \($hi | f)]" else " (exact)" end;
def wins($p): if key == "ns" then ", \($p.wins)/\($p.n) pairs" else "" end;
# our routers that a user could choose: not the baseline, not references, not peers
def choices($base): [.routers[] | select(.name != $base and (.reference | not) and (.peer | not)) | .name];
# the router with the highest paired speed ratio against the baseline on scenario $n
def best($n; $base): . as $root | (sc($n)) as $s
  | [choices($base)[] as $r | (pair($s; $base; $r) // empty) | {r: $r, p: .}]
  | max_by(.p.median);
def ratio_row($what; $n; $want; $base): (best($n; $base)) as $b
  | "| \($what) | >= \($want)x | \($b.r): **\($b.p.median | f3)x**\(iv($b.p.lo; $b.p.hi; f3))\(wins($b.p)) | \(yes($b.p.median >= $want)) |";
# router $r's distance to the limit on scenario $s: the paired median of
# (r per lookup) / (limit per lookup), with its interval
def to_limit($s; $r): (pair($s; $r; "limit") // null) as $p
  | if $p then {x: $p.median, lo: $p.lo, hi: $p.hi}
    else (pair($s; "limit"; $r) // null) as $q
      | if $q then {x: (1 / $q.median), lo: (1 / $q.hi), hi: (1 / $q.lo)} else null end end;
def limit_row($what; $n; $want; $base): . as $root | (sc($n) // null) as $s
  | if $s == null then "| \($what) | <= \($want)x the limit | not in this run | no |"
    else ([choices($base)[] as $r | (to_limit($s; $r) // empty) | {r: $r} + .] | min_by(.x)) as $b
      | if $b == null then "| \($what) | <= \($want)x the limit | no limit row in this run | no |"
        else "| \($what) | <= \($want)x the limit | \($b.r) \(res($s; $b.r) | med | fig), limit \(res($s; "limit") | med | fig): **\($b.x | f2)x**\(iv($b.lo; $b.hi; f2)) | \(yes($b.x <= $want)) |" end end;
def depth_line($s): $s.depth as $d | ($d | add) as $t
  | [range(0; $d | length) | select($d[.] > 0) | "\(. + 1):\($d[.] * 100 / $t | round)%"] | join(" ");

. as $root
| ($base) as $base
# the fastest on mixed-nc-10000 among the routers that ran mixed-nc-100000
# too (compiled refuses tables that large), for the scaling, build and memory
# rows; not auto, whose lookups are those of the router it chooses (hashseg
# on these tables), so that a tie between the two is not decided by noise
| ([(sc("mixed-nc-100000") // {results: []}).results[].router]) as $big
| ([sc("mixed-nc-10000")] | first) as $s10
| (([choices($base)[] | select(. != "auto") as $r | select($big | index($r)) | ((pair($s10; $base; $r))? // empty)
     | {r: $r, p: .}] | max_by(.p.median) | .r) // "hashseg") as $fast
| if key != "ns" then [
  "### The lookup targets by instructions per lookup (Callgrind)",
  "",
  "The same targets from a second run with `--metric instructions` (scripts/results.sh): instructions per lookup counted by Callgrind are deterministic, so these ratios are exact and free of the machine's noise (they do not see cache misses or branch mispredictions; the times above do).",
  ""
  ] else [
  "## Targets (performance, round 3)",
  "",
  "CPU: \(.machine.cpu_model // "see the table above"). Every ratio is paired within this one run: against **the limit** (an exact match of the scenario's own requested paths, docs/measurement.md) and against **radix as of commit 3ec0efc** (`\($base)`, built from that commit by scripts/results.sh); \"best\" is the router closest to the limit, or with the highest ratio, among the routers one can choose. Times are on the run's clock (\(.protocol.clock_id)).",
  ""] end + [
  "| target | goal | measured (this run) | met? |",
  "|---|---|---|---|",
  limit_row("GitHub table: best router vs the limit"; "github"; 2.0; $base),
  limit_row("Discord table: best router vs the limit"; "discord"; 2.0; $base),
  limit_row("Twilio table: best router vs the limit"; "twilio"; 2.0; $base),
  limit_row("PagerDuty-like table (`corpus gen --like` its profile)"; "pagerduty-like"; 2.0; $base),
  limit_row("`params-10000`: best router vs the limit"; "params-10000"; 2.0; $base),
  ratio_row("GitHub table: best router vs radix@3ec0efc (round 2)"; "github"; 2.0; $base),
  ratio_row("Discord table: best router vs radix@3ec0efc"; "discord"; 2.5; $base),
  ratio_row("`mixed-10000` vs radix@3ec0efc"; "mixed-10000"; 2.5; $base),
  ratio_row("`mixed-nc-10000` vs radix@3ec0efc (round 2)"; "mixed-nc-10000"; 2.5; $base),
  ratio_row("`params-10000` vs radix@3ec0efc"; "params-10000"; 2.5; $base),
  ( ["static-100", "static-1000", "static-10000"][] as $n | (sc($n)) as $s
    | ([choices($base)[] as $r | (pair($s; $r; "floor") // empty) | {r: $r, p: .}] | min_by(.p.median)) as $b
    | "| `\($n)` within 1.15x of `floor` | <= 1.15x | \($b.r) \(res($s; $b.r) | med | fig), floor \(res($s; "floor") | med | fig): **\($b.p.median | f3)x**\(iv($b.p.lo; $b.p.hi; f3)) | \(yes($b.p.median <= 1.15)) |" ),
  ( (sc("mixed-nc-100")) as $a | (sc("mixed-nc-100000")) as $z
    | ((res($z; $fast) | med) / (res($a; $fast) | med)) as $x
    | "| scaling: `mixed-nc-100` -> `mixed-nc-100000` (\($z.generator // "v1") generator) | <= 3x per lookup | \($fast): \(res($a; $fast) | med | fig) -> \(res($z; $fast) | med | fig): **\($x | f2)x**; routes by depth (segments): 100: \(depth_line($a)); 100,000: \(depth_line($z)) | \(yes($x <= 3)) |" ),
  ( select(key == "ns") | (sc("mixed-10000")) as $s | res($s; $fast).build_ns as $t
    | "| build of 10,000 routes (`mixed-10000`), fastest router | <= 3 ms | \($fast): **\($t | ms)** create + load + build (the table parsed once beforehand: \($s.parse_ns | ms)) | \(yes($t <= 3e6)) |" ),
  ( select(key == "ns") | (sc("mixed-1000000")) as $s
    | [$s.results[] | select(.router != $base and (.router as $r | $root.routers[] | select(.name == $r) | .peer | not))] as $rs
    | ($rs | max_by(.build_ns)) as $w
    | "| build of 1,000,000 routes (`mixed-1000000`), every router but linear | <= 1.5 s | \([$rs[] | "\(.router) \(.build_ns | ms)"] | join(", ")); slowest **\($w.router) \($w.build_ns | ms)** (the table parsed once: \($s.parse_ns | ms)) | \(yes($w.build_ns <= 1.5e9)) |" ),
  ( select(key == "ns") | ["static-10000", "params-10000", "mixed-10000", "mixed-nc-10000"] as $ns
    | [$ns[] as $n | (sc($n)) as $s | {n: $n, f: res($s; $fast).bytes_per_route,
        small: ([$s.results[] | select(.router != $base and (.router as $r | $root.routers[] | select(.name == $r) | (.reference or .peer) | not))] | min_by(.bytes_per_route))}] as $m
    | "| memory at 10k: fastest router <= 48 bytes/route, ctrie the smallest | <= 48 B | \($fast): \([$m[] | "\(.n) \(.f | round) B"] | join(", ")); smallest: \([$m[] | "\(.small.router) \(.small.bytes_per_route | round) B"] | join(", ")) | \(yes(([$m[] | .f <= 48] | all) and ([$m[] | .small.router == "ctrie"] | all))) |" ),
  ""
] | .[]
