#!/usr/bin/env bash
# Install what is missing, build (Release), and run the default job: the
# benchmark suite (routebench run: 12 generated scenarios, every router,
# paired trials; a few minutes on 2 cores).  Extra arguments go to
# `routebench run`, e.g. --out results/ for the bundle.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh build
./build/routebench run "$@"
