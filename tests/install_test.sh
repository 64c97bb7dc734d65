#!/usr/bin/env bash
# install_test.sh BUILD_DIR SOURCE_DIR [CFLAGS] — the router library as a C
# server sees it: `cmake --install` into a temporary prefix, then
#   1. the layout: library, headers, pkg-config file, CMake package config,
#      and the command line bin/routebench, which runs;
#   2. the public headers include nothing but the C library and each other;
#   3. the shared library exports exactly the RB_API functions of the
#      installed headers, and those are exactly tests/install_exports.txt
#      (so a change of the exported API is a deliberate edit of that list);
#      it needs no library of ours or of a dependency (readelf NEEDED lists
#      only the C runtime);
#   4. examples/server builds and gives the expected answers three ways:
#      pkg-config + shared, the static archive alone, and CMake find_package;
#   5. examples/plugin/segscan.c builds as a plugin against the installed
#      headers alone (no library to link), and `routebench verify` holds it
#      against linear on the shipped corpora.
# CFLAGS are the sanitizer flags of the build under test (the library was
# compiled with them, so the example must link with them too).
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$2" && pwd)
cflags=${3:-}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "install_test: FAIL: $*" >&2; exit 1; }

prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null

# 1. layout
pc=$(find "$prefix" -name routebench.pc)
[ -n "$pc" ] || fail "no routebench.pc installed"
libdir=$(dirname "$(dirname "$pc")")
for f in "$libdir/libroutebench.so" "$libdir/libroutebench.a" \
         "$prefix/include/routebench/router.h" "$prefix/include/routebench/router_plugin.h" \
         "$prefix/include/routebench/base.h" \
         "$libdir/cmake/routebench/routebench-config.cmake" \
         "$libdir/cmake/routebench/routebench-config-version.cmake"; do
  [ -e "$f" ] || fail "missing $f"
done
[ -x "$prefix/bin/routebench" ] || fail "bin/routebench is not installed"
"$prefix/bin/routebench" --version | grep -q '^routebench ' || fail "bin/routebench --version"
# (grep reads it all: grep -q would stop at the match, and under pipefail
# the list's last write then dies of SIGPIPE once its output is over a pipe
# buffer)
"$prefix/bin/routebench" list | grep '^  hashseg' >/dev/null || fail "bin/routebench list"
headers=$(cd "$prefix/include/routebench" && ls)
[ "$headers" = "$(printf 'base.h\nrouter.h\nrouter_plugin.h')" ] || fail "unexpected headers: $headers"

# 2. headers include only the C library (and each other)
includes=$(grep -h '^#include' "$prefix"/include/routebench/*.h | sed 's| */\*.*||' | sort -u)
expected_includes=$(printf '%s\n' '#include "base.h"' '#include "router.h"' '#include <stdarg.h>' \
  '#include <stdbool.h>' '#include <stddef.h>' '#include <stdint.h>' '#include <stdio.h>' \
  '#include <stdlib.h>' '#include <string.h>')
[ "$includes" = "$expected_includes" ] || fail "headers include: $includes"
if grep -qiE 'xxh|cjson|pcre|r3\.h' "$prefix"/include/routebench/*.h; then
  fail "a public header mentions a dependency"
fi

# 3. exported symbols == RB_API functions of the headers == the committed list
api=$(sed -n 's/^RB_API[^(]*[ *]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\1/p' \
        "$prefix"/include/routebench/*.h | sort -u)
[ "$(echo "$api" | wc -l)" -ge 10 ] || fail "could not read the API from the headers: $api"
listed=$(grep -v '^#' "$src/tests/install_exports.txt" | sort -u)
if [ "$api" != "$listed" ]; then
  diff <(echo "$listed") <(echo "$api") >&2 || true
  fail "the RB_API functions of the headers differ from tests/install_exports.txt"
fi
exported=$(nm -D --defined-only "$libdir/libroutebench.so" | awk '$2 ~ /^[TDBRVWi]$/ {print $3}' |
           sed 's/@.*//' | sort -u)
if [ "$exported" != "$api" ]; then
  echo "exported but not in router.h:" >&2; comm -13 <(echo "$api") <(echo "$exported") >&2
  echo "in router.h but not exported:" >&2; comm -23 <(echo "$api") <(echo "$exported") >&2
  fail "exported symbols differ from the public API"
fi
needed=$(readelf -d "$libdir/libroutebench.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
         grep -vE '^(libc|libm|libasan|libubsan|libtsan|libgcc_s|libstdc\+\+|libdl|libpthread)\.so' || true)
[ -z "$needed" ] || fail "libroutebench.so needs: $needed"

# 4. the example server, three ways
cat > "$tmp/expected" <<'OUT'
GET /users/42 -> 200 show_user [42]
GET /users/me -> 200 show_me
POST /users/7/posts -> 200 create_post [7]
GET /static/css/site.css -> 200 serve_file [css/site.css]
PUT /users/7 -> 405 Allow: GET
GET /nope -> 404
OUT
cc=${CC:-cc}
warn="-std=c11 -Wall -Wextra -Wstrict-prototypes -Wmissing-prototypes -Wconversion -Wshadow -Wcast-qual -Werror"
# shellcheck disable=SC2086
"$cc" $warn $cflags "$src/examples/server/server.c" \
  $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags --libs routebench) -o "$tmp/server_pc"
LD_LIBRARY_PATH="$libdir" "$tmp/server_pc" > "$tmp/out_pc"
diff -u "$tmp/expected" "$tmp/out_pc" || fail "pkg-config build: wrong answers"

# shellcheck disable=SC2086
"$cc" $warn $cflags -I"$prefix/include" "$src/examples/server/server.c" \
  "$libdir/libroutebench.a" -o "$tmp/server_static"
"$tmp/server_static" > "$tmp/out_static"
diff -u "$tmp/expected" "$tmp/out_static" || fail "static build: wrong answers"

cmake -S "$src/examples/server" -B "$tmp/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" \
      -DCMAKE_C_FLAGS="$cflags" -DCMAKE_EXE_LINKER_FLAGS="$cflags" >/dev/null
cmake --build "$tmp/cmake-build" >/dev/null
"$tmp/cmake-build/server" > "$tmp/out_cmake"
diff -u "$tmp/expected" "$tmp/out_cmake" || fail "find_package build: wrong answers"

# 5. the example plugin, against the installed headers only
# shellcheck disable=SC2086
"$cc" $warn $cflags -shared -fPIC -fvisibility=hidden \
  $(PKG_CONFIG_PATH="$libdir/pkgconfig" pkg-config --cflags routebench) \
  "$src/examples/plugin/segscan.c" -o "$tmp/libsegscan.so"
plugin_needs=$(readelf -d "$tmp/libsegscan.so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' |
         grep -vE '^(libc|libasan|libubsan|libtsan|libgcc_s)\.so' || true)
[ -z "$plugin_needs" ] || fail "the example plugin needs: $plugin_needs"
plugin_exports=$(nm -D --defined-only "$tmp/libsegscan.so" | awk '$2 ~ /^[TDBR]$/ {print $3}')
[ "$plugin_exports" = routebench_plugin_routers ] || fail "the plugin exports: $plugin_exports"
for corpus in github static gplus parse discord; do
  "$build/routebench" verify --router "segscan@$tmp/libsegscan.so" --corpus "$corpus" \
    > "$tmp/verify.out" 2>&1 || { cat "$tmp/verify.out" >&2; fail "verify segscan on $corpus"; }
done
echo "install_test: ok ($(echo "$api" | wc -l) exported functions; pkg-config, static," \
     "find_package; the example plugin verified)"
