# field.jq: the field table (scripts/field.sh) from a run's summary.json:
# every router and peer on every scenario of the run, three tables (median
# ns per lookup; agreement with linear or the refusal; bytes per route).
def scen: [.scenarios[] | .name];
def result($s; $r): ($s.results // []) | map(select(.router == $r)) | first;
def refusal($s; $r): ($s.refused // []) | map(select(.router == $r)) | first;
def cell($s; $r; f):
  result($s; $r) as $x
  | if $x != null then ($x | f)
    else (refusal($s; $r) as $f
          | if $f == null then "–"
            else "refused" end) end;
def ns: if . < 100 then (. * 10 | round / 10 | tostring) else (round | tostring) end;
def agree($n): (.disagree_linear // .disagreements // 0) as $k |
  if $k == 0 then "✓ \($n)/\($n)"
  else "**\($n - $k)/\($n)**" end;
def bpr: if (.memory_bytes // 0) <= 0 then "?" else (.bytes_per_route | round | tostring) end;
def name($d): .name + (if .peer and .reference then " (peer, reference: the loop alone)" elif .peer then " (peer)" else "" end);
def header: "| router | " + (scen | join(" | ")) + " |\n|---|" + (scen | map("---:") | join("|")) + "|";
# A refusal's words: "refuses N: WHY" (the first route's reason), whole.
def why: gsub("\n"; " ")
  | (capture("^refuses (?<n>[0-9]+) routes? \\(first: route [0-9]+ (?<why>.*)\\)$") // {n: null, why: .}) as $c
  | {n: $c.n, text: ((if $c.n then "refuses \($c.n): " else "" end) + $c.why)};
# Reasons longer than a cell keeps are numbered notes under the table,
# never cut: the cell says "refuses N, note k".
def long: 60;
. as $d
| [.routers[] | select(.name as $n | $d.scenarios | any(.results // [] | any(.router == $n))
                       or ($d.scenarios | any(.refused // [] | any(.router == $n))))] as $rs
| [$rs[] as $r | $d.scenarios[] as $s
   | select(result($s; $r.name) == null) | refusal($s; $r.name) | select(. != null)
   | (.reason | why) as $w | select(($w.text | length) > long)
   | {router: $r.name, scenario: $s.name, n: $w.n, text: $w.text}] as $notes
| def note($r; $s): [range(0; $notes | length)
                     | select($notes[.].router == $r and $notes[.].scenario == $s)] | first;
  "Median ns per lookup (`–`: not run; `refused`: the router or peer refuses a route of the table, see the agreement table):\n\n"
  + header + "\n"
  + ($rs | map(. as $r | "| \($r | name($d)) | "
      + ($d.scenarios | map(. as $s | cell($s; $r.name; .median_ns | ns)) | join(" | ")) + " |") | join("\n"))
  + "\n\nAgreement with `linear` on every request (route id, and capture spans where the runner reports them), or the refusal (a long reason is a numbered note under the table):\n\n"
  + header + "\n"
  + ($rs | map(. as $r | "| \($r | name($d)) | "
      + ($d.scenarios | map(. as $s
          | (result($s; $r.name)) as $x
          | if $x != null then ($x | agree($s.requests))
            else (refusal($s; $r.name) as $f | if $f == null then "–"
                  else (note($r.name; $s.name)) as $k
                  | if $k != null then
                      (if $notes[$k].n then "refuses \($notes[$k].n), " else "" end) + "note \($k + 1)"
                    else ($f.reason | why | .text | gsub("\\|"; "\\|")) end end) end)
        | join(" | ")) + " |") | join("\n"))
  + (if ($notes | length) > 0 then "\n\n" + ([range(0; $notes | length) as $k | $notes[$k]
        | "\($k + 1). \(.router) on \(.scenario): \(.text | gsub("\\|"; "\\|"))"] | join("\n"))
     else "" end)
  + "\n\nBytes per route (`?`: the runner does not report its memory):\n\n"
  + header + "\n"
  + ($rs | map(. as $r | "| \($r | name($d)) | "
      + ($d.scenarios | map(. as $s | cell($s; $r.name; bpr)) | join(" | ")) + " |") | join("\n"))
  + "\n"
