#!/usr/bin/env bash
# Install what is missing, build, and run every test (ctest).
#   scripts/test.sh            normal build in build/
#   scripts/test.sh --asan     ASan+UBSan build in build-asan/
#   scripts/test.sh --tsan     ThreadSanitizer build in build-tsan/, the threads test
# Each build directory is configured with the tests ON whatever its cache
# says (a build/ configured with -DRB_TESTS=OFF would otherwise keep stale
# test binaries around), and ctest fails when it finds no test to run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ "${1:-}" = "--tsan" ]; then
  bash scripts/build.sh build-tsan -DRB_TESTS=ON -DRB_WERROR=ON -DRB_TSAN=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
  cd build-tsan
  exec ctest --output-on-failure --no-tests=error -R check_threads
elif [ "${1:-}" = "--asan" ]; then
  bash scripts/build.sh build-asan -DRB_TESTS=ON -DRB_WERROR=ON -DRB_SANITIZE=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo
  cd build-asan
else
  bash scripts/build.sh build -DRB_TESTS=ON -DRB_WERROR=ON
  cd build
fi
ctest --output-on-failure --no-tests=error -j 2
