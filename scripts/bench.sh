#!/usr/bin/env bash
# Install what is missing, build (Release), and run the default job:
# conformance of every router on every shipped corpus.
# Extra arguments go to `routebench verify`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh build
./build/routebench verify --all "$@"
