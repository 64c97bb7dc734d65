#!/usr/bin/env bash
# scripts/ci-gate.sh as hosted CI runs it: in a `--depth 1` clone (file://)
# of this repository, with only the clone's own commit present.
#   1. the base is a commit whose routers/ and base/ equal HEAD's (the
#      nearest ancestor, else HEAD itself): it is fetched alone
#      (depth 1), built inside the clone, and the gate passes (exit 0);
#      only the base's plugin is built there, gbench and the tests nowhere;
#   2. hashseg's lookup gets 40 extra instructions (a planted slowdown of
#      about 8%): the same gate fails (exit 1);
#   3. a saved result of the base (--record) against the slowed checkout
#      with compare: fails too (exit 1), without building the base again;
#   4. a base that cannot be fetched: exit 4 with a message; a threshold of
#      97: exit 2, suggesting 0.97.
#   0. first, hostile bases as a pull request's branch name or an unset
#      variable would give them: each exits 2 with its reason before
#      anything is built or fetched, and no command hidden in one runs
#      (--bases-only stops after these: quick, no Valgrind needed).
# Skipped (77) outside a git checkout or without Valgrind.
#   tests/ci_gate_test.sh SOURCE_DIR [--bases-only]
set -euo pipefail
src=$(cd "${1:?source dir}" && pwd)
bases_only=${2:-}
git -C "$src" rev-parse HEAD >/dev/null 2>&1 || { echo "not a git checkout: skipped"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rb-ci-gate.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

head=$(git -C "$src" rev-parse HEAD)
base=$head
# the nearest ancestor with the same router code, when the history is there
for c in $(git -C "$src" rev-list --max-count=30 "$head" 2>/dev/null | tail -n +2); do
  if git -C "$src" diff --quiet "$c" "$head" -- routers base; then base=$c; break; fi
done
echo "head $head, base $base"

git clone -q --depth 1 "file://$src" "$tmp/clone"
cd "$tmp/clone"

# 0. hostile bases: exit 2 with the reason, nothing built, nothing run
pwned=$tmp/pwned
hostile=("origin/--upload-pack=touch $pwned" "--upload-pack=touch $pwned" "" "-q" "origin/"
  "origin/-q" "main..HEAD" "a b" "HEAD~1:x" "refs/heads/.lock" "bad\\name")
reasons=("starts with '-'" "unknown option" "empty" "starts with '-'" "empty" "starts with '-'"
  "not a commit SHA" "not a commit SHA" "not a commit SHA" "not a commit SHA" "not a commit SHA")
for i in "${!hostile[@]}"; do
  set +e
  bash scripts/ci-gate.sh "${hostile[$i]}" >"$tmp/hostile.out" 2>&1
  rc=$?
  set -e
  [ $rc -eq 2 ] || fail "base '${hostile[$i]}': exit $rc, expected 2: $(cat "$tmp/hostile.out")"
  grep -q -- "${reasons[$i]}" "$tmp/hostile.out" ||
    fail "base '${hostile[$i]}': no '${reasons[$i]}' in: $(cat "$tmp/hostile.out")"
  [ ! -e "$pwned" ] || fail "base '${hostile[$i]}' ran a command"
  [ ! -e build-ci/head ] || fail "base '${hostile[$i]}': something was built before the base was checked"
done
echo "hostile bases: each refused with exit 2"
if [ "$bases_only" = --bases-only ]; then exit 0; fi
command -v valgrind >/dev/null || { echo "no valgrind: skipped"; exit 77; }
[ "$(git rev-parse --is-shallow-repository)" = true ] || fail "the clone is not shallow"
if [ "$base" != "$head" ] && git rev-parse -q --verify "$base^{commit}" >/dev/null; then
  fail "the base is already in the clone: nothing would be fetched"
fi

start=$(date +%s)
set +e
bash scripts/ci-gate.sh "$base" hashseg github,params-1000 0.97 >"$tmp/pass.out" 2>&1
rc=$?
set -e
cat "$tmp/pass.out"
[ $rc -eq 0 ] || fail "unchanged router code: exit $rc, expected 0"
grep -q "passed" "$tmp/pass.out" || fail "no 'passed' in the output"
[ -f build-ci/base/librouters.so ] || fail "the base's plugin is not in build-ci/base"
[ ! -e build-ci/base/routebench ] || fail "the base's routebench was built (only its plugin is needed)"
[ ! -e build-ci/head/routebench-gbench ] || fail "gbench was built"
[ ! -e ../base ] || fail "../base written outside the checkout"
[ -z "$(git status --porcelain)" ] || fail "the checkout is dirty after the gate: $(git status --porcelain)"
echo "pass case: $(($(date +%s) - start)) s"

# a saved result of the base, taken before the slowdown (this is HEAD's
# router code, the same as the base's)
bash scripts/ci-gate.sh --record "$tmp/base.json" hashseg github,params-1000 >/dev/null 2>&1 ||
  fail "--record failed"

# the planted slowdown: 40 nops at the top of hashseg's lookup
awk '/^static int hashseg_lookup\(/ { f = 1 } f && /^\{$/ { print; print "    __asm__ volatile(\".rept 40\\n\\tnop\\n\\t.endr\" ::: \"memory\");"; f = 0; next } { print }' \
  routers/hashseg.c >"$tmp/hashseg.c"
cmp -s routers/hashseg.c "$tmp/hashseg.c" && fail "could not plant the slowdown in routers/hashseg.c"
cp "$tmp/hashseg.c" routers/hashseg.c
start=$(date +%s)
set +e
bash scripts/ci-gate.sh "$base" hashseg github,params-1000 3% >"$tmp/fail.out" 2>&1
rc=$?
set -e
cat "$tmp/fail.out"
[ $rc -eq 1 ] || fail "planted slowdown: exit $rc, expected 1"
grep -q "FAILED" "$tmp/fail.out" || fail "no FAILED in the output"
grep -q "candidate is [0-9.]*% slower than baseline" "$tmp/fail.out" ||
  fail "the words 'candidate is X% slower than baseline' are missing"
echo "fail case: $(($(date +%s) - start)) s"

set +e
bash scripts/ci-gate.sh --saved "$tmp/base.json" hashseg github,params-1000 0.97 >"$tmp/saved.out" 2>&1
rc=$?
set -e
cat "$tmp/saved.out"
[ $rc -eq 1 ] || fail "saved result against the slowdown: exit $rc, expected 1"
grep -q "FAILED" "$tmp/saved.out" || fail "no FAILED in compare's output"

set +e
bash scripts/ci-gate.sh 0000000000000000000000000000000000000001 >"$tmp/nobase.out" 2>&1
rc=$?
bash scripts/ci-gate.sh "$base" hashseg github 97 >"$tmp/ninety.out" 2>&1
rc97=$?
set -e
[ $rc -eq 4 ] || fail "a base that cannot be fetched: exit $rc, expected 4"
grep -q "cannot fetch" "$tmp/nobase.out" || fail "no 'cannot fetch' message"
[ $rc97 -eq 2 ] || fail "threshold 97: exit $rc97, expected 2"
grep -q "0.97" "$tmp/ninety.out" || fail "threshold 97: no hint of 0.97"
echo "ok"
