#!/usr/bin/env bash
# contributor_test.sh SOURCE_DIR — the traps a contributor falls into:
#   1. a build directory configured with the tests ON, then OFF (a
#      two-builds CI recipe once did that to build/), must not let ctest run the
#      stale test binaries: ctest --no-tests=error fails there, and
#      scripts/test.sh configures its build directories with RB_TESTS=ON;
#   2. docs/setup.md's list of Debian packages is the list scripts/setup.sh
#      installs;
#   3. the docs say what users need and cannot guess: where the binary is
#      (README.md), the -nc scenario suffix and ROUTEBENCH_DATA (docs/cli.md).
set -euo pipefail
src=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "contributor_test: FAIL: $*" >&2; exit 1; }

# 1. configure only (no compiling): tests ON, then OFF
cmake -S "$src" -B "$tmp/b" -G Ninja -DRB_TESTS=ON >/dev/null
[ -f "$tmp/b/CTestTestfile.cmake" ] || fail "no CTestTestfile.cmake with the tests ON"
cmake -S "$src" -B "$tmp/b" -G Ninja -DRB_TESTS=OFF >/dev/null
listed=$(cd "$tmp/b" && ctest -N | sed -n 's/^Total Tests: //p')
[ "$listed" = "0" ] || fail "ctest still lists $listed tests in a build directory whose tests are OFF"
if (cd "$tmp/b" && ctest --no-tests=error >/dev/null 2>&1); then
  fail "ctest --no-tests=error passed with no tests"
fi
[ "$(grep -c -- '-DRB_TESTS=ON' "$src/scripts/test.sh")" -ge 3 ] ||
  fail "test.sh does not configure each of its three builds with RB_TESTS=ON"
[ "$(grep -c -- '--no-tests=error' "$src/scripts/test.sh")" -ge 2 ] ||
  fail "test.sh's ctest calls do not fail on no tests"

# 2. docs/setup.md's packages == setup.sh packages
setup=$(sed -n '/^packages=(/,/)/p' "$src/scripts/setup.sh" | tr -d '()' | sed 's/packages=//' |
        tr ' ' '\n' | grep -v '^$' | sort)
readme=$(sed -n '/installs only the missing Debian packages (/,/)/p' "$src/docs/setup.md" |
         sed 's/.*packages (//; s/).*//' | tr ',\n' '  ' | tr -s ' ' '\n' | grep -v '^$' | sort)
[ -n "$setup" ] || fail "could not read setup.sh's packages"
if [ "$setup" != "$readme" ]; then
  echo "setup.sh:      $(echo $setup)" >&2; echo "docs/setup.md: $(echo $readme)" >&2
  fail "docs/setup.md's package list differs from setup.sh's"
fi

# 3. what the docs must say
grep -q -- 'build/routebench' "$src/README.md" || fail "README.md does not say where the binary is"
for needle in 'SHAPE-nc-N' 'ROUTEBENCH_DATA'; do
  grep -q -- "$needle" "$src/docs/cli.md" || fail "docs/cli.md does not mention $needle"
done
echo "contributor_test: ok"
