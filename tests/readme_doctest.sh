#!/usr/bin/env bash
# readme_doctest.sh SOURCE_DIR BUILD_DIR CC "CFLAGS" LIBS... — the README's
# quick-start blocks, run like doctests so they cannot rot.
#
# A block to run is marked by an HTML comment on the line before its fence:
#
#   <!-- doctest -->                       run it; check every output line
#   <!-- doctest: check=2 -->              check only the first 2 output lines
#   <!-- doctest: fast="--trials 3" -->    append these options to every
#                                          `routebench ...` command of the block
#   <!-- doctest: needs=valgrind -->       skip it (saying so) without Valgrind
#                                          or in a sanitized build
#
# A ```sh block runs with bash -e in a fresh temporary directory that looks
# like the source tree to the commands (corpus/ and build/ are links to
# SOURCE_DIR/corpus and BUILD_DIR; build-base/librouters.so is a copy of
# BUILD_DIR's, the merge base of a patch that changes nothing), with
# BUILD_DIR first on PATH, so `routebench` is the binary of this build. A ```c
# block is compiled with CC and CFLAGS against BUILD_DIR/include and LIBS,
# then run. Each must exit 0. The next fenced block after it, when it is a
# plain ``` block, is the output the README shows: its lines (all, or the
# first N with check=N; a line "..." stands for lines left out) must appear,
# in that order, as whole lines of what the block printed (stdout and stderr).
#
# The README shows a full-length `choose` run (9 trials of 100 ms in two
# conditions, 30-60 s); its marker passes fast="--trials 3 --min-trial-ms 5",
# so here it takes a few seconds and only its deterministic first lines are
# checked. The setup commands (scripts/bench.sh, scripts/test.sh) are not
# marked: they build and run this very test.
set -euo pipefail
src=$(cd "$1" && pwd)
bin=$(cd "$2" && pwd)
cc=$3
cflags=$4
shift 4
libs=("$@")
export LC_ALL=C

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Split README.md into blocks: NNN.opts, NNN.lang, NNN.code, NNN.out.
awk -v dir="$work" '
  function fname(ext) { return sprintf("%s/%03d.%s", dir, n, ext) }
  {
    if (state == "code" || state == "out") {
      if ($0 ~ /^```/) {
        close(fname(state))
        state = (state == "code") ? "after" : ""
        next
      }
      print > fname(state)
      next
    }
    if (match($0, /^<!-- doctest(:.*)? -->$/)) {
      n++
      opts = $0; sub(/^<!-- doctest:? */, "", opts); sub(/ *-->$/, "", opts)
      printf "%s\n", opts > fname("opts"); close(fname("opts"))
      state = "marked"
      next
    }
    if (state == "marked" && $0 ~ /^```/) {
      lang = $0; sub(/^```/, "", lang)
      printf "%s\n", lang > fname("lang"); close(fname("lang"))
      printf "" > fname("code")
      state = "code"
      next
    }
    if (state == "after") {
      if ($0 ~ /^```$/) { printf "" > fname("out"); state = "out"; next }
      if ($0 ~ /^```/ || $0 ~ /^#/ || $0 ~ /^<!-- doctest/) { state = "" }
      # blank lines between the block and its output are fine
      if ($0 !~ /^[[:space:]]*$/) state = ""
    }
  }' "$src/README.md"

blocks=$(cd "$work" && ls ./*.code 2>/dev/null | wc -l)
[ "$blocks" -gt 0 ] || { echo "readme_doctest: no <!-- doctest --> block in README.md" >&2; exit 1; }

sanitized=0
case "$cflags" in *-fsanitize*) sanitized=1 ;; esac

# expect_lines EXPECTED ACTUAL: EXPECTED's lines (minus "...") appear in
# ACTUAL, in order, as whole lines (trailing blanks ignored).
expect_lines() {
  awk '
    { sub(/[ \t\r]+$/, "") }
    FNR == NR { if ($0 != "...") want[++w] = $0; next }
    i < w && $0 == want[i + 1] { i++ }
    END {
      if (i < w) { printf "%s\n", want[i + 1] > "/dev/stderr"; exit 1 }
    }' "$1" "$2"
}

failed=0
ran=0
for code in "$work"/*.code; do
  id=${code%.code}
  name="README block $(basename "$id")"
  opts=$(cat "$id.opts")
  lang=$(cat "$id.lang")
  check=
  fast=
  needs=
  [[ $opts =~ check=([0-9]+) ]] && check=${BASH_REMATCH[1]}
  [[ $opts =~ fast=\"([^\"]*)\" ]] && fast=${BASH_REMATCH[1]}
  [[ $opts =~ needs=([a-z]+) ]] && needs=${BASH_REMATCH[1]}
  head -1 "$code" | sed "s/^/$name: /"
  if [ "$needs" = valgrind ]; then
    if ! command -v valgrind >/dev/null || [ "$sanitized" = 1 ]; then
      echo "$name: skipped (needs Valgrind and an unsanitized build)"
      continue
    fi
  fi
  dir=$(mktemp -d "$work/run.XXXXXX")
  ln -s "$src/corpus" "$dir/corpus"
  ln -s "$bin" "$dir/build"
  if [ -f "$bin/librouters.so" ]; then
    mkdir "$dir/build-base"
    cp "$bin/librouters.so" "$dir/build-base/"
  fi
  out=$dir/.printed
  rc=0
  case "$lang" in
    sh)
      # one command a line (continuations joined), the fast options appended
      sed -e ':a' -e '/\\$/N; s/\\\n//; ta' "$code" |
        awk -v fast="$fast" '/^routebench / && fast != "" { $0 = $0 " " fast } { print }' \
        > "$dir/.script"
      (cd "$dir" && PATH="$bin:$PATH" timeout 300 bash -e -o pipefail .script) > "$out" 2>&1 || rc=$?
      ;;
    c)
      cp "$code" "$dir/app.c"
      if ! (cd "$dir" && $cc -std=c11 -Wall -Wextra -Werror $cflags -I"$bin/include" app.c \
              "${libs[@]}" -o app) > "$out" 2>&1; then
        echo "$name: does not compile:" >&2; cat "$out" >&2; failed=$((failed + 1)); continue
      fi
      (cd "$dir" && timeout 60 ./app) > "$out" 2>&1 || rc=$?
      ;;
    *)
      echo "$name: a doctest block must be \`\`\`sh or \`\`\`c, not \`\`\`$lang" >&2
      failed=$((failed + 1)); continue ;;
  esac
  ran=$((ran + 1))
  if [ "$rc" -ne 0 ]; then
    echo "$name: exit status $rc; it printed:" >&2; tail -20 "$out" >&2
    failed=$((failed + 1)); continue
  fi
  if [ -f "$id.out" ]; then
    want=$dir/.want
    if [ -n "$check" ]; then
      grep -vx '\.\.\.' "$id.out" | head -n "$check" > "$want"
    else
      cp "$id.out" "$want"
    fi
    if ! missing=$(expect_lines "$want" "$out" 2>&1); then
      echo "$name: the README shows a line the block did not print (or not in that order):" >&2
      echo "  $missing" >&2
      echo "$name: it printed:" >&2; tail -30 "$out" >&2
      failed=$((failed + 1)); continue
    fi
    echo "$name: ok, exit 0, $(grep -cvx '\.\.\.' "$want") shown lines printed"
  else
    echo "$name: ok, exit 0"
  fi
done
if [ "$failed" -gt 0 ]; then
  echo "readme_doctest: $failed of $blocks README blocks failed" >&2
  exit 1
fi
echo "readme_doctest: ok ($ran of $blocks README blocks run)"
