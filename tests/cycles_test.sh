#!/usr/bin/env bash
# cycles_test.sh — tests/cycles.sh fails on a planted call cycle, between
# files and between folders, and passes a graph without one (synthetic
# symbol tables: "NODE D SYMBOL" defines, "NODE U SYMBOL" uses).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
expect() { # expect STATUS NAME TABLE-TEXT [TEXT-THE-OUTPUT-MUST-HOLD]
  printf '%s\n' "$3" >"$tmp/table"
  out=$(bash "$here/cycles.sh" --table "$tmp/table" 2>&1)
  status=$?
  if [ $status -ne "$1" ]; then
    echo "FAIL $2: status $status, expected $1: $out"; fail=1
  elif [ -n "${4:-}" ] && [[ $out != *"$4"* ]]; then
    echo "FAIL $2: output lacks '$4': $out"; fail=1
  else
    echo "ok   $2"
  fi
}
# a chain and a diamond, calls within a file and to libc: no cycle
expect 0 "no cycle" "a/top.c U mid
a/top.c U leaf
a/top.c U malloc
a/top.c D top
a/mid.c D mid
a/mid.c U leaf
a/mid.c U mid2
a/mid.c D mid2
b/leaf.c D leaf"
# three files calling round: report_md -> chart_svg -> format -> report_md
expect 1 "file cycle" "x/report_md.c D md
x/report_md.c U chart
x/chart_svg.c D chart
x/chart_svg.c U fmt
x/format.c D fmt
x/format.c U md
x/leaf.c D leaf" "cycle (3 nodes): "
# no file cycle, but folder x calls y and y calls x
expect 1 "folder cycle" "x/a.c D a
x/a.c U b
y/b.c D b
y/c.c D c
y/c.c U d
x/d.c D d" "cycle (2 nodes): "
# two files calling each other directly
expect 1 "two-file cycle" "r/router.c D add
r/router.c U dup
r/route_set.c D dup
r/route_set.c U add" "r/router.c"
exit $fail
