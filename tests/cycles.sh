#!/usr/bin/env bash
# cycles.sh BUILD_DIR [SOURCE_DIR] — no call cycle between the project's
# source files, nor between its folders (docs/design.md, "Layers").
#   cycles.sh --table FILE   the same check on a symbol table of lines
#                            "NODE D SYMBOL" (NODE defines SYMBOL) and
#                            "NODE U SYMBOL" (NODE uses it)
# From the objects of base/, routers/, stats/, corpus/ and bench/ (one per
# source file), `nm` gives the global symbols each defines and uses; file A
# calls file B when A uses a symbol B defines.  A strongly connected
# component of more than one file (Tarjan) is a cycle: each is printed with
# its files, and the check fails.  The folder graph (a file's folder is its
# directory) is checked the same way.  Static functions are invisible to
# nm, so calls inside one file never count.
set -euo pipefail

# check TABLE: prints the cycles of the graph in TABLE, exits 1 if any
check() {
  awk '
    $2 == "D" { def[$3] = $1; node[$1] = 1; next }
    $2 == "U" { use[++nu] = $1 " " $3; node[$1] = 1; next }
    END {
      for (k = 1; k <= nu; k++) {
        split(use[k], p, " ")
        if (!(p[2] in def) || def[p[2]] == p[1]) continue
        e = p[1] SUBSEP def[p[2]]
        if (e in seen) continue
        seen[e] = 1
        adj[p[1], ++deg[p[1]]] = def[p[2]]
      }
      index_ = 0; sp = 0; ncomp = 0
      for (v in node) if (!(v in idx)) connect(v)
      exit ncomp > 0
    }
    function connect(v,    i, w, comp, n) {
      idx[v] = low[v] = ++index_
      stack[++sp] = v; on[v] = 1
      for (i = 1; i <= deg[v]; i++) {
        w = adj[v, i]
        if (!(w in idx)) {
          connect(w)
          if (low[w] < low[v]) low[v] = low[w]
        } else if (on[w] && idx[w] < low[v]) low[v] = idx[w]
      }
      if (low[v] != idx[v]) return
      comp = ""; n = 0
      do {
        w = stack[sp--]; on[w] = 0
        comp = w (n++ ? " " : "") comp
      } while (w != v)
      if (n > 1) { ncomp++; print "cycle (" n " nodes): " comp }
    }' "$1"
}

# check_all TABLE: the file graph, then the folder graph; exits 1 on a cycle
check_all() {
  local fail=0 folders
  folders=$(mktemp)
  awk '{ d = $1; sub(/\/[^\/]*$/, "", d); print d, $2, $3 }' "$1" >"$folders"
  check "$1" || fail=1
  check "$folders" || fail=1
  rm -f "$folders"
  [ $fail -eq 0 ] || { echo "cycles: the calls above go round in a cycle" >&2; return 1; }
}

if [ "${1:-}" = "--table" ]; then
  check_all "$2"
  exit
fi

build=$(cd "${1:?usage: cycles.sh BUILD_DIR [SOURCE_DIR]}" && pwd)
src=$(cd "${2:-$(dirname "$0")/..}" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# one object per source file: CMakeFiles/TARGET.dir/FOLDER/.../NAME.c.o
find "$build/CMakeFiles" -name '*.c.o' | sort | while IFS= read -r o; do
  rel=${o#"$build"/CMakeFiles/*.dir/}
  rel=${rel%.o}
  case "$rel" in base/* | routers/* | stats/* | corpus/* | bench/*) ;; *) continue ;; esac
  [ -f "$src/$rel" ] || continue
  echo "$rel $o"
done | sort -u -k1,1 >"$tmp/objects"
[ -s "$tmp/objects" ] || { echo "cycles: no objects under $build" >&2; exit 1; }
# one nm over all the objects (-A: each line names its object)
cut -d' ' -f2 "$tmp/objects" | xargs nm -g -A | awk -v list="$tmp/objects" '
  BEGIN { while ((getline line < list) > 0) { split(line, p, " "); src[p[2]] = p[1] } }
  { o = $1; sub(/:[^:]*$/, "", o) } # "OBJ:" (undefined) or "OBJ:VALUE"
  !(o in src) { next }
  $2 == "U" { print src[o], "U", $3; next }
  NF == 3 && $2 ~ /^[BDRTVWGS]$/ { print src[o], "D", $3 }' >"$tmp/files"
check_all "$tmp/files"
echo "cycles: ok ($(wc -l <"$tmp/objects") files, $(cut -d' ' -f1 "$tmp/objects" | sed 's|/[^/]*$||' | sort -u | wc -l) folders, no call cycle)"
