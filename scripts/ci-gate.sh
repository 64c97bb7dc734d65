#!/usr/bin/env bash
# The exact regression gate for CI, in a shallow clone (docs/ci.md).
#
#   scripts/ci-gate.sh [--out DIR] BASE_REF [ROUTERS] [SCENARIOS] [THRESHOLD]
#   scripts/ci-gate.sh --saved FILE [ROUTERS] [SCENARIOS] [THRESHOLD]
#   scripts/ci-gate.sh --record FILE [ROUTERS] [SCENARIOS]
#
# BASE_REF  the commit to compare against: a SHA, a branch or tag name, or
#           origin/NAME.  When it is not in the clone (a shallow clone holds
#           only its own commit) just that commit is fetched, with
#           `git fetch --depth=1 origin REF`.
# ROUTERS   comma-separated (default hashseg); each is gated on its own.
# SCENARIOS comma-separated (default github,params-1000).
# THRESHOLD --fail-below: 0.97 or 3% (default 0.97).
#
# options:
#   --saved FILE   compare against FILE, a saved result of the base (written by
#                  --record on the base commit), instead of building the base
#   --record FILE  measure this checkout only and save its result to FILE
#   --out DIR      keep every gate's result bundle under DIR/ROUTER
#
# Everything is built inside the checkout, under build-ci/ (ignored by git):
# build-ci/base-src (the base commit's worktree), build-ci/base (its plugin,
# librouters.so, and nothing else) and build-ci/head (this checkout's
# routebench and plugin: what the gate needs, not the tests, not gbench).
# Builds are incremental, so a second run is quick.  The gate counts
# instructions under Callgrind (--metric instructions): noise cannot move it.
#
# BASE_REF is checked before anything is built or fetched: empty (an unset
# variable), starting with '-' (also after origin/), or neither a hex SHA
# nor a name `git check-ref-format` accepts is a usage error (exit 2).
#
# Exit status: the worst over the routers: 0 every gate passed; 1 a gate
# failed; 2 usage or input error (a results file of another identity
# included: the message names what differs; a base that is no commit
# name); 3 inconclusive; 4 the builds or git failed.
set -euo pipefail

usage() {
  sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit "$1"
}

saved="" record="" out=""
while [ $# -gt 0 ]; do
  case "$1" in
  --saved) saved=${2:?--saved needs a FILE}; shift 2 ;;
  --record) record=${2:?--record needs a FILE}; shift 2 ;;
  --out) out=${2:?--out needs a DIR}; shift 2 ;;
  -h | --help) usage 0 ;;
  --*) echo "ci-gate: unknown option $1 (--help lists them)" >&2; exit 2 ;;
  *) break ;;
  esac
