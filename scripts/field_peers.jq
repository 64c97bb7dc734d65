# field_peers.jq: the peers' agreement table of docs/peers.md (written by
# scripts/field.sh from the field run's summary.json): per peer and shipped
# table, its agreement with linear, or the routes it refuses and why.
def result($s; $r): ($s.results // []) | map(select(.router == $r)) | first;
def refusal($s; $r): ($s.refused // []) | map(select(.router == $r)) | first;
def short: gsub("\n"; " ")
  | (capture("^refuses (?<n>[0-9]+) routes? \\(first: route [0-9]+ (?<why>.*)\\)$") // {n: null, why: .}) as $c
  | (if $c.n then "refuses \($c.n): " else "" end) + $c.why
  | if length > 60 then .[0:60] + "…" else . end | gsub("\\|"; "\\|");
. as $d
| [.scenarios[] | .name] as $sc
| "| peer | " + ($sc | join(" | ")) + " |\n|---|" + ($sc | map("---") | join("|")) + "|\n"
  + ([.routers[] | select(.peer)] | map(. as $r
      | "| \($r.name) | "
        + ($d.scenarios | map(. as $s | result($s; $r.name) as $x
            | if $x != null then
                (($x.disagree_linear // 0) as $k
                 | if $k == 0 then "✓ \($s.requests)/\($s.requests)"
                   else "**\($s.requests - $k)/\($s.requests)**" end)
              else (refusal($s; $r.name) as $f | if $f == null then "–" else ($f.reason | short) end)
              end) | join(" | ")) + " |") | join("\n"))
