#!/usr/bin/env bash
# Install what is missing, build (Release), and run the default benchmark suite.
# Extra arguments go to `routebench run`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh build
./build/routebench run "$@"
