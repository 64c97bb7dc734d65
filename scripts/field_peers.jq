# field_peers.jq: the peers' agreement table of docs/peers.md (written by
# scripts/field.sh from the field run's summary.json): per peer and shipped
# table, its agreement with linear, or the routes it refuses and why (a
# reason longer than a cell keeps is a numbered note under the table, whole).
def result($s; $r): ($s.results // []) | map(select(.router == $r)) | first;
def refusal($s; $r): ($s.refused // []) | map(select(.router == $r)) | first;
def why: gsub("\n"; " ")
  | (capture("^refuses (?<n>[0-9]+) routes? \\(first: route [0-9]+ (?<why>.*)\\)$") // {n: null, why: .}) as $c
  | {n: $c.n, text: ((if $c.n then "refuses \($c.n): " else "" end) + $c.why)};
def long: 60;
def esc: gsub("\\|"; "\\|");
. as $d
| [.scenarios[] | .name] as $sc
| [.routers[] | select(.peer)] as $ps
| [$ps[] as $r | $d.scenarios[] as $s
   | select(result($s; $r.name) == null) | refusal($s; $r.name) | select(. != null)
   | (.reason | why) as $w | select(($w.text | length) > long)
   | {router: $r.name, scenario: $s.name, n: $w.n, text: $w.text}] as $notes
| def note($r; $s): [range(0; $notes | length)
                     | select($notes[.].router == $r and $notes[.].scenario == $s)] | first;
  "| peer | " + ($sc | join(" | ")) + " |\n|---|" + ($sc | map("---") | join("|")) + "|\n"
  + ($ps | map(. as $r
      | "| \($r.name) | "
        + ($d.scenarios | map(. as $s | result($s; $r.name) as $x
            | if $x != null then
                (($x.disagree_linear // 0) as $k
                 | if $k == 0 then "✓ \($s.requests)/\($s.requests)"
                   else "**\($s.requests - $k)/\($s.requests)**" end)
              else (refusal($s; $r.name) as $f | if $f == null then "–"
                    else (note($r.name; $s.name)) as $k
                    | if $k != null then
                        (if $notes[$k].n then "refuses \($notes[$k].n), " else "" end) + "note \($k + 1)"
                      else ($f.reason | why | .text | esc) end end)
              end) | join(" | ")) + " |") | join("\n"))
  + (if ($notes | length) > 0 then "\n\n" + ([range(0; $notes | length) as $k | $notes[$k]
        | "\($k + 1). \(.router) on \(.scenario): \(.text | esc)"] | join("\n"))
     else "" end)
