/*
 * compiled.h — the `compiled` router: a router generated for the table it
 * is given (corpus/compile.h), compiled on the fly with the C compiler and
 * loaded, so that the benchmark measures what `routebench compile` gives a
 * C server (docs/compile.md, docs/measurement.md).
 *
 * add() keeps the routes; build() generates the C source for them, looks
 * for CACHE/KEY.so (KEY: a hash of the source, the compiler command and
 * its flags) and, when it is missing, runs
 *
 *     $CC -O2 -shared -fPIC -fvisibility=hidden -DRB_COMPILED_PLUGIN
 *         -I BUILD/include -o CACHE/KEY.so.tmp.PID CACHE/KEY.c
 *
 * (CC from the environment, default cc) and renames the result into
 * place, so two processes building one table at once both end with a
 * whole library; then it dlopens the library, loads the same routes into
 * its plugin router and builds it.  lookup() forwards to the plugin's
 * lookup (one indirect tail call).  CACHE is $RB_COMPILED_CACHE, else
 * $XDG_CACHE_HOME/routebench/compiled, else ~/.cache/routebench/compiled.
 *
 * The library is built without sanitizers, whatever the host's build: its
 * code is the generated lookup only, checked against linear by the tests.
 * With no compiler, build() fails with RB_EUNSUPPORTED naming the command.
 * Nothing here prints.
 */
#ifndef RB_BENCH_COMPILED_H
#define RB_BENCH_COMPILED_H

#include "router_plugin.h"

#define RB_COMPILED_NAME "compiled"
/* The most routes build() compiles (a 10,000-route table takes a few
 * seconds at -O2, docs/compile.md); a larger table is refused with
 * RB_ELIMIT, so that a run over 100,000-route scenarios does not compile
 * them unasked. */
#define RB_COMPILED_MAX_ROUTES 20000u

extern const rb_router_ops rb_bench_compiled_ops;

#endif
