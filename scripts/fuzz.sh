#!/usr/bin/env bash
# Build the libFuzzer targets (clang, ASan+UBSan) and run each for SECONDS
# (default 30) from its committed seed corpus in tests/fuzz/corpus/NAME/.
# New inputs go to build-fuzz/corpus/NAME (the committed seeds are not
# touched); a crash is saved in build-fuzz/artifacts/ and fails the script.
#   scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
seconds=${1:-30}
shift || true
CC=clang bash scripts/build.sh build-fuzz -DRB_FUZZ=ON -DRB_TESTS=OFF -DRB_WERROR=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.c; do targets+=("$(basename "$f" .c)"); done
fi
mkdir -p build-fuzz/artifacts
for t in "${targets[@]}"; do
  mkdir -p "build-fuzz/corpus/$t"
  echo "fuzz: $t for ${seconds}s" >&2
  "build-fuzz/$t" -max_total_time="$seconds" -max_len=4096 -timeout=10 -print_final_stats=1 \
    -artifact_prefix="build-fuzz/artifacts/$t-" "build-fuzz/corpus/$t" "tests/fuzz/corpus/$t" \
    2> "build-fuzz/$t.log" || { tail -40 "build-fuzz/$t.log" >&2; exit 1; }
  grep -E "stat::number_of_executed_units|Done" "build-fuzz/$t.log" | tr '\n' ' ' >&2; echo >&2
done
echo "fuzz: ${#targets[@]} targets ran clean for ${seconds}s each"