done
if [ -z "$record" ] && [ -z "$saved" ] && [ $# -lt 1 ]; then usage 2 >&2; fi
if [ -n "$record" ] || [ -n "$saved" ]; then base_ref=""; else base_ref=$1; shift; fi
routers=${1:-hashseg}
scenarios=${2:-github,params-1000}
threshold=${3:-0.97}
if [ -n "$record" ] && [ -n "$saved" ]; then
  echo "ci-gate: --record and --saved exclude each other" >&2
  exit 2
fi

# A base that git could take for an option (a branch name such as
# '--upload-pack=CMD' reaches here in CI) or for nothing (an unset
# variable: git would fetch origin's HEAD and pass every patch) is refused.
check_base() {
  local ref=$1 name=${1#origin/}
  if [ -z "$ref" ] || [ -z "$name" ]; then
    echo "ci-gate: the base is empty (an unset variable?): name a commit SHA, a branch or a tag" >&2
    exit 2
  fi
  case $ref/$name in
  -* | */-*)
    echo "ci-gate: the base '$ref' starts with '-': a commit SHA, a branch or a tag, not an option" >&2
    exit 2
    ;;
  esac
  if [[ $ref =~ ^[0-9a-fA-F]{7,64}$ ]]; then return 0; fi
  if ! git check-ref-format --allow-onelevel "$ref"; then
    echo "ci-gate: the base '$ref' is not a commit SHA nor a valid branch or tag name (git check-ref-format)" >&2
    exit 2
  fi
}
if [ -z "$record" ] && [ -z "$saved" ]; then check_base "$base_ref"; fi

root=$(git rev-parse --show-toplevel 2>/dev/null) || {
  echo "ci-gate: not inside a git checkout" >&2
  exit 2
}
cd "$root"
work=build-ci
mkdir -p "$work"
started=$(date +%s)
say() { echo "ci-gate: $*" >&2; }

# Configure (once) and build only the named targets of source dir $1 in $2.
build() {
  local src=$1 dir=$2
  shift 2
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DRB_TESTS=OFF \
      >"$dir.configure.log" 2>&1 || {
      cat "$dir.configure.log" >&2
      return 1
    }
  fi
  cmake --build "$dir" --target "$@" >"$dir.build.log" 2>&1 || {
    tail -40 "$dir.build.log" >&2
    return 1
  }
}

# The commit BASE_REF names, fetching just that commit when it is missing.
resolve_base() {
  local ref=$1 sha
  if sha=$(git rev-parse -q --verify --end-of-options "$ref^{commit}" 2>/dev/null); then
    echo "$sha"
    return 0
  fi
  local remote_ref=${ref#origin/}
  say "fetching $remote_ref from origin (depth 1)"
  git fetch -q --depth=1 --end-of-options origin "$remote_ref" >&2 || {
    say "cannot fetch $remote_ref from origin (a SHA, a branch or a tag of origin)"
    return 1
  }
  git rev-parse -q --verify "FETCH_HEAD^{commit}"
}

# build-ci/base-src at commit $1 (a detached worktree of this repository).
checkout_base() {
  local sha=$1 src=$work/base-src
  if [ -d "$src" ] && [ "$(git -C "$src" rev-parse HEAD 2>/dev/null)" = "$sha" ]; then
    return 0
  fi
  if [ -d "$src" ]; then
    git worktree remove --force "$src" >/dev/null 2>&1 || rm -rf "$src"
    git worktree prune
  fi
  git worktree add -q --detach --end-of-options "$src" "$sha" >&2
}

status_rank() { # severity: I/O 4 > usage 2 > failed 1 > inconclusive 3 > passed 0
  case $1 in 0) echo 0 ;; 3) echo 1 ;; 1) echo 2 ;; 2) echo 3 ;; *) echo 4 ;; esac
}
worst=0
note_status() {
  if [ "$(status_rank "$1")" -gt "$(status_rank "$worst")" ]; then worst=$1; fi
}

say "building this checkout's routebench and librouters.so in $work/head"
build . "$work/head" routebench routebench_plugin || exit 4
rb=$work/head/routebench
head_lib=$work/head/librouters.so

# counted routers of this checkout, each as NAME@LIB
specs() {
  local lib=$1 list="" r
  IFS=, read -ra rs <<<"$routers"
  for r in "${rs[@]}"; do list+="${list:+,}$r@$lib"; done
  echo "$list"
}

if [ -n "$record" ]; then
  first=${routers%%,*}
  "$rb" run --metric instructions --routers "$(specs "$head_lib")" \
    --baseline "$first@$head_lib" --scenarios "$scenarios" --export-json "$record" \
    >/dev/null || exit $?
  say "recorded $(specs "$head_lib") on $scenarios to $record ($(($(date +%s) - started)) s)"
  exit 0
fi

if [ -n "$saved" ]; then
  first=${routers%%,*}
  new=$work/head-result.json
  "$rb" run --metric instructions --routers "$(specs "$head_lib")" \
    --baseline "$first@$head_lib" --scenarios "$scenarios" --export-json "$new" \
    >/dev/null || exit $?
  set +e
  "$rb" compare --fail-below "$threshold" "$saved" "$new"
  worst=$?
  set -e
else
  base=$(resolve_base "$base_ref") || exit 4
  say "base $base_ref = $base"
  checkout_base "$base" || exit 4
  say "building the base's librouters.so only in $work/base"
  build "$work/base-src" "$work/base" routebench_plugin || exit 4
  base_lib=$work/base/librouters.so
  IFS=, read -ra rs <<<"$routers"
  for r in "${rs[@]}"; do
    args=(pair --baseline "$r@$base_lib" --candidate "$r@$head_lib" --scenarios "$scenarios"
      --metric instructions --fail-below "$threshold")
    if [ -n "$out" ]; then args+=(--out "$out/$r"); fi
    set +e
    "$rb" "${args[@]}"
    rc=$?
    set -e
    note_status "$rc"
  done
fi
say "done in $(($(date +%s) - started)) s: exit $worst"
exit "$worst"
