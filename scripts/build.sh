#!/usr/bin/env bash
# Configure and build routebench.  BUILD_DIR (default build) and extra CMake
# arguments can be given: scripts/build.sh build-asan -DRB_SANITIZE=ON
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
shift || true
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$dir"
