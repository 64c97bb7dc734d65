#!/usr/bin/env bash
# contributor_test.sh SOURCE_DIR — the traps a contributor falls into
# (issue 17):
#   1. a build directory configured with the tests ON, then OFF (the README's
#      two-builds recipe did that to build/), must not let ctest run the
#      stale test binaries: ctest --no-tests=error fails there, and
#      scripts/test.sh configures its build directories with RB_TESTS=ON;
#   2. the README's list of Debian packages is the list scripts/setup.sh
#      installs;
#   3. the README documents what users need and cannot guess: the -nc
#      scenario suffix, ROUTEBENCH_DATA, where the binary is.
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

# 2. README packages == setup.sh packages
setup=$(sed -n '/^packages=(/,/)/p' "$src/scripts/setup.sh" | tr -d '()' | sed 's/packages=//' |
        tr ' ' '\n' | grep -v '^$' | sort)
readme=$(sed -n '/installs only the missing Debian packages (/,/)/p' "$src/README.md" |
         sed 's/.*packages (//; s/).*//' | tr ',\n' '  ' | tr -s ' ' '\n' | grep -v '^$' | sort)
[ -n "$setup" ] || fail "could not read setup.sh's packages"
if [ "$setup" != "$readme" ]; then
  echo "setup.sh: $(echo $setup)" >&2; echo "README:   $(echo $readme)" >&2
  fail "README's package list differs from setup.sh's"
fi

# 3. what the README must say
for needle in 'SHAPE-nc-N' 'ROUTEBENCH_DATA' 'build/routebench'; do
  grep -q -- "$needle" "$src/README.md" || fail "README does not mention $needle"
done
echo "contributor_test: ok"
