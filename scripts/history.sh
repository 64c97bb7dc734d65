#!/usr/bin/env bash
# Instructions per lookup across the project's own commits (docs/ci.md,
# "History"): builds the plugin (librouters.so, nothing else) of each of the
# last N first-parent commits of HEAD, records each with this checkout's
# routebench under --metric instructions, then charts the series with
# `routebench history`.
#
#   scripts/history.sh [--commits N] [--routers LIST] [--scenarios LIST]
#                      [--work DIR] [--chart FILE] [--routebench PATH]
#
#   --commits N       how many commits back from HEAD (default 20)
#   --routers LIST    default hashseg,ctrie,radix
#   --scenarios LIST  default github,discord,params-1000
#   --work DIR        sources, builds and results (default build-history,
#                     inside the checkout and ignored by git); kept, so a
#                     second run rebuilds and records only what is new
#   --chart FILE      where history writes its chart (default
#                     DIR/history.svg)
#   --routebench P    the CLI that records every commit (default
#                     build/routebench: one harness for the whole series)
#   --build-only      build the plugins, record nothing
#
# The commits' sources are checked out one after the other in DIR/src (a
# clone of this repository sharing its objects: the checkout's own
# worktree list is not touched) and built incrementally in DIR/build, so a
# commit that changed one router recompiles one file.  A commit that does
# not build, or whose plugin this routebench cannot load, is listed and
# skipped.  Results: DIR/results/NNN-SHA.json (routebench's summary.json
# document), the input of `routebench history DIR/results`.
set -euo pipefail

commits=20 routers=hashseg,ctrie,radix scenarios=github,discord,params-1000
work="" chart="" rb="" build_only=false
while [ $# -gt 0 ]; do
  case "$1" in
  --commits) commits=$2; shift 2 ;;
  --routers) routers=$2; shift 2 ;;
  --scenarios) scenarios=$2; shift 2 ;;
  --work) work=$2; shift 2 ;;
  --chart) chart=$2; shift 2 ;;
  --routebench) rb=$2; shift 2 ;;
  --build-only) build_only=true; shift ;;
  -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
  *) echo "history.sh: unknown argument $1 (--help lists them)" >&2; exit 2 ;;
  esac
done
root=$(git rev-parse --show-toplevel)
cd "$root"
work=${work:-build-history}
rb=${rb:-build/routebench}
chart=${chart:-$work/history.svg}
$build_only || [ -x "$rb" ] || { echo "history.sh: $rb not built (scripts/build.sh)" >&2; exit 2; }
mkdir -p "$work/lib" "$work/results"
say() { echo "history: $*" >&2; }

src=$work/src
if [ ! -d "$src/.git" ]; then
  git clone -q --shared --no-checkout "$root" "$src"
fi
# the commits, oldest first
mapfile -t shas < <(git rev-list --first-parent -n "$commits" HEAD | tac)
say "${#shas[@]} commits, $(git rev-parse --short=12 "${shas[0]}")..$(git rev-parse --short=12 HEAD)"

skipped=()
i=0
for sha in "${shas[@]}"; do
  i=$((i + 1))
  short=${sha:0:12}
  tag=$(printf '%03d-%s' "$i" "$short")
  lib=$work/lib/$short.so
  if [ ! -f "$lib" ]; then
    git -C "$src" checkout -q --detach "$sha"
    if [ ! -f "$work/build/build.ninja" ]; then
      cmake -S "$src" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRB_TESTS=OFF \
        >"$work/configure.log" 2>&1 || true
    fi
    if cmake --build "$work/build" --target routebench_plugin >"$work/build.log" 2>&1; then
      cp "$work/build/librouters.so" "$lib"
    else
      say "$short does not build (its log: $work/build-$short.log)"
      cp "$work/build.log" "$work/build-$short.log"
      skipped+=("$short (build)")
      continue
    fi
  fi
  out=$work/results/$tag.json
  if $build_only || [ -f "$out" ]; then continue; fi
  specs="" first=""
  IFS=, read -ra rs <<<"$routers"
  for r in "${rs[@]}"; do
    specs+="${specs:+,}$r@$lib"
    first=${first:-$r@$lib}
  done
  say "[$i/${#shas[@]}] $short: $(git log -1 --format=%s "$sha" | cut -c1-60)"
  if ! "$rb" run --metric instructions --routers "$specs" --baseline "$first" \
    --scenarios "$scenarios" --export-json "$out.tmp" >/dev/null 2>"$work/run.log"; then
    say "$short: routebench could not record it ($(tail -1 "$work/run.log"))"
    skipped+=("$short (record)")
    rm -f "$out.tmp"
    continue
  fi
  mv "$out.tmp" "$out"
done
if [ ${#skipped[@]} -gt 0 ]; then say "skipped: ${skipped[*]}"; fi
$build_only && exit 0
"$rb" history "$work/results" --svg "$chart"
