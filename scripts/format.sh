#!/usr/bin/env bash
# Format every C/C++ source with the committed .clang-format.
#   scripts/format.sh           rewrite files in place
#   scripts/format.sh --check   list unformatted files, exit 1 if any (CI)
set -euo pipefail
cd "$(dirname "$0")/.."
files=$(git ls-files '*.c' '*.h' '*.cc')
if [ "${1:-}" = "--check" ]; then
  bad=0
  for f in $files; do
    clang-format --dry-run --Werror "$f" >/dev/null 2>&1 || { echo "not formatted: $f"; bad=1; }
  done
  exit $bad
fi
clang-format -i $files
